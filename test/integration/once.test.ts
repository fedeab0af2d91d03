/**
 * Every verb of the `once` module in seconds: both strategies (claim rows in the shared table,
 * holds and the index in one process) against the data table API stand-in, through n8n-core's
 * execution context. A write back uses the one-process strategy once this process learnt that its
 * runs stay where their calls were received; a send always claims a row.
 */
import type { IExecuteFunctions, IHookFunctions, INodeExecutionData } from 'n8n-workflow';

import {
	DEFAULT_RECORD_WINDOWS,
	RECORD_COLUMNS,
	once,
	type Ticket,
	type Work,
} from '../../nodes/shared/once';
import { setRecordTiming } from '../harness/processState';
import {
	RECORD_TABLE,
	recordCredentialsWith,
	recordRows,
	runWithRecord,
	ticketOf,
	useRecordApi,
	waitFor,
} from './recordFaults';

const fixture = useRecordApi();

const withOnce = async (verbs: (context: IExecuteFunctions) => Promise<void>) =>
	await runWithRecord(fixture.credentials, verbs);

let scopeCount = 0;
/** Work in a scope of its own: no test sees another's holds, rows or index. */
const newWork = (key = 'event-1'): Work => ({ scope: `once-test-${++scopeCount}`, key });

const rowsOf = (work: Work) =>
	recordRows(fixture.api, fixture.apiKey).filter(
		(row) => row.recordKey === `${work.scope}|${work.key}`,
	);
const statesOf = (work: Work) => rowsOf(work).map((row) => row.state);

/** The data table calls made while `work` runs, by operation. */
async function callsDuring(work: () => Promise<unknown>): Promise<string[]> {
	const from = fixture.api.calls.length;
	await work();
	return fixture.api.calls.slice(from).map((call) => call.operation);
}

/** A production run's item as this process's webhook call hands it over. */
function handedItem(work: Work, ticket: Ticket | undefined): INodeExecutionData {
	const item: INodeExecutionData = { json: { idempotencyKey: work.key } };
	once.handToRun(item, ticket);
	return item;
}

describe('once before this process knows where its runs stay', () => {
	it('a write back claims a row, as a send does', async () => {
		const work = newWork();
		await withOnce(async (context) => {
			const ticket = ticketOf(await once.claim(context, work, 'writeBack'));
			expect(ticket).toMatchObject({ work, claimId: expect.any(Number) });
			await once.release(context, ticket);
		});
	});

	it('a run whose item is a copy of the handed one (what a queue-mode worker gets) works under the claim and does not teach it that runs stay here', async () => {
		const work = newWork();
		await withOnce(async (context) => {
			const ticket = ticketOf(await once.claim(context, work, 'writeBack'));
			const copy = JSON.parse(JSON.stringify(handedItem(work, ticket))) as INodeExecutionData;
			expect(await once.claimInRun(context, work, copy)).toMatchObject({
				ticket: { work, claimId: ticket.claimId },
			});
			await once.finish(context, ticket, '', 'throw');
			const next = ticketOf(await once.claim(context, newWork(), 'writeBack'));
			expect(next.claimId).toEqual(expect.any(Number));
			await once.release(context, next);
		});
	});
});

