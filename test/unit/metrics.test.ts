import {
	buildMetricQuery,
	METRIC_KEYS,
	MEDIUM_IDS,
	MEDIUM_NAMES,
	METRICS,
	MetricParameterError,
	snapshotColumn,
	type MetricInput,
	type MetricKey,
} from '../../nodes/ContactCenter/helpers/metrics';

const now = Date.parse('2026-11-22T12:00:00Z');
const options = { now, workflowTimeZone: 'UTC' };
const hoursAgo = (hours: number) => new Date(now - hours * 3_600_000).toISOString();

function refusal(metric: MetricKey, input: MetricInput): MetricParameterError {
	try {
		buildMetricQuery(metric, input, options);
	} catch (error) {
		expect(error).toBeInstanceOf(MetricParameterError);
		return error as MetricParameterError;
	}
	throw new Error(`expected ${metric} to refuse ${JSON.stringify(input)}`);
}

/** Every parameter set, so that only what an endpoint takes may come through. */
const everything: MetricInput = {
	from: hoursAgo(2),
	to: hoursAgo(1),
	mediumId: 'whatsapp',
	channelId: 'ch-1',
	groupByInterval: 'minute',
	timezone: 'Europe/Amsterdam',
	userPresenceStatus: 'away',
	status: 'pending',
};

describe('buildMetricQuery', () => {
	it.each(METRIC_KEYS)('%s sends exactly the parameters its endpoint takes', (metric) => {
		const query = buildMetricQuery(metric, everything, options);
		expect(query.path).toBe(METRICS[metric].path);
		expect(Object.keys(query.qs).sort()).toEqual(Object.keys(METRICS[metric].parameters).sort());
	});

	it('matches the parameter matrix of spec 4.5', () => {
		const matrix = Object.fromEntries(
			METRIC_KEYS.map((metric) => [
				METRICS[metric].path.split('/').pop(),
				METRICS[metric].parameters,
			]),
		);
		expect(matrix['inbound-message-volume']).toEqual({
			from: 'required',
			to: 'optional',
			mediumId: 'optional',
			channelId: 'optional',
			groupByInterval: 'optional',
			timezone: 'optional',
		});
		expect(matrix['outbound-message-volume']).toEqual(matrix['inbound-message-volume']);
		expect(matrix['first-response-time']).toEqual({
			from: 'required',
			to: 'optional',
			mediumId: 'optional',
			channelId: 'optional',
		});
		expect(matrix['resolved-with-one-reply']).toEqual({
			from: 'optional',
			to: 'optional',
			mediumId: 'optional',
			channelId: 'optional',
		});
		expect(matrix['handle-time']).toEqual(matrix['first-response-time']);
		expect(matrix['agent-availability']).toEqual({
			channelId: 'optional',
			userPresenceStatus: 'optional',
		});
		expect(matrix['contacts-waiting']).toEqual({
			mediumId: 'optional',
			channelId: 'optional',
			status: 'required',
		});
		expect(matrix['longest-wait-time']).toEqual(matrix['contacts-waiting']);
	});

	it.each([
		'inboundMessageVolume',
		'outboundMessageVolume',
		'firstResponseTime',
		'handleTime',
	] as const)('%s requires From', (metric) => {
		const error = refusal(metric, { from: '' });
		expect(error.parameter).toBe('from');
		expect(error.message).toBe(`'From' is required for ${METRICS[metric].name}`);
		expect(error.fix).toContain('14 days');
	});

	it('lets resolved-with-one-reply go without From (the service then uses the last 5 days)', () => {
		expect(buildMetricQuery('resolvedWithOneReply', {}, options).qs).toEqual({
			to: new Date(now).toISOString(),
		});
	});

	it('refuses a required From more than 14 days back and accepts one just inside', () => {
		const error = refusal('handleTime', { from: hoursAgo(14 * 24 + 1) });
		expect(error.parameter).toBe('from');
		expect(error.message).toContain('more than 14 days in the past');
		expect(
			buildMetricQuery('handleTime', { from: hoursAgo(14 * 24 - 1) }, options).qs.from,
		).toBeDefined();
	});

	it('refuses To that is not after From', () => {
		const error = refusal('firstResponseTime', { from: hoursAgo(2), to: hoursAgo(2) });
		expect(error.parameter).toBe('to');
		expect(error.message).toContain("is not after 'From'");
	});

	it('refuses a malformed date with the field name', () => {
		const error = refusal('inboundMessageVolume', { from: 'yesterday' });
		expect(error.message).toBe(
			"'From' is not a valid date and time: 'yesterday' is not an ISO-8601 date-time",
		);
	});

	it('allows at most 60 intervals: a minute range of 1 hour passes, 61 minutes do not', () => {
		const oneHour = { from: hoursAgo(2), to: hoursAgo(1), groupByInterval: 'minute' };
		expect(buildMetricQuery('inboundMessageVolume', oneHour, options).qs.groupByInterval).toBe(
			'minute',
		);
		const error = refusal('inboundMessageVolume', {
			...oneHour,
			to: new Date(now - 3_600_000 + 60_000).toISOString(),
		});
		expect(error.parameter).toBe('groupByInterval');
		expect(error.message).toContain('61 minute intervals');
		expect(error.fix).toContain('at most 1 hour');
	});

	it('counts intervals up to now when To is empty', () => {
		expect(() =>
			buildMetricQuery(
				'outboundMessageVolume',
				{ from: hoursAgo(61), groupByInterval: 'hour' },
				options,
			),
		).toThrow('spans 61 hour intervals');
		expect(
			buildMetricQuery(
				'outboundMessageVolume',
				{ from: hoursAgo(60), groupByInterval: 'hour' },
				options,
			).qs.groupByInterval,
		).toBe('hour');
	});

	it('refuses an unknown group-by interval, medium, presence and queue status', () => {
		expect(
			refusal('inboundMessageVolume', { from: hoursAgo(1), groupByInterval: 'week' }).parameter,
		).toBe('groupByInterval');
		expect(
			refusal('inboundMessageVolume', { from: hoursAgo(1), mediumId: 'sms' }).message,
		).toContain("'Medium' has an unknown value 'sms'");
		expect(refusal('agentAvailability', { userPresenceStatus: 'busy' }).parameter).toBe(
			'userPresenceStatus',
		);
		expect(refusal('contactsWaiting', { status: 'resolved' }).parameter).toBe('status');
	});

	it('refuses an unknown IANA time zone and accepts a real one', () => {
		const error = refusal('inboundMessageVolume', {
			from: hoursAgo(1),
			groupByInterval: 'hour',
			timezone: 'Mars/Olympus',
		});
		expect(error.parameter).toBe('timezone');
		expect(error.fix).toContain('Europe/Amsterdam');
		expect(
			buildMetricQuery(
				'inboundMessageVolume',
				{ from: hoursAgo(1), timezone: 'America/New_York' },
				options,
			).qs.timezone,
		).toBe('America/New_York');
	});

	it('requires a queue status for the queue metrics', () => {
		for (const metric of ['contactsWaiting', 'longestWaitTime'] as const) {
			const error = refusal(metric, {});
			expect(error.parameter).toBe('status');
			expect(error.message).toBe(`'Conversation Status' is required for ${METRICS[metric].name}`);
		}
	});

	it('leaves User Presence Status out when not set, so the caller can warn that the result is 0', () => {
		expect(buildMetricQuery('agentAvailability', { userPresenceStatus: '' }, options).qs).toEqual(
			{},
		);
	});

	it('reads a date without offset in the workflow time zone and sends it with its offset', () => {
		const query = buildMetricQuery(
			'handleTime',
			{ from: '2026-11-20T09:00:00' },
			{ now, workflowTimeZone: 'Europe/Amsterdam' },
		);
		expect(query.qs.from).toBe('2026-11-20T09:00:00+01:00');
	});
});

