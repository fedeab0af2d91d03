/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- test code: the garbage collector and timers, run in jest, never inside n8n */
/**
 * Record writes that wait for n8n's API (once/waitingWrites.ts), through n8n-core's execution
 * context against the data table API stand-in: what a queue keeps of the run that wrote.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

import type { IExecuteFunctions, Logger } from 'n8n-workflow';

import { once, type Work } from '../../nodes/shared/once';
import { setRecordTiming } from '../harness/processState';
import { recordRows, runWithRecord, ticketOf, useRecordApi, waitFor } from './recordFaults';

setFlagsFromString('--expose_gc');
const collectGarbage = runInNewContext('gc') as () => void;

const fixture = useRecordApi();

// A load held back 3 s, rounds of retries and the garbage collector take longer than jest's 5 s.
jest.setTimeout(15_000);

let logger: Logger;
beforeAll(async () => {
	// n8n's logger, one for the process: every run's context and the background's log to it.
	await runWithRecord(fixture.credentials, async (context) => {
		logger = context.logger;
	});
});
afterEach(() => jest.restoreAllMocks());

/** What the process logs at `level` from now on, one message per line. */
function logged(level: 'warn' | 'error' | 'info') {
	const lines: string[] = [];
	jest.spyOn(logger, level).mockImplementation((message: string) => void lines.push(message));
	return lines;
}

let scopes = 0;
const newScope = () => `waiting-${++scopes}`;

const withRecord = async (verbs: (context: IExecuteFunctions) => Promise<void>) =>
	await runWithRecord(fixture.credentials, verbs);

/** Whether the garbage collector can free the object (nothing but the WeakRef holds it). */
async function isCollected(ref: WeakRef<object>): Promise<boolean> {
	for (let round = 0; round < 10 && ref.deref() !== undefined; round++) {
		// A WeakRef holds its object until the current job ends; so may a finished call's promise.
		await new Promise((resolve) => setImmediate(resolve));
		collectGarbage();
	}
	return ref.deref() === undefined;
}

const doneRowsOf = (scope: string) =>
	recordRows(fixture.api, fixture.apiKey).filter(
		(row) => row.scope === scope && row.state === 'done',
	);

describe('a run whose record writes wait for the API is not kept alive by them', () => {
	test('its done row waits (shared table): the run context is freed while the write waits, and the row is written later', async () => {
		setRecordTiming({ retryBudgetMs: 50, pendingRetryMs: 100 });
		const scope = newScope();
		const work: Work = { scope, key: 'event-1' };
		let run: WeakRef<object> | undefined;
		await withRecord(async (context) => {
			run = new WeakRef(context);
			const ticket = ticketOf(await once.claim(context, work, 'send'));
			fixture.api.setFaults(({ isWrite }) => (isWrite ? { status: 503 } : undefined));
			await once.finish(context, ticket, 'sent', 'keepTrying');
		});
		expect(once.keptOnlyInMemory(scope)).toBe(1);
		expect(await isCollected(run!)).toBe(true);
		expect(once.keptOnlyInMemory(scope)).toBe(1);
		fixture.api.setFaults(undefined);
		await waitFor(() => doneRowsOf(scope).length === 1);
	});

	test("a claim row's delete waits: the run context is freed while the delete waits, and the row is deleted later", async () => {
		setRecordTiming({ retryBudgetMs: 50, pendingRetryMs: 100 });
		const scope = newScope();
		let run: WeakRef<object> | undefined;
		await withRecord(async (context) => {
			run = new WeakRef(context);
			const ticket = ticketOf(await once.claim(context, { scope, key: 'event-1' }, 'send'));
			fixture.api.setFaults(({ operation }) =>
				operation === 'deleteRows' ? { status: 503 } : undefined,
			);
			await once.release(context, ticket);
		});
		const claimRows = () =>
			recordRows(fixture.api, fixture.apiKey).filter((row) => row.scope === scope);
		expect(claimRows()).toHaveLength(1);
		expect(await isCollected(run!)).toBe(true);
		fixture.api.setFaults(undefined);
		await waitFor(() => claimRows().length === 0);
	});

	test("a scope's index loading in the background: the context of the call that started it is freed while it loads", async () => {
		const scope = newScope();
		// What a production run that finds its webhook call's item teaches the process: write backs
		// take the one-process strategy, whose check starts loading the scope's index.
		await withRecord(async (context) => {
			const item = { json: { idempotencyKey: 'probe' } };
			once.handToRun(item, undefined);
			await once.claimInRun(context, { scope: newScope(), key: 'probe' }, item);
		});
		// The index reads a scope's rows (a filter on its scope); a claim reads its key's rows.
		let slowIndex = true;
		fixture.api.setFaults(({ operation, query }) =>
			slowIndex && operation === 'getRows' && query.filter?.includes('"columnName":"scope"')
				? { delayMs: 3000 }
				: undefined,
		);
		let run: WeakRef<object> | undefined;
		const loaded = logged('info');
		await withRecord(async (context) => {
			run = new WeakRef(context);
			const claimed = await once.claim(context, { scope, key: 'event-1' }, 'writeBack');
			await once.release(context, ticketOf(claimed));
		});
		expect(await isCollected(run!)).toBe(true);
		expect(loaded.filter((line) => line.includes(`keys of ${scope} loaded`))).toEqual([]);
		slowIndex = false;
		await waitFor(() => loaded.some((line) => line.includes(`keys of ${scope} loaded`)));
	});
});