// A send claims a row even where write backs use the one-process strategy: it runs second here.
describe.each([
	['one process (a write back once its runs were found to stay here)', 'writeBack' as const],
	['the shared table (a send)', 'send' as const],
])('once in %s', (_strategy, purpose) => {
	const sharedTable = purpose === 'send';

	beforeAll(async () => {
		// What a production run that finds the item its own webhook call made teaches the process.
		const work = newWork();
		const item = handedItem(work, undefined);
		await runWithRecord(fixture.credentials, async (context) => {
			expect(await once.claimInRun(context, work, item)).toMatchObject({ ticket: { work } });
			const probe = ticketOf(await once.claim(context, newWork(), 'writeBack'));
			expect(probe.claimId).toBeUndefined();
			await once.release(context, probe);
		});
	});

	it('begin on a free key: claimed, with a claim row (shared table) or a hold and no row (one process)', async () => {
		const work = newWork();
		await withOnce(async (context) => {
			const ticket = ticketOf(await once.claim(context, work, purpose));
			expect(ticket).toMatchObject({ work });
			expect(ticket.claimId).toEqual(sharedTable ? expect.any(Number) : undefined);
			expect(statesOf(work)).toEqual(sharedTable ? ['running'] : []);
			await once.release(context, ticket);
		});
	});

	it('begin while another caller has the key: running, and nothing written for it', async () => {
		const work = newWork();
		await withOnce(async (context) => {
			const ticket = ticketOf(await once.claim(context, work, purpose));
			const rowsBefore = rowsOf(work);
			expect(await once.claim(context, work, purpose)).toMatchObject({ state: 'running' });
			expect(rowsOf(work)).toEqual(rowsBefore);
			await once.release(context, ticket);
		});
	});

	it("finish 'throw' writes the done row; begin on the done key answers done with its detail", async () => {
		const work = newWork();
		await withOnce(async (context) => {
			const ticket = ticketOf(await once.claim(context, work, purpose));
			await once.finish(context, ticket, 'message-7', 'throw');
			const [row] = rowsOf(work);
			expect(rowsOf(work)).toHaveLength(1);
			expect(row).toMatchObject({ state: 'done', detail: 'message-7' });
			// A done row with its own detail replaced the claim's row (shared table), or (one process)
			// a done row inserted.
			if (sharedTable) expect(row.id).toBeGreaterThan(ticket.claimId ?? Infinity);
			expect(await once.claim(context, work, purpose)).toEqual({
				state: 'done',
				at: row.stateAt,
				detail: 'message-7',
			});
		});
	});

	it("finish 'keepTrying' while n8n's API answers 500: done at once in this process, its row written once the API takes it", async () => {
		setRecordTiming({ retryBudgetMs: 300, pendingRetryMs: 100 });
		const work = newWork();
		await withOnce(async (context) => {
			const ticket = ticketOf(await once.claim(context, work, purpose));
			fixture.api.setFaults(() => ({ status: 500 }));
			await once.finish(context, ticket, 'sent', 'keepTrying');
			const done = { state: 'done', at: expect.any(Number), detail: 'sent' };
			const calls = await callsDuring(async () => {
				expect(await once.claim(context, work, purpose)).toEqual(done);
				expect(await once.check(context, work)).toEqual(done);
			});
			// Answered from this process's memory: no call to the API that is down.
			expect(calls).toEqual([]);
			expect(statesOf(work)).toEqual(sharedTable ? ['running'] : []);
		});
		fixture.api.setFaults(undefined);
		await waitFor(() => statesOf(work).join() === 'done');
	});

	it("finish 'throw' while n8n's API answers 500 throws, and the key may be claimed again", async () => {
		setRecordTiming({ retryBudgetMs: 300 });
		const work = newWork();
		await withOnce(async (context) => {
			const ticket = ticketOf(await once.claim(context, work, purpose));
			fixture.api.setFaults(({ isWrite }) => (isWrite ? { status: 500 } : undefined));
			await expect(once.finish(context, ticket, '', 'throw')).rejects.toThrow(
				"n8n's API did not answer",
			);
			fixture.api.setFaults(undefined);
			// One process: the hold was released. Shared table: the claim's row is this process's own.
			if (!sharedTable) ticketOf(await once.claim(context, work, purpose));
			else await once.release(context, ticket);
		});
	});

	it('release: the claim row deleted (shared table) or the hold released (one process); the next claim takes the key', async () => {
		const work = newWork();
		await withOnce(async (context) => {
			const ticket = ticketOf(await once.claim(context, work, purpose));
			await once.release(context, ticket);
			expect(statesOf(work)).toEqual([]);
			const again = ticketOf(await once.claim(context, work, purpose));
			await once.release(context, again);
		});
	});

	it('check reads only: free, running with its start, done', async () => {
		const work = newWork();
		await withOnce(async (context) => {
			const calls = await callsDuring(async () => {
				expect(await once.check(context, work)).toEqual({ state: 'free' });
			});
			expect(
				calls.every((operation) => operation === 'getRows' || operation === 'listTables'),
			).toBe(true);
			const ticket = ticketOf(await once.claim(context, work, purpose));
			// A hold lives in this process's memory only: the record knows of claim rows.
			expect(await once.check(context, work)).toEqual(
				sharedTable ? { state: 'running', since: expect.any(Number) } : { state: 'free' },
			);
			await once.finish(context, ticket, 'x', 'throw');
			expect(await once.check(context, work)).toMatchObject({ state: 'done', detail: 'x' });
		});
	});

	it('handToRun and claimInRun: the run works under the ticket its webhook call took, which the workflow never sees', async () => {
		const work = newWork();
		await withOnce(async (context) => {
			const ticket = ticketOf(await once.claim(context, work, purpose));
			const item = handedItem(work, ticket);
			expect(once.withoutTicket([item])).toEqual([{ json: { idempotencyKey: work.key } }]);
			expect(await once.claimInRun(context, work, item)).toEqual({ ticket });
			await once.finish(context, ticket, '', 'throw');
			expect(statesOf(work)).toEqual(['done']);
		});
	});
});