describe('units (spec 4.5: first response, handle and longest wait time are in seconds)', () => {
	it('gives the three times the unit seconds and every count what it counts', () => {
		expect(Object.fromEntries(METRIC_KEYS.map((metric) => [metric, METRICS[metric].unit]))).toEqual(
			{
				inboundMessageVolume: 'messages',
				outboundMessageVolume: 'messages',
				firstResponseTime: 'seconds',
				resolvedWithOneReply: 'messages',
				handleTime: 'seconds',
				agentAvailability: 'agents',
				contactsWaiting: 'contacts',
				longestWaitTime: 'seconds',
			},
		);
	});

	it.each(METRIC_KEYS)('%s: the description the node shows names the unit', (metric) => {
		expect(METRICS[metric].description).toContain(METRICS[metric].unit);
	});

	it('names the unit in every snapshot column: seconds for the times, what they count for the counts', () => {
		expect(METRIC_KEYS.map(snapshotColumn)).toEqual([
			'inboundMessages',
			'outboundMessages',
			'firstResponseTimeSeconds',
			'resolvedWithOneReplyMessages',
			'handleTimeSeconds',
			'agents',
			'contactsWaiting',
			'longestWaitTimeSeconds',
		]);
	});

	it.each(METRIC_KEYS)('%s: its snapshot column names its unit', (metric) => {
		const { unit } = METRICS[metric];
		const noun = unit === 'seconds' ? 'Seconds' : unit;
		expect(snapshotColumn(metric).toLowerCase()).toContain(noun.toLowerCase());
	});
});

describe('the window that is read (an open window ends at now)', () => {
	it('sends now as To when To is empty, and gives both ends in epoch milliseconds', () => {
		const query = buildMetricQuery('handleTime', { from: '2026-11-22T06:00:00-05:00' }, options);
		expect(query.qs.to).toBe('2026-11-22T12:00:00.000Z');
		expect(query.window).toEqual({
			fromMs: Date.parse('2026-11-22T11:00:00Z'),
			toMs: now,
		});
	});

	it('keeps a To that was set', () => {
		const query = buildMetricQuery('handleTime', { from: hoursAgo(3), to: hoursAgo(1) }, options);
		expect(query.qs.to).toBe(hoursAgo(1));
		expect(query.window.toMs).toBe(now - 3_600_000);
	});

	it('sends no To to the metrics that take none', () => {
		const query = buildMetricQuery('contactsWaiting', { status: 'new' }, options);
		expect(query.qs).toEqual({ status: 'new' });
		expect(query.window).toEqual({ fromMs: undefined, toMs: undefined });
	});

	it("refuses a From in the future when To is empty, naming 'From'", () => {
		let caught: unknown;
		try {
			buildMetricQuery('handleTime', { from: hoursAgo(-1) }, options);
		} catch (error) {
			caught = error;
		}
		expect(caught).toBeInstanceOf(MetricParameterError);
		expect((caught as MetricParameterError).parameter).toBe('from');
		expect((caught as MetricParameterError).message).toContain('is not in the past');
	});
});

describe('the Medium filter', () => {
	it('names every medium code of the spec in words (capitalised, distinct)', () => {
		const names = MEDIUM_IDS.map((id) => MEDIUM_NAMES[id]);
		expect(new Set(names).size).toBe(MEDIUM_IDS.length);
		for (const id of MEDIUM_IDS) expect(MEDIUM_NAMES[id]).toMatch(/^[A-Z]/);
		expect(MEDIUM_NAMES.fb).toBe('Facebook Messenger');
		expect(MEDIUM_NAMES.mailgun).toBe('Email via Mailgun');
	});
});
