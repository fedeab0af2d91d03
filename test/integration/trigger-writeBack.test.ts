/**
 * Write back deliveries in one n8n process, through n8n-core: the trigger's webhook call, then its
 * run, the record in the data table API stand-in. Queue mode is trigger-writeBack-queue.test.ts:
 * which of the two a process is is learnt once per process, so each has its own test file.
 */
import type { IDataObject } from 'n8n-workflow';

import { ContactCenterTrigger } from '../../nodes/ContactCenterTrigger/ContactCenterTrigger.node';
import { resetTriggerState } from '../../nodes/ContactCenterTrigger/processState';
import { DEFAULT_RECORD_WINDOWS } from '../../nodes/shared/once';
import { deliver, parseAnswer, type Delivery, type FlowOptions } from '../harness/run-trigger-flow';
import {
	newKeys,
	recordRows,
	signed,
	useRecordApi,
	writeBack,
	writeBackFlow,
} from './recordFaults';

const fixture = useRecordApi();

let flow: FlowOptions;
beforeEach(() => {
	flow = writeBackFlow(fixture.credentials);
});
afterEach(() => jest.restoreAllMocks());

const failing = (key: string): IDataObject => ({
	...writeBack(key),
	data: { conversation: { id: `conv-${key}` }, failThisRun: true },
});

const processedKeys = () => flow.database.sink.processed.map((item) => item.idempotencyKey);

const statesOf = (key: string) =>
	recordRows(fixture.api, fixture.apiKey)
		.filter((row) => String(row.recordKey).endsWith(`|${key}`))
		.map((row) => row.state);

const answerOf = (status: string, key: string | null) => ({
	received: status !== 'running',
	duplicate: status === 'duplicate' || status === 'running',
	idempotencyKey: key,
	status,
});

const statusOf = async (delivery: Delivery, options: FlowOptions = flow) =>
	parseAnswer(await deliver(options, delivery))?.status;

/** The record calls made while `work` runs, as `operation state` (the state of inserted rows). */
async function recordCallsOf(work: () => Promise<unknown>): Promise<string[]> {
	const from = fixture.api.calls.length;
	await work();
	return fixture.api.calls.slice(from).map((call) => {
		const rows = (call.body as { data?: Array<{ state?: string }> } | undefined)?.data;
		return call.operation === 'insertRows' && Array.isArray(rows)
			? `insertRows ${rows.map((row) => row.state).join(',')}`
			: call.operation;
	});
}

/** The trigger as a restarted n8n loads it: no holds, no index, nothing learnt. */
function restartedTrigger(): ContactCenterTrigger {
	let restarted: ContactCenterTrigger | undefined;
	jest.isolateModules(() => {
		// A fresh copy of the node's modules. Only require() loads a module into jest's isolated
		// registry synchronously.
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const fresh = require('../../nodes/ContactCenterTrigger/ContactCenterTrigger.node') as {
			ContactCenterTrigger: typeof ContactCenterTrigger;
		};
		restarted = new fresh.ContactCenterTrigger();
	});
	return restarted!;
}

// First in this file: the process learns where its runs stay from its first production run.
describe('write back in one n8n process: where the key is held', () => {
	it('claims a row until a run found the item its webhook call made; from then on a delivery writes only its done row', async () => {
		const [first, second] = newKeys('learn', 2);
		const firstCalls = await recordCallsOf(
			async () => await deliver(flow, signed(writeBack(first))),
		);
		expect(firstCalls).toContain('insertRows running');
		expect(firstCalls).toContain('updateRows');
		const secondCalls = await recordCallsOf(
			async () => await deliver(flow, signed(writeBack(second))),
		);
		expect(secondCalls.filter((call) => call.startsWith('insertRows'))).toEqual([
			'insertRows done',
		]);
		expect(secondCalls).not.toContain('updateRows');
		expect(statesOf(first)).toEqual(['done']);
		expect(statesOf(second)).toEqual(['done']);
	});
});

