/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- test code: the garbage collector and timers, run in jest, never inside n8n */
/**
 * Record writes that wait for n8n's API (once/waitingWrites.ts), through n8n-core's execution
 * context against the data table API stand-in: what a queue keeps of the run that wrote, how it
 * tells a write n8n's API will never take from one it may take later, and how it says what it
 * gave up on.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

import { sleep, type IExecuteFunctions, type Logger } from 'n8n-workflow';

import { once, type Work } from '../../nodes/shared/once';
import { resetOnceLimits, setOnceLimits, setRecordTiming } from '../harness/processState';
import {
	RECORD_TABLE,
	recordCredentialsWith,
	recordRows,
	runWithRecord,
	ticketOf,
	useRecordApi,
	waitFor,
} from './recordFaults';

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
afterEach(() => {
	jest.restoreAllMocks();
	resetOnceLimits();
});

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
		expect(once.countDoneOnlyInMemory(scope)).toBe(1);
		expect(await isCollected(run!)).toBe(true);
		expect(once.countDoneOnlyInMemory(scope)).toBe(1);
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

describe("a queue of writes waiting for n8n's API", () => {
	/**
	 * Claims each key in the shared table, then finishes each while n8n's API refuses writes. With a
	 * user of its own: a table and a queue no other test shares.
	 */
	async function finishWhileWritesRefused(scope: string, details: Record<string, string>) {
		const { apiKey } = fixture.api.addUser(scope);
		await runWithRecord(recordCredentialsWith(fixture.api, apiKey), async (context) => {
			const tickets = [];
			for (const key of Object.keys(details)) {
				tickets.push(ticketOf(await once.claim(context, { scope, key }, 'send')));
			}
			fixture.api.setFaults(({ isWrite }) => (isWrite ? { status: 503 } : undefined));
			for (const ticket of tickets) {
				await once.finish(context, ticket, details[ticket.work.key], 'keepTrying');
			}
		});
		return apiKey;
	}

	/** The done rows in the table of a user's key. */
	const doneRowsWith = (apiKey: string) =>
		recordRows(fixture.api, apiKey).filter((row) => row.state === 'done');

	/**
	 * The queue settled: `done` done rows and `running` claim rows left in the table of a user's key.
	 * A send's claim row is deleted after its done row is written: a test that ends before leaves
	 * the delete to fail against the next test's faults, and retried after the file's API is gone.
	 */
	const settledWith = (apiKey: string, done: number, running: number) => {
		const rows = recordRows(fixture.api, apiKey);
		const count = (state: string) => rows.filter((row) => row.state === state).length;
		return count('done') === done && count('running') === running;
	};

	test('gives up on a write n8n refuses for good (a 400), says at ERROR what that means, and goes on with the next', async () => {
		setRecordTiming({ retryBudgetMs: 50, pendingRetryMs: 100 });
		const scope = newScope();
		const errors = logged('error');
		// Without a detail the claim row turns done (an update); with one, a done row is inserted.
		const apiKey = await finishWhileWritesRefused(scope, { refused: '', taken: 'sent' });
		expect(once.countDoneOnlyInMemory(scope)).toBe(2);
		fixture.api.setFaults(({ operation }) =>
			operation === 'updateRows' ? { status: 400, body: { message: 'Bad request' } } : undefined,
		);
		await waitFor(() => doneRowsWith(apiKey).length === 1);
		expect(doneRowsWith(apiKey)[0].recordKey).toBe(`${scope}|taken`);
		expect(errors).toEqual([
			expect.stringMatching(
				new RegExp(
					`gave up on the done row of ${scope}\\|refused: n8n's API refused it \\(.*400.*\\), which another try would not change; this process no longer counts its key as done: a redelivery of this key will run again`,
				),
			),
		]);
		// The row is in the table a moment before its write's answer reaches the queue.
		await waitFor(() => once.countDoneOnlyInMemory(scope) === 0);
	});

	test('keeps a write whose key n8n refuses (401): it is written once a run reads the new key pasted into the credential', async () => {
		setRecordTiming({ retryBudgetMs: 50, pendingRetryMs: 100 });
		const scope = newScope();
		const errors = logged('error');
		const user = fixture.api.addUser(scope);
		const credentials = recordCredentialsWith(fixture.api, user.apiKey);
		await runWithRecord(credentials, async (context) => {
			const ticket = ticketOf(await once.claim(context, { scope, key: 'event-1' }, 'send'));
			fixture.api.revokeKey(user.apiKey);
			await once.finish(context, ticket, 'sent', 'keepTrying');
		});
		// Rounds at 100, 200 and 400 ms: refused each time, and kept.
		await sleep(800);
		expect(once.countDoneOnlyInMemory(scope)).toBe(1);
		expect(errors).toEqual([]);
		const newKey = fixture.api.addKey(user.userId);
		credentials.set('contactCenterRecordApi', {
			baseUrl: fixture.api.baseUrl,
			apiKey: newKey,
			dataTableName: RECORD_TABLE,
		});
		// A run that reads the credential afresh (its cached key refused) teaches the process the new key.
		await runWithRecord(credentials, async (context) => {
			await once.check(context, { scope, key: 'another' });
		});
		await waitFor(() => doneRowsWith(newKey).length === 1);
		// The row is in the table a moment before its write's answer reaches the queue.
		await waitFor(() => once.countDoneOnlyInMemory(scope) === 0);
	});

	test('says so again at WARN while its writes keep failing, at most every warnEveryMs, with how many wait', async () => {
		setRecordTiming({ retryBudgetMs: 20, pendingRetryMs: 50 });
		setOnceLimits({ warnEveryMs: 300 });
		const scope = newScope();
		const warnings = logged('warn');
		const startedAt = Date.now();
		const apiKey = await finishWhileWritesRefused(scope, { first: 'a', second: 'b' });
		const stillWaiting = () =>
			warnings.filter((line) =>
				line.includes("wait for n8n's API, which still does not take them"),
			);
		await waitFor(() => stillWaiting().length >= 3, 5_000);
		const elapsed = Date.now() - startedAt;
		expect(stillWaiting().length).toBeLessThanOrEqual(Math.floor(elapsed / 300) + 1);
		// The last time, both writes waited (the first round may come before the second joined).
		expect(stillWaiting().at(-1)).toMatch(/: 2 record write\(s\) wait for n8n's API/);
		fixture.api.setFaults(undefined);
		await waitFor(() => settledWith(apiKey, 2, 0));
	});

	test('full (maxWaitingWrites): the write turned away is logged at ERROR, saying its key no longer counts as done', async () => {
		setRecordTiming({ retryBudgetMs: 50, pendingRetryMs: 100 });
		setOnceLimits({ maxWaitingWrites: 2 });
		const scope = newScope();
		const errors = logged('error');
		const apiKey = await finishWhileWritesRefused(scope, { a: 'x', b: 'x', c: 'x' });
		expect(errors).toEqual([
			`Contact Center record: gave up on the done row of ${scope}|c: 2 record writes already wait for n8n's API; this process no longer counts its key as done: a redelivery of this key will run again`,
		]);
		expect(once.countDoneOnlyInMemory(scope)).toBe(2);
		fixture.api.setFaults(undefined);
		// The claim row of the write turned away stays until the claim window has passed.
		await waitFor(() => settledWith(apiKey, 2, 1));
	});

	test('keys counted as done only in memory are bounded (maxDoneOnlyInMemory): the one past the bound is logged at ERROR and its row still written', async () => {
		setRecordTiming({ retryBudgetMs: 50, pendingRetryMs: 100 });
		setOnceLimits({ maxDoneOnlyInMemory: 2 });
		const scope = newScope();
		const errors = logged('error');
		const apiKey = await finishWhileWritesRefused(scope, { a: 'x', b: 'x', c: 'x' });
		expect(errors).toEqual([
			`Contact Center record: ${scope}|c is done but could not be recorded yet, and 2 keys already count as done only in this process's memory: it does not count this one, so a redelivery of this key will run again until its row is written`,
		]);
		expect(once.countDoneOnlyInMemory(scope)).toBe(2);
		fixture.api.setFaults(undefined);
		await waitFor(() => settledWith(apiKey, 3, 0));
	});
});
