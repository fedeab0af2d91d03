/**
 * Write back in one n8n process while n8n's public API stumbles: the webhook
 * call and the run through n8n-core, the record in the data table API stand-in with faults.
 * Queue mode (claims as rows) is trigger-queue.faults.test.ts: which of the two a process is
 * is learnt once per process, so each has its own test file.
 */
import { setRecordTiming } from '../harness/processState';
import { deliver, parseAnswer } from '../harness/run-trigger-flow';
import {
	FAULT_PATTERNS,
	deliverAll,
	isAccepted,
	newKeys,
	recordRows,
	signed,
	tallyRuns,
	useRecordApi,
	waitFor,
	writeBack,
	writeBackFlow,
} from './recordFaults';

const fixture = useRecordApi();
/** The keys the record holds as done. */
const doneKeys = () =>
	new Set(
		recordRows(fixture.api, fixture.apiKey)
			.filter((row) => row.state === 'done')
			.map((row) => String(row.recordKey).split('|')[1]),
	);

describe('write back in one process, n8n API faults in the record calls', () => {
	test.each(FAULT_PATTERNS)(
		'$name: 24 write backs, 6 in flight: none run twice, none lost, at least 95 % accepted at their first delivery',
		async ({ name, rule, during }) => {
			const flow = writeBackFlow(fixture.credentials);
			const keys = newKeys('p', 24);
			fixture.api.setFaults(rule);
			const load = deliverAll(async (delivery) => await deliver(flow, delivery), keys);
			during?.(fixture.api);
			const { first, all } = await load;
			const figures = tallyRuns(keys, flow.database.sink.processed, all);
			const acceptedFirst = first.filter(isAccepted).length;
			expect(figures).toEqual({ runTwice: [], lost: [], neverAccepted: [] });
			expect(acceptedFirst).toBeGreaterThanOrEqual(23);
			if (name.includes('slower')) expect(acceptedFirst).toBe(24);
			const done = doneKeys();
			expect(keys.filter((key) => !done.has(key))).toEqual([]);
		},
		60_000,
	);

	test('a rate limit that outlasts the retries: the delivery whose done row it refuses is answered 200 and counts as done here; the next is answered 503 naming the rate limit (not the key) and not run', async () => {
		setRecordTiming({ retryBudgetMs: 1500, pendingRetryMs: 200 });
		const flow = writeBackFlow(fixture.credentials);
		const [first, second] = newKeys('limited', 2);
		fixture.api.setFaults(() => ({ status: 429, retryAfterSeconds: 1 }));
		// This process's index of the record knows the new key is free: the first call is the done row.
		const ran = await deliver(flow, signed(writeBack(first)));
		expect(parseAnswer(ran)?.status).toBe('processed');
		const refused = await deliver(flow, signed(writeBack(second)));
		expect(refused.status).toBe(503);
		const message = String(parseAnswer(refused)?.message);
		expect(message).toContain("n8n's API rate-limited the record's read calls");
		expect(message).toContain('429');
		expect(message).not.toMatch(/credential|API key must be valid/);
		expect(parseAnswer(await deliver(flow, signed(writeBack(first))))?.status).toBe('duplicate');
		expect(flow.database.sink.processed.map((item) => item.idempotencyKey)).toEqual([first]);
		fixture.api.setFaults(undefined);
		expect(parseAnswer(await deliver(flow, signed(writeBack(second))))?.status).toBe('processed');
		await waitFor(() => doneKeys().has(first) && doneKeys().has(second));
		expect(
			recordRows(fixture.api, fixture.apiKey).filter((row) => row.state === 'running'),
		).toEqual([]);
	}, 30_000);

	test("n8n's API not answering (500s) for longer than the retries: 503 saying so, not naming the credential, and no run", async () => {
		setRecordTiming({ retryBudgetMs: 1500, pendingRetryMs: 200 });
		const flow = writeBackFlow(fixture.credentials);
		const [first, second] = newKeys('down', 2);
		fixture.api.setFaults(() => ({ status: 500 }));
		expect(parseAnswer(await deliver(flow, signed(writeBack(first))))?.status).toBe('processed');
		const refused = await deliver(flow, signed(writeBack(second)));
		expect(refused.status).toBe(503);
		const message = String(parseAnswer(refused)?.message);
		expect(message).toContain("n8n's API did not answer the record's read call (500");
		expect(message).not.toMatch(/credential|API key must be valid/);
		expect(flow.database.sink.processed.map((item) => item.idempotencyKey)).toEqual([first]);
		fixture.api.setFaults(undefined);
		await waitFor(() => doneKeys().has(first));
	}, 30_000);

	test("n8n's API refusing connections for longer than the retries: 503 naming n8n's API and the refused connection, not n8n's generic words, and no run", async () => {
		setRecordTiming({ retryBudgetMs: 1500, pendingRetryMs: 200 });
		const flow = writeBackFlow(fixture.credentials);
		const keys = newKeys('refused', 2);
		const outage = fixture.api.outage(5000);
		// A key this process's index knows to be free runs without a record call before it; once a
		// record call failed, the index answers no longer and a delivery needs the record itself.
		const answers = [];
		for (const key of keys)
			answers.push({ key, answer: await deliver(flow, signed(writeBack(key))) });
		await outage;
		const refused = answers.filter(({ answer }) => answer.status === 503);
		const ran = answers.filter(({ answer }) => parseAnswer(answer)?.status === 'processed');
		expect(refused.length).toBeGreaterThan(0);
		expect(refused.length + ran.length).toBe(keys.length);
		for (const { answer } of refused) {
			const message = String(parseAnswer(answer)?.message);
			expect(message).toContain("n8n's API did not answer the record's read call (no answer:");
			expect(message).toContain('ECONNREFUSED');
			expect(message).toContain('tried for 2 s');
			expect(message).not.toContain('The service refused the connection');
		}
		expect(flow.database.sink.processed.map((item) => item.idempotencyKey)).toEqual(
			ran.map(({ key }) => key),
		);
		for (const { key } of refused) {
			expect(parseAnswer(await deliver(flow, signed(writeBack(key))))?.status).toBe('processed');
		}
		await waitFor(() => keys.every((key) => doneKeys().has(key)));
	}, 30_000);

	test('a run that succeeded while its done row cannot be written: answered 200, a redelivery is a duplicate and runs nothing, the row is written once the API takes it', async () => {
		setRecordTiming({ retryBudgetMs: 800, pendingRetryMs: 200 });
		const flow = writeBackFlow(fixture.credentials);
		const [key] = newKeys('late', 1);
		fixture.api.setFaults(({ operation }) =>
			operation === 'insertRows' ? { status: 503 } : undefined,
		);
		const result = await deliver(flow, signed(writeBack(key)));
		expect(result.status).toBe(200);
		expect(parseAnswer(result)?.status).toBe('processed');
		const again = await deliver(flow, signed(writeBack(key)));
		expect(parseAnswer(again)?.status).toBe('duplicate');
		expect(flow.database.sink.processed.map((item) => item.idempotencyKey)).toEqual([key]);
		expect(
			recordRows(fixture.api, fixture.apiKey).filter((row) => String(row.recordKey).endsWith(key)),
		).toEqual([]);
		fixture.api.setFaults(undefined);
		await waitFor(() => doneKeys().has(key));
		expect(
			recordRows(fixture.api, fixture.apiKey)
				.filter((row) => String(row.recordKey).endsWith(`|${key}`))
				.map((row) => row.state),
		).toEqual(['done']);
		const later = await deliver(flow, signed(writeBack(key)));
		expect(parseAnswer(later)?.status).toBe('duplicate');
	});
});