describe('write back in one n8n process: deliveries through n8n-core (webhook call, then the run)', () => {
	it('runs a first delivery and answers 200 "processed" as JSON once the run succeeded', async () => {
		const [key] = newKeys('first', 1);
		const result = await deliver(flow, signed(writeBack(key)));
		expect(result.status).toBe(200);
		expect(result.headers['content-type']).toBe('application/json; charset=utf-8');
		expect(parseAnswer(result)).toEqual(answerOf('processed', key));
		expect(processedKeys()).toEqual([key]);
	});

	it('answers a redelivery of a key whose run succeeded with 200 "duplicate" in the same shape, without a run', async () => {
		const [key] = newKeys('again', 1);
		await deliver(flow, signed(writeBack(key)));
		const again = await deliver(flow, signed(writeBack(key)));
		expect(again.status).toBe(200);
		expect(again.headers['content-type']).toBe('application/json; charset=utf-8');
		expect(parseAnswer(again)).toEqual(answerOf('duplicate', key));
		expect(again.executionId).toBeUndefined();
		expect(processedKeys()).toEqual([key]);
	});

	it('keeps its record in the data table, one done row per key', async () => {
		const [key] = newKeys('where', 1);
		await deliver(flow, signed(writeBack(key)));
		expect(statesOf(key)).toEqual(['done']);
	});

	it('records every delivery answered at overlapping times', async () => {
		const keys = newKeys('overlap', 4);
		await Promise.all(keys.map(async (key) => await deliver(flow, signed(writeBack(key)))));
		expect(keys.map(statesOf)).toEqual(keys.map(() => ['done']));
		for (const key of keys) expect(await statusOf(signed(writeBack(key)))).toBe('duplicate');
		expect(processedKeys().sort()).toEqual([...keys].sort());
	});

	it('answers a failed run 500, records nothing for it, and runs the redelivery again, so nothing is lost', async () => {
		const [key] = newKeys('failed', 1);
		const failed = await deliver(flow, signed(failing(key)));
		expect(failed.status).toBe(500);
		expect(processedKeys()).toEqual([]);
		expect(statesOf(key)).toEqual([]);

		const retried = await deliver(flow, signed(writeBack(key)));
		expect(parseAnswer(retried)).toEqual(answerOf('processed', key));
		expect(await statusOf(signed(writeBack(key)))).toBe('duplicate');
		expect(processedKeys()).toEqual([key]);
	});

	it('recognises a redelivery after n8n restarts: the process that answers it knows nothing of the first', async () => {
		const [key] = newKeys('restart', 1);
		await deliver(flow, signed(writeBack(key)));
		const again = await deliver(
			{ ...flow, triggerType: restartedTrigger() },
			signed(writeBack(key)),
		);
		expect(parseAnswer(again)).toEqual(answerOf('duplicate', key));
		expect(processedKeys()).toEqual([key]);
	});

	it('with n8n saving no successful executions: processed once, a redelivery answered "duplicate", also after a restart', async () => {
		const unsaved = { ...flow, saveSuccessfulExecutions: false };
		const keys = newKeys('unsaved', 3);
		for (const key of keys)
			expect(await statusOf(signed(writeBack(key)), unsaved)).toBe('processed');
		expect([...flow.database.executions.keys()]).toEqual([]);
		for (const key of keys)
			expect(await statusOf(signed(writeBack(key)), unsaved)).toBe('duplicate');
		expect(keys.map(statesOf)).toEqual(keys.map(() => ['done']));
		const restarted = restartedTrigger();
		for (const key of keys) {
			const again = await deliver({ ...unsaved, triggerType: restarted }, signed(writeBack(key)));
			expect(parseAnswer(again)).toEqual(answerOf('duplicate', key));
		}
		expect(processedKeys()).toEqual(keys);
	});

	it('with n8n saving no successful executions, a failed run is still answered 500 and delivered again', async () => {
		const unsaved = { ...flow, saveSuccessfulExecutions: false };
		const [key] = newKeys('unsavedFailed', 1);
		expect((await deliver(unsaved, signed(failing(key)))).status).toBe(500);
		expect(statesOf(key)).toEqual([]);
		expect(await statusOf(signed(writeBack(key)), unsaved)).toBe('processed');
		expect(processedKeys()).toEqual([key]);
	});

	it('answers an unselected type 200 "ignored" in the same shape, without a run', async () => {
		const [key] = newKeys('ignored', 1);
		const ignored = await deliver(
			{ ...flow, parameters: { endpoint: 'writeBack', events: ['CONVERSATION_SET_TO_PENDING'] } },
			signed(writeBack(key)),
		);
		expect(ignored.status).toBe(200);
		expect(ignored.body).toEqual({ ...answerOf('ignored', key), duplicate: false });
		expect(ignored.executionId).toBeUndefined();
		expect(processedKeys()).toEqual([]);
	});

	it('runs every delivery that carries no idempotency key', async () => {
		const body = writeBack('no-key');
		delete body.idempotencyKey;
		await deliver(flow, signed(body));
		const second = await deliver(flow, signed(body));
		expect(parseAnswer(second)).toEqual(answerOf('processed', null));
		expect(flow.database.sink.processed).toHaveLength(2);
	});

	it('"Immediately" answers before the run ends, and still recognises a processed key', async () => {
		const immediate = { ...flow, parameters: { endpoint: 'writeBack', respond: 'immediately' } };
		const [failedKey, key] = newKeys('immediately', 2);
		// Answered before the run failed: the event counts as delivered.
		expect(parseAnswer(await deliver(immediate, signed(failing(failedKey))))).toEqual(
			answerOf('processed', failedKey),
		);
		expect(await statusOf(signed(writeBack(key)), immediate)).toBe('processed');
		expect(await statusOf(signed(writeBack(key)), immediate)).toBe('duplicate');
	});

	it('keeps no record for calls to the test URL', async () => {
		const [key] = newKeys('test-url', 1);
		await deliver(flow, { ...signed(writeBack(key)), mode: 'manual' });
		const again = await deliver(flow, { ...signed(writeBack(key)), mode: 'manual' });
		expect(parseAnswer(again)).toEqual(answerOf('processed', key));
		expect(processedKeys()).toEqual([key, key]);
		expect(statesOf(key)).toEqual([]);
	});

	it('answers 401 to an unsigned delivery; no node runs but the trigger, which fails with the report', async () => {
		resetTriggerState();
		const before = flow.database.sink.processed.length;
		const result = await deliver(flow, { rawBody: Buffer.from('{}'), headers: {} });
		expect(result.status).toBe(401);
		expect(flow.database.sink.processed).toHaveLength(before);
		const run = flow.database.executions.get(result.executionId ?? '');
		expect(Object.keys(run?.resultData.runData ?? {})).toEqual(['Contact Center Trigger']);
		expect(run?.resultData.error?.message).toMatch(/^Calls without a valid signature/);
	});
});

