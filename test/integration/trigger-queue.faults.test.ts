/**
 * Write back as in n8n queue mode (the run on a worker, which gets the item
 * through the database: every claim is a row in the record) while n8n's public API stumbles. One
 * process's side: trigger.faults.test.ts.
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
const rowsOfKey = (key: string) =>
	recordRows(fixture.api, fixture.apiKey).filter((row) =>
		String(row.recordKey).endsWith(`|${key}`),
	);

describe('write back in queue mode (claims as rows), n8n API faults in the record calls', () => {
	test.each(FAULT_PATTERNS)(
		'$name: 24 write backs, 6 in flight: none run twice, none lost, no claim left, at least 95 % accepted at their first delivery',
		async ({ name, rule, during }) => {
			const flow = writeBackFlow(fixture.credentials, true);
			const keys = newKeys('q', 24);
			fixture.api.setFaults(rule);
			const load = deliverAll(async (delivery) => await deliver(flow, delivery), keys);
			during?.(fixture.api);
			const { first, all } = await load;
			const figures = tallyRuns(keys, flow.database.sink.processed, all);
			const acceptedFirst = first.filter(isAccepted).length;
			expect(figures).toEqual({ runTwice: [], lost: [], neverAccepted: [] });
			expect(acceptedFirst).toBeGreaterThanOrEqual(23);
			if (name.includes('slower')) expect(acceptedFirst).toBe(24);
			expect(keys.flatMap((key) => rowsOfKey(key).map((row) => `${key} ${row.state}`))).toEqual(
				keys.map((key) => `${key} done`),
			);
		},
		60_000,
	);

	test('a claim whose read fails for good is answered 503, runs nothing and leaves no row behind', async () => {
		setRecordTiming({ retryBudgetMs: 1000 });
		const flow = writeBackFlow(fixture.credentials, true);
		const [key] = newKeys('unread', 1);
		fixture.api.setFaults(({ operation }) =>
			operation === 'getRows' ? { status: 429, retryAfterSeconds: 1 } : undefined,
		);
		const refused = await deliver(flow, signed(writeBack(key)));
		expect(refused.status).toBe(503);
		expect(String(parseAnswer(refused)?.message)).toContain(
			"n8n's API rate-limited the record's read calls",
		);
		expect(flow.database.sink.processed).toEqual([]);
		expect(rowsOfKey(key)).toEqual([]);
		fixture.api.setFaults(undefined);
		expect(parseAnswer(await deliver(flow, signed(writeBack(key))))?.status).toBe('processed');
	}, 30_000);

	test('a claim insert carried out but its answer lost, then sent again: the claim holds, the extra row is deleted, the delivery runs once', async () => {
		const flow = writeBackFlow(fixture.credentials, true);
		const [key] = newKeys('lost-answer', 1);
		let lost = 0;
		fixture.api.setFaults(({ operation }) =>
			operation === 'insertRows' && lost++ === 0 ? { reset: true, afterExecute: true } : undefined,
		);
		const result = await deliver(flow, signed(writeBack(key)));
		expect(parseAnswer(result)?.status).toBe('processed');
		expect(flow.database.sink.processed.map((item) => item.idempotencyKey)).toEqual([key]);
		expect(rowsOfKey(key).map((row) => row.state)).toEqual(['done']);
		expect(parseAnswer(await deliver(flow, signed(writeBack(key))))?.status).toBe('duplicate');
	});

	test('a run that succeeded while its claim cannot be turned done: answered 200, counted as done in its process, its claim row holding the key for the others until the API takes the update', async () => {
		setRecordTiming({ retryBudgetMs: 800, pendingRetryMs: 300 });
		const flow = writeBackFlow(fixture.credentials, true);
		const [key] = newKeys('late', 1);
		fixture.api.setFaults(({ operation }) =>
			operation === 'updateRows' ? { status: 503 } : undefined,
		);
		const result = await deliver(flow, signed(writeBack(key)));
		expect(result.status).toBe(200);
		expect(parseAnswer(result)?.status).toBe('processed');
		// The process that ran it knows; for every other process the claim row holds the key
		// (a claim there finds a live running row, older than its own, and is answered 409).
		expect(parseAnswer(await deliver(flow, signed(writeBack(key))))?.status).toBe('duplicate');
		expect(rowsOfKey(key).map((row) => row.state)).toEqual(['running']);
		expect(flow.database.sink.processed.map((item) => item.idempotencyKey)).toEqual([key]);
		fixture.api.setFaults(undefined);
		await waitFor(() => rowsOfKey(key).some((row) => row.state === 'done'));
		expect(rowsOfKey(key).map((row) => row.state)).toEqual(['done']);
		expect(flow.database.sink.processed).toHaveLength(1);
	}, 30_000);
});