describe('once.claimInRun for a run n8n started again after a restart (no ticket on its item)', () => {
	it('skips the run when a delivery finished the work meanwhile', async () => {
		const work = newWork();
		await withOnce(async (context) => {
			await once.finish(context, ticketOf(await once.claim(context, work, 'send')), '', 'throw');
			const restarted = { json: { idempotencyKey: work.key } };
			expect(await once.claimInRun(context, work, restarted)).toEqual({ skip: 'done' });
		});
	});

	it('takes a hold otherwise: a second such run meanwhile skips, and finishing writes the done row', async () => {
		const work = newWork();
		await withOnce(async (context) => {
			const restarted = { json: { idempotencyKey: work.key } };
			const taken = await once.claimInRun(context, work, restarted);
			expect(taken).toMatchObject({ ticket: { work } });
			expect(await once.claimInRun(context, work, { json: { ...restarted.json } })).toEqual({
				skip: 'running',
			});
			if ('ticket' in taken) await once.finish(context, taken.ticket, '', 'throw');
			expect(statesOf(work)).toEqual(['done']);
			expect(await once.claimInRun(context, work, { json: { ...restarted.json } })).toEqual({
				skip: 'done',
			});
		});
	});
});

describe("the one-process strategy's index of a scope", () => {
	/** Claims and releases fresh keys until one is answered without a call (the index loaded). */
	async function untilIndexLoaded(context: IExecuteFunctions, scope: string) {
		const deadline = Date.now() + 5000;
		for (let n = 0; Date.now() < deadline; n++) {
			const work = { scope, key: `probe-${n}` };
			let ticket: Ticket | undefined;
			const calls = await callsDuring(async () => {
				ticket = ticketOf(await once.claim(context, work, 'writeBack'));
			});
			await once.release(context, ticket!);
			if (calls.length === 0) return;
		}
		throw new Error(`The index of ${scope} did not load`);
	}

	it('answers a key it does not know as free without a call, and learns of the done row its finish wrote without being told', async () => {
		const work = newWork();
		await withOnce(async (context) => {
			await untilIndexLoaded(context, work.scope);
			const ticket = ticketOf(await once.claim(context, work, 'writeBack'));
			await once.finish(context, ticket, 'from-index', 'throw');
			// Had the index not heard of the insert, it would answer this key free without a call.
			expect(await once.claim(context, work, 'writeBack')).toMatchObject({
				state: 'done',
				detail: 'from-index',
			});
		});
	});

	it('sees a row written by hand only at its catch-up a minute later, or at once after the trigger is deactivated', async () => {
		const work = newWork();
		await withOnce(async (context) => {
			await untilIndexLoaded(context, work.scope);
			fixture.api.addRows(
				RECORD_TABLE,
				[
					{
						scope: work.scope,
						recordKey: `${work.scope}|${work.key}`,
						state: 'done',
						stateAt: Date.now(),
						detail: 'by hand',
					},
				],
				fixture.apiKey,
			);
			// The index was not told: it answers the key free, without reading the record.
			const calls = await callsDuring(async () => {
				await once.release(context, ticketOf(await once.claim(context, work, 'writeBack')));
			});
			expect(calls).toEqual([]);
			once.deactivate(work.scope);
			expect(await once.claim(context, work, 'writeBack')).toMatchObject({
				state: 'done',
				detail: 'by hand',
			});
		});
	});
});