describe('write back in one n8n process: concurrent and interrupted deliveries', () => {
	it('answers concurrent duplicates "in progress" (409) while the first delivery runs; exactly one runs', async () => {
		const [key] = newKeys('concurrent', 1);
		const results = await Promise.all(
			Array.from({ length: 6 }, async () => await deliver(flow, signed(writeBack(key)))),
		);
		const statuses = results.map((result) => parseAnswer(result)?.status);
		expect(statuses.filter((status) => status === 'processed')).toHaveLength(1);
		expect(
			statuses.every((status) => ['processed', 'running', 'duplicate'].includes(String(status))),
		).toBe(true);
		for (const result of results) {
			expect(result.status).toBe(parseAnswer(result)?.status === 'running' ? 409 : 200);
		}
		expect(processedKeys()).toEqual([key]);
		expect(await statusOf(signed(writeBack(key)))).toBe('duplicate');
	});

	it('runs one of several concurrent redeliveries after a failed run', async () => {
		const [key] = newKeys('redeliveries', 1);
		await deliver(flow, signed(failing(key)));
		const statuses = await Promise.all(
			Array.from({ length: 4 }, async () => await statusOf(signed(writeBack(key)))),
		);
		expect(statuses.filter((status) => status === 'processed')).toHaveLength(1);
		expect(processedKeys()).toEqual([key]);
	});

	it('never answers 2xx for a run whose n8n process died; the redelivery runs again after the claim window', async () => {
		const [key] = newKeys('crash', 1);
		const start = Date.now();
		const clock = jest.spyOn(Date, 'now').mockReturnValue(start);
		const crashed = await deliver(flow, { ...signed(writeBack(key)), crash: true });
		expect(crashed.status).toBeUndefined();

		// A redelivery while the key is held cannot tell a dead run from a slow one: not 2xx.
		const soon = await deliver(flow, signed(writeBack(key)));
		expect(soon.status).toBe(409);

		// The service retries after 1 hour at the earliest; by then the hold has lapsed.
		clock.mockReturnValue(start + DEFAULT_RECORD_WINDOWS.claimMs + 60_000);
		const later = await deliver(flow, signed(writeBack(key)));
		expect(parseAnswer(later)).toEqual(answerOf('processed', key));
		// The run that died had reached the sink: its effect happened, and happens again.
		expect(processedKeys()).toEqual([key, key]);
		expect(await statusOf(signed(writeBack(key)))).toBe('duplicate');
	});
});
