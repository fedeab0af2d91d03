import { METRIC_KEYS, METRICS } from '../../nodes/ContactCenter/helpers/metrics';
import { describeError, runContactCenter, useSimulator } from './contactCenterFixture';

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
			expect(json[0]).toMatchObject({ metric, value: expect.any(Number) });
			expect(Object.keys(json[0]).sort()).toEqual(
				['metric', 'value', 'retrievedAt', ...takes].sort(),
			);
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
		const sent = Date.parse(String(metricRequests()[0].query.from));
		expect(Math.abs(sent - (Date.now() - 24 * 3_600_000))).toBeLessThan(5 * 60_000);
		expect(json[0].to).toBeNull();
	});

	it('returns one item per interval for a grouped volume metric', async () => {
		const { json, error } = await runContactCenter(fixture.credentials, {
			resource: 'metric',
			operation: 'get',
			metric: 'inboundMessageVolume',
			from: hoursAgo(5),
			to: hoursAgo(1),
			grouping: { groupByInterval: 'hour', timezone: 'Europe/Amsterdam' },
		});
		expect(error).toBeUndefined();
		expect(json.length).toBeGreaterThanOrEqual(4);
		expect(
			json.every(
				(row) =>
					row.metric === 'inboundMessageVolume' &&
					row.groupByInterval === 'hour' &&
					row.timezone === 'Europe/Amsterdam',
			),
		).toBe(true);
		expect(metricRequests()[0].query).toMatchObject({
			groupByInterval: 'hour',
			timezone: 'Europe/Amsterdam',
		});
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

	it('reads all metrics for one window into one flat item, one column per metric', async () => {
		const { json, error } = await runContactCenter(fixture.credentials, {
			resource: 'metric',
			operation: 'getSnapshot',
			from: hoursAgo(2),
		});
		expect(error).toBeUndefined();
		expect(json).toHaveLength(1);
		expect(Object.keys(json[0]).sort()).toEqual(
			['from', 'to', 'retrievedAt', ...METRIC_KEYS].sort(),
		);
		for (const metric of METRIC_KEYS) expect(typeof json[0][metric]).toBe('number');
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