describe('once in the shared table: a claim left by a process that stopped', () => {
	it('is taken over after the claim window, saying when it was left', async () => {
		const work = newWork();
		const leftAt = Date.now() - DEFAULT_RECORD_WINDOWS.claimMs - 60_000;
		await withOnce(async (context) => {
			await once.check(context, work);
			fixture.api.addRows(
				RECORD_TABLE,
				[
					{
						scope: work.scope,
						recordKey: `${work.scope}|${work.key}`,
						state: 'running',
						stateAt: leftAt,
						detail: 'claim:left',
					},
				],
				fixture.apiKey,
			);
			const claimed = await once.claim(context, work, 'send');
			expect(claimed).toMatchObject({ state: 'claimed', lapsedClaimAt: leftAt });
			await once.release(context, ticketOf(claimed));
		});
	});
});

/** The once module as another n8n process has it: memory of its own (holds, caches), the same record. */
function onceInAnotherProcess(): typeof once {
	let other: typeof once | undefined;
	jest.isolateModules(() => {
		// Only require() loads a module into jest's isolated registry synchronously.
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		other = (require('../../nodes/shared/once') as { once: typeof once }).once;
	});
	return other!;
}

describe('once in the shared table: two processes claiming one key at the same moment', () => {
	it('one of them claims it when both inserts commit at once', async () => {
		const { scope } = newWork();
		const works = Array.from({ length: 8 }, (_, i) => ({ scope, key: `together-${i}` }));
		const other = onceInAnotherProcess();
		await withOnce(async (context) => {
			const claims = await Promise.all(
				works.flatMap((work) => [
					once.claim(context, work, 'send'),
					other.claim(context, work, 'send'),
				]),
			);
			for (const [i, work] of works.entries()) {
				const states = [claims[2 * i].state, claims[2 * i + 1].state];
				expect(states.sort()).toEqual(['claimed', 'running']);
				expect(statesOf(work)).toEqual(['running']);
			}
		});
	});

	it('at most one claims it when the insert that took the lower id commits 500 ms late', async () => {
		const work = newWork();
		const other = onceInAnotherProcess();
		await withOnce(async (context) => {
			// Both processes know the table already: each claim is an insert and a read.
			await once.check(context, work);
			await other.check(context, work);
			let lateInsertArrived = false;
			fixture.api.setFaults(({ operation }) => {
				if (operation !== 'insertRows' || lateInsertArrived) return undefined;
				lateInsertArrived = true;
				return { commitAfterMs: 500 };
			});
			const warned: string[] = [];
			jest
				.spyOn(context.logger, 'warn')
				.mockImplementation((message: string) => void warned.push(message));
			const late = once.claim(context, work, 'send');
			await waitFor(() => lateInsertArrived);
			const prompt = other.claim(context, work, 'send');
			const claims = await Promise.all([late, prompt]);
			expect(claims.map((claim) => claim.state)).toEqual(['running', 'claimed']);
			// The late claim cannot learn whether the younger one holds the key: n8n's log says so.
			expect(warned.filter((line) => line.includes('gave up after 10 s'))).toHaveLength(1);
			jest.restoreAllMocks();
			// The late claim's row, the older one, was deleted: only the holder's row is left.
			const [holderRow] = rowsOf(work);
			expect(rowsOf(work)).toHaveLength(1);
			expect(ticketOf(claims[1]).claimId).toBe(holderRow.id);
		});
		// The late claim reads again for up to 10 s (losers' deletes may be that slow) before it
		// gives up beside the younger holder.
	}, 30_000);
});

