import { getGlobalState, type INodeParameters, type IWorkflowSettings } from 'n8n-workflow';

import { ContactCenter } from '../../nodes/ContactCenter/ContactCenter.node';
import { runNode } from '../harness';

import { formatInTimeZone, sheetsDateTime } from '../../nodes/ContactCenter/helpers/dateTime';
import { METRIC_KEYS, METRICS } from '../../nodes/ContactCenter/helpers/metrics';
import { describeError, runContactCenter, useSimulator } from './contactCenterFixture';

/** The harness's workflows have no time zone setting: n8n then uses its default. */
const WORKFLOW_TIME_ZONE = getGlobalState().defaultTimezone;
const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000).toISOString();

describe('Contact Center: Metric -> Get', () => {
	const fixture = useSimulator();
	const metricRequests = () => fixture.sim.requests.filter((r) => /metrics\//.test(r.path));
	beforeEach(() => fixture.sim.resetCounters());

	it.each(METRIC_KEYS)(
		'%s: one flat row, only the parameters its endpoint takes',
		async (metric) => {
			const { json, error } = await runContactCenter(fixture.credentials, {
				resource: 'metric',
				operation: 'get',
				metric,
				from: hoursAgo(3),
				to: hoursAgo(1),
				status: 'pending',
				userPresenceStatus: 'away',
				filters: { mediumId: 'whatsapp', channelId: 'ch-1' },
			});
			expect(error).toBeUndefined();
			expect(json).toHaveLength(1);
			const [request] = metricRequests();
			expect(request.path).toBe(METRICS[metric].path);
			const takes = Object.keys(METRICS[metric].parameters);
			expect(Object.keys(request.query).sort()).toEqual(
				takes.filter((p) => p !== 'groupByInterval' && p !== 'timezone').sort(),
			);
			expect(json[0]).toMatchObject({
				metric,
				value: expect.any(Number),
				unit: METRICS[metric].unit,
			});
			// Named as in Get Snapshot: the window in UTC, the queue metrics' status as queueConversationStatus.
			const columns = takes
				.filter((p) => p !== 'groupByInterval' && p !== 'timezone')
				.flatMap(
					(p) =>
						({
							from: ['fromUtc', 'fromLocal'],
							to: ['toUtc', 'toLocal'],
							status: ['queueConversationStatus'],
						})[p] ?? [p],
				);
			expect(Object.keys(json[0]).sort()).toEqual(
				['metric', 'value', 'unit', 'retrievedAtUtc', 'retrievedAtLocal', ...columns].sort(),
			);
			// Each time also in the workflow's zone, as Google Sheets reads a date and time.
			expect(json[0].retrievedAtLocal).toBe(
				sheetsDateTime(
					Date.parse(json[0].retrievedAtUtc as string),
					getGlobalState().defaultTimezone,
				),
			);
			if (takes.includes('status')) expect(json[0].queueConversationStatus).toBe('pending');
			expect(
				Object.values(json[0]).every((value) => value === null || typeof value !== 'object'),
			).toBe(true);
		},
	);

	it('defaults From to 24 hours ago, read by the service as a valid ISO date', async () => {
		const { json, error } = await runContactCenter(fixture.credentials, {
			resource: 'metric',
			operation: 'get',
			metric: 'handleTime',
		});
		expect(error).toBeUndefined();
		const { query } = metricRequests()[0];
		const sent = Date.parse(String(query.from));
		expect(Math.abs(sent - (Date.now() - 24 * 3_600_000))).toBeLessThan(5 * 60_000);
		expect(json[0]).toMatchObject({
			fromUtc: new Date(sent).toISOString(),
			toUtc: new Date(Date.parse(String(query.to))).toISOString(),
		});
	});

	it('returns one item per interval: the metric, its start as the service gives it and in the chosen Timezone, that zone, the value; no range repeated', async () => {
		const { json, error, hints } = await runContactCenter(fixture.credentials, {
			resource: 'metric',
			operation: 'get',
			metric: 'inboundMessageVolume',
			from: hoursAgo(5),
			to: hoursAgo(1),
			filters: { mediumId: 'whatsapp' },
			grouping: { groupByInterval: 'hour', timezone: 'America/New_York' },
		});
		expect(error).toBeUndefined();
		expect(json.length).toBeGreaterThanOrEqual(4);
		for (const row of json) {
			expect(Object.keys(row)).toEqual([
				'metric',
				'timestamp',
				'timestampInTimezone',
				'timezone',
				'timestampLocal',
				'value',
				'unit',
				'mediumId',
			]);
			expect(row).toMatchObject({
				metric: 'inboundMessageVolume',
				timezone: 'America/New_York',
				unit: 'messages',
				mediumId: 'whatsapp',
			});
			expect(row.timestampInTimezone).toBe(
				formatInTimeZone(Date.parse(String(row.timestamp)), 'America/New_York'),
			);
			expect(row.timestampInTimezone).toMatch(/-0[45]:00$/);
		}
		expect(metricRequests()[0].query).toMatchObject({
			groupByInterval: 'hour',
			timezone: 'America/New_York',
			mediumId: 'whatsapp',
		});
		// A zone chosen by name needs no word under the output.
		expect(hints).toEqual([]);
	});

	it("groups in the workflow's time zone when Timezone is Workflow Time Zone (empty) or not added", async () => {
		for (const grouping of [
			{ groupByInterval: 'hour' },
			{ groupByInterval: 'hour', timezone: '' },
		]) {
			fixture.sim.resetCounters();
			const { json, error } = await runContactCenter(fixture.credentials, {
				resource: 'metric',
				operation: 'get',
				metric: 'outboundMessageVolume',
				from: hoursAgo(3),
				grouping,
			});
			expect(error).toBeUndefined();
			expect(metricRequests()[0].query.timezone).toBe(WORKFLOW_TIME_ZONE);
			expect(json[0].timestampInTimezone).toBe(
				formatInTimeZone(Date.parse(String(json[0].timestamp)), WORKFLOW_TIME_ZONE),
			);
			expect(json.every((row) => row.timezone === WORKFLOW_TIME_ZONE)).toBe(true);
		}
	});

	const groupedRun = async (workflowSettings: IWorkflowSettings, grouping: INodeParameters) =>
		await runNode({
			nodeType: new ContactCenter(),
			credentials: fixture.credentials,
			workflowSettings,
			parameters: {
				resource: 'metric',
				operation: 'get',
				metric: 'inboundMessageVolume',
				from: hoursAgo(3),
				grouping,
			},
		});

	it("names Workflow Time Zone's zone under the output and in each row: the workflow's own setting", async () => {
		const { output, error, hints } = await groupedRun(
			{ timezone: 'Asia/Kolkata' },
			{ groupByInterval: 'hour', timezone: '' },
		);
		expect(error).toBeUndefined();
		expect(metricRequests()[0].query.timezone).toBe('Asia/Kolkata');
		const rows = (output?.[0] ?? []).map((item) => item.json);
		expect(rows.length).toBeGreaterThan(0);
		expect(rows.every((row) => row.timezone === 'Asia/Kolkata')).toBe(true);
		expect(rows[0].timestampInTimezone).toMatch(/\+05:30$/);
		expect(hints).toEqual([
			{
				message: 'Workflow Time Zone is Asia/Kolkata, set in Workflow settings -> Timezone',
				location: 'outputPane',
			},
		]);
	});

	it("says when Workflow Time Zone is n8n's default because the workflow sets none", async () => {
		const { error, hints } = await groupedRun({}, { groupByInterval: 'day' });
		expect(error).toBeUndefined();
		expect(hints.map((hint) => hint.message)).toEqual([
			`Workflow Time Zone is ${WORKFLOW_TIME_ZONE}, n8n's default: the workflow sets none in Workflow settings -> Timezone`,
		]);
	});

	it('ignores a Timezone without Group By Interval, as n8n drops it before the run: the total, no zone, no word', async () => {
		const { json, error, hints } = await runContactCenter(fixture.credentials, {
			resource: 'metric',
			operation: 'get',
			metric: 'inboundMessageVolume',
			from: hoursAgo(3),
			grouping: { timezone: 'America/New_York' },
		});
		expect(error).toBeUndefined();
		expect(json).toHaveLength(1);
		expect(metricRequests()[0].query.timezone).toBeUndefined();
		expect(json[0]).not.toHaveProperty('timezone');
		expect(hints).toEqual([]);
	});

	it.each([
		[{ metric: 'firstResponseTime', from: '' }, "'From' is required for First Response Time"],
		[{ metric: 'handleTime', from: hoursAgo(15 * 24) }, 'is more than 14 days in the past'],
		[{ metric: 'handleTime', from: hoursAgo(2), to: hoursAgo(3) }, "is not after 'From'"],
		[
			{
				metric: 'inboundMessageVolume',
				from: hoursAgo(2),
				grouping: { groupByInterval: 'minute' },
			},
			'the service returns at most 60',
		],
		[
			{
				metric: 'inboundMessageVolume',
				from: hoursAgo(2),
				grouping: { groupByInterval: 'hour', timezone: 'Atlantis/Capital' },
			},
			"'Timezone' 'Atlantis/Capital' is not a known time zone",
		],
		[
			{ metric: 'contactsWaiting', status: '={{ "" }}' },
			"'Conversation Status' is required for Contacts Waiting",
		],
	])('validates %p before calling, naming the field', async (parameters, message) => {
		const { error } = await runContactCenter(fixture.credentials, {
			resource: 'metric',
			operation: 'get',
			...parameters,
		});
		expect(error?.constructor.name).toBe('NodeOperationError');
		expect(describeError(error).message).toContain(message);
		expect(describeError(error).description).not.toBe('');
		expect(metricRequests()).toHaveLength(0);
	});

	it("turns the service's metrics error shape into an error that quotes it", async () => {
		// The service's clock runs 20 days ahead, so a From valid here is too old for it.
		const { startSimulator } = await import('../simulator');
		const { createCredentialStore } = await import('../harness');
		const ahead = await startSimulator({ now: () => Date.now() + 20 * 86_400_000 });
		try {
			const credentials = createCredentialStore({
				contactCenterOAuth2Api: {
					baseUrl: ahead.url,
					clientId: 'sim-client-id',
					clientSecret: 'sim-client-secret',
				},
			});
			const { error } = await runContactCenter(credentials, {
				resource: 'metric',
				operation: 'get',
				metric: 'handleTime',
			});
			const { message, description } = describeError(error);
			expect(error?.constructor.name).toBe('NodeApiError');
			expect(message).toMatch(
				/^The service refused the parameters of Handle Time: "Bad request parameters/,
			);
			expect(description).toContain('From');
		} finally {
			await ahead.stop();
		}
	});
});

describe('Contact Center: Metric -> Get Snapshot', () => {
	const fixture = useSimulator({ latencyMs: 20 });
	beforeEach(() => fixture.sim.resetCounters());

	it('reads all metrics for one window into one flat item, one column per metric named by its unit, the statuses beside the counts they decide', async () => {
		const { json, error } = await runContactCenter(fixture.credentials, {
			resource: 'metric',
			operation: 'getSnapshot',
			from: hoursAgo(2),
		});
		expect(error).toBeUndefined();
		expect(json).toHaveLength(1);
		const columns = [
			'inboundMessages',
			'outboundMessages',
			'firstResponseTimeSeconds',
			'resolvedWithOneReplyMessages',
			'handleTimeSeconds',
			'agents',
			'contactsWaiting',
			'longestWaitTimeSeconds',
		];
		expect(Object.keys(json[0])).toEqual([
			'fromUtc',
			'fromLocal',
			'toUtc',
			'toLocal',
			'retrievedAtUtc',
			'retrievedAtLocal',
			...columns.slice(0, 6),
			'userPresenceStatus',
			'contactsWaiting',
			'queueConversationStatus',
			'longestWaitTimeSeconds',
		]);
		for (const column of columns) expect(typeof json[0][column]).toBe('number');
		expect(json[0]).toMatchObject({
			userPresenceStatus: 'available',
			queueConversationStatus: 'new',
		});
		expect(fixture.sim.counters.metricRequests).toBe(8);
		const queue = fixture.sim.requests.find((r) => r.path.endsWith('/contacts-waiting'));
		expect(queue?.query).toEqual({ status: 'new' });
		const availability = fixture.sim.requests.find((r) => r.path.endsWith('/agent-availability'));
		expect(availability?.query).toEqual({ userPresenceStatus: 'available' });
	});

	it('sends nothing when one metric parameter is wrong, and names it', async () => {
		const { error } = await runContactCenter(fixture.credentials, {
			resource: 'metric',
			operation: 'getSnapshot',
			metrics: ['contactsWaiting', 'handleTime'],
			from: 'not a date',
		});
		expect(describeError(error).message).toContain("'From' is not a valid date and time");
		expect(fixture.sim.counters.metricRequests).toBe(0);
	});
});

/** A wall clock without offset, as n8n's date picker gives it: read in the workflow's time zone. */
const wallClockHoursAgo = (hours: number) =>
	formatInTimeZone(Date.now() - hours * 3_600_000, WORKFLOW_TIME_ZONE).slice(0, 19);
const UTC_ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('Contact Center: metric outputs', () => {
	const fixture = useSimulator();
	const metricRequests = () => fixture.sim.requests.filter((r) => /metrics\//.test(r.path));
	beforeEach(() => fixture.sim.resetCounters());

	it('the harness runs workflows in a time zone with an offset, as n8n does by default', () => {
		expect(formatInTimeZone(Date.now(), WORKFLOW_TIME_ZONE)).not.toMatch(/\+00:00$/);
	});

	it('Get Snapshot names the seconds in its time columns and gives From, To and Retrieved At in UTC, To the end it read', async () => {
		const from = wallClockHoursAgo(3);
		const before = Date.now();
		const { json, error } = await runContactCenter(fixture.credentials, {
			resource: 'metric',
			operation: 'getSnapshot',
			from,
		});
		const after = Date.now();
		expect(error).toBeUndefined();
		const [row] = json;
		for (const field of ['fromUtc', 'toUtc', 'retrievedAtUtc']) expect(row[field]).toMatch(UTC_ISO);
		const windowed = metricRequests().filter((r) => r.path.startsWith('/reporting-metrics/'));
		const sent = windowed.filter((r) => !r.path.endsWith('/agent-availability'));
		expect(sent).toHaveLength(5);
		expect(new Set(sent.map((r) => r.query.to)).size).toBe(1);
		expect(row.toUtc).toBe(new Date(Date.parse(String(sent[0].query.to))).toISOString());
		expect(row.fromUtc).toBe(new Date(Date.parse(String(sent[0].query.from))).toISOString());
		expect(Date.parse(String(row.toUtc))).toBeGreaterThanOrEqual(before);
		expect(Date.parse(String(row.toUtc))).toBeLessThanOrEqual(
			Date.parse(String(row.retrievedAtUtc)),
		);
		expect(Date.parse(String(row.retrievedAtUtc))).toBeLessThanOrEqual(after);
		const queue = metricRequests().filter((r) => r.path.startsWith('/queue-metrics/'));
		expect(queue.every((r) => !('to' in r.query))).toBe(true);
		expect(row).not.toHaveProperty('firstResponseTime');
		expect(typeof row.firstResponseTimeSeconds).toBe('number');
	});

	it('Get gives the unit and From and To in UTC; a To that was set is kept', async () => {
		const from = wallClockHoursAgo(3);
		const to = wallClockHoursAgo(1);
		const { json, error } = await runContactCenter(fixture.credentials, {
			resource: 'metric',
			operation: 'get',
			metric: 'longestWaitTime',
			status: 'new',
		});
		expect(error).toBeUndefined();
		expect(json[0]).toMatchObject({ metric: 'longestWaitTime', unit: 'seconds' });
		expect(json[0]).not.toHaveProperty('toUtc');

		const volume = await runContactCenter(fixture.credentials, {
			resource: 'metric',
			operation: 'get',
			metric: 'inboundMessageVolume',
			from,
			to,
		});
		expect(volume.error).toBeUndefined();
		const query = metricRequests().find((r) => r.path.endsWith('/inbound-message-volume'))?.query;
		expect(volume.json[0]).toMatchObject({
			unit: 'messages',
			fromUtc: new Date(Date.parse(String(query?.from))).toISOString(),
			toUtc: new Date(Date.parse(String(query?.to))).toISOString(),
		});
		expect(String(query?.to)).not.toMatch(/Z$/);
	});

	it('a From in the future with To empty is refused before anything is sent', async () => {
		const { error } = await runContactCenter(fixture.credentials, {
			resource: 'metric',
			operation: 'getSnapshot',
			from: new Date(Date.now() + 3_600_000).toISOString(),
		});
		expect(describeError(error).message).toContain('is not in the past');
		expect(metricRequests()).toHaveLength(0);
	});
});