describe('once in the shared table: six deliveries of one key at once, with slow deletes', () => {
	it("one of them claims it when n8n answers each losing claim's delete 2.5 s late", async () => {
		const work = newWork();
		const other = onceInAnotherProcess();
		await withOnce(async (context) => {
			await once.check(context, work);
			await other.check(context, work);
			// Every insert lands before any read (the first six reads answered 300 ms late), so each
			// claim sees all six rows; the losers delete theirs as they give up, and n8n under load
			// answers those deletes late.
			let slowReads = 6;
			fixture.api.setFaults(({ operation }) => {
				if (operation === 'deleteRows') return { delayMs: 2500 };
				if (operation === 'getRows' && slowReads > 0) {
					slowReads--;
					return { delayMs: 300 };
				}
				return undefined;
			});
			const claims = await Promise.all(
				Array.from(
					{ length: 6 },
					async (_, i) => await (i % 2 === 0 ? once : other).claim(context, work, 'writeBack'),
				),
			);
			fixture.api.setFaults(() => undefined);
			const states = claims.map((claim) => claim.state).sort();
			expect(states).toEqual(['claimed', 'running', 'running', 'running', 'running', 'running']);
			const holder = claims.find((claim) => claim.state === 'claimed');
			expect(rowsOf(work).map((row) => row.id)).toEqual([ticketOf(holder!).claimId]);
		});
	}, 30_000);
});

describe('once.activate', () => {
	const credentialsOf = (apiKey: string) => recordCredentialsWith(fixture.api, apiKey);

	it("creates the record's data table with its columns when it does not exist yet", async () => {
		const { apiKey } = fixture.api.addUser('new-user');
		expect(fixture.api.tables(apiKey)).toEqual([]);
		await runWithRecord(credentialsOf(apiKey), async (context) => {
			await once.activate(context as unknown as IHookFunctions, 'writeBack:new-trigger');
		});
		const [table] = fixture.api.tables(apiKey);
		expect(table.name).toBe(RECORD_TABLE);
		expect(table.columns).toEqual(RECORD_COLUMNS.map(({ name, type }) => ({ name, type })));
	});

	it('throws a node error naming the credential when the key was revoked', async () => {
		const { apiKey } = fixture.api.addUser('revoked-user');
		fixture.api.revokeKey(apiKey);
		await runWithRecord(credentialsOf(apiKey), async (context) => {
			const error = await once
				.activate(context as unknown as IHookFunctions, 'writeBack:revoked')
				.then(
					() => undefined,
					(thrown: Error & { description?: string }) => thrown,
				);
			expect(error?.message).toContain('401');
			expect(error?.description).toContain('Contact Center Record API');
		});
	});
});

describe('once: reads of many keys together', () => {
	it('go out in URLs n8n takes: 100 long keys checked together are all answered (Node refuses request headers over 16 KB with 431)', async () => {
		const { scope } = newWork();
		const works = Array.from({ length: 100 }, (_, i) => ({
			scope,
			key: `${'k'.repeat(200)}-${i}`,
		}));
		await withOnce(async (context) => {
			const found = await Promise.all(works.map(async (work) => await once.check(context, work)));
			expect(found.map((result) => result.state)).toEqual(works.map(() => 'free'));
		});
	});
});
