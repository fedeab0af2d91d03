/**
 * The once module's verbs through n8n-core's execution context while n8n's public API stumbles, in
 * the data table API stand-in: what one process decides when a write it needs does not go through.
 */
import { sleep, type IExecuteFunctions } from 'n8n-workflow';

import { once, type Ticket } from '../../nodes/shared/once';
import { api, targetOf, warnIfStorageNearlyFull } from '../../nodes/shared/recordApi';
import { captureLogs } from '../harness';
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

const withRecord = async (verbs: (context: IExecuteFunctions) => Promise<void>) =>
	await runWithRecord(fixture.credentials, verbs);

/** Claims in the shared table, as a send does: every claim is a row. */
const claim = async (context: IExecuteFunctions, scope: string, key: string) =>
	await once.claim(context, { scope, key }, 'send');

/** The record's `running` rows of a record key. */
const runningRowsOf = (recordKey: string) =>
	recordRows(fixture.api, fixture.apiKey).filter(
		(row) => row.recordKey === recordKey && row.state === 'running',
	);

describe('the record when n8n API writes do not go through', () => {
	test('a claim released while its delete is refused: this process may claim the key again at once, the row is deleted once the API takes it', async () => {
		setRecordTiming({ retryBudgetMs: 500, pendingRetryMs: 100 });
		const results: unknown[] = [];
		await withRecord(async (context) => {
			const first = await claim(context, 'release', 'message-1');
			results.push(first.state);
			fixture.api.setFaults(({ operation }) =>
				operation === 'deleteRows' ? { status: 503 } : undefined,
			);
			await once.release(context, ticketOf(first));
			fixture.api.setFaults(({ operation }) =>
				operation === 'deleteRows' ? { status: 503 } : undefined,
			);
			results.push((await claim(context, 'release', 'message-1')).state);
		});
		expect(results).toEqual(['claimed', 'claimed']);
		const running = () => runningRowsOf('release|message-1');
		expect(running()).toHaveLength(2);
		fixture.api.setFaults(undefined);
		await waitFor(() => running().length === 1);
	});

	test('a claim that fails after its insert while its rows cannot be deleted either: this process ignores its row at once and deletes it once the API takes it', async () => {
		setRecordTiming({ retryBudgetMs: 400, pendingRetryMs: 100 });
		const results: unknown[] = [];
		await withRecord(async (context) => {
			fixture.api.setFaults(({ operation }) =>
				operation === 'getRows' || operation === 'deleteRows' ? { status: 500 } : undefined,
			);
			results.push(
				await claim(context, 'stuck', 'message-1').then(
					(claim) => claim.state,
					(error: Error) => error.message,
				),
			);
			fixture.api.setFaults(({ operation }) =>
				operation === 'deleteRows' ? { status: 500 } : undefined,
			);
			results.push((await claim(context, 'stuck', 'message-1')).state);
		});
		expect(results).toEqual([expect.stringContaining("n8n's API did not answer"), 'claimed']);
		const running = () => runningRowsOf('stuck|message-1');
		expect(running()).toHaveLength(2);
		fixture.api.setFaults(undefined);
		await waitFor(() => running().length === 1);
	});

	test('a claim that finds the key held while its own row cannot be deleted: it answers running, this process ignores its row at once and deletes it once the API takes it', async () => {
		setRecordTiming({ retryBudgetMs: 400, pendingRetryMs: 100 });
		const results: unknown[] = [];
		await withRecord(async (context) => {
			results.push((await claim(context, 'held', 'message-1')).state);
			fixture.api.setFaults(({ operation }) =>
				operation === 'deleteRows' ? { status: 503 } : undefined,
			);
			results.push((await claim(context, 'held', 'message-1')).state);
			results.push((await once.check(context, { scope: 'held', key: 'message-1' })).state);
		});
		expect(results).toEqual(['claimed', 'running', 'running']);
		const running = () => runningRowsOf('held|message-1');
		expect(running()).toHaveLength(2);
		fixture.api.setFaults(undefined);
		await waitFor(() => running().length === 1);
	});

	test('work done whose done row is refused counts as done in this process at once, and its row is written once the API takes it', async () => {
		setRecordTiming({ retryBudgetMs: 500, pendingRetryMs: 100 });
		const results: unknown[] = [];
		await withRecord(async (context) => {
			const ticket = ticketOf(await claim(context, 'late', 'event-1'));
			fixture.api.setFaults(() => ({ status: 429, retryAfterSeconds: 1 }));
			await once.finish(context, ticket, 'sent', 'keepTrying');
			results.push(once.countDoneOnlyInMemory('late'));
			results.push(await once.check(context, { scope: 'late', key: 'event-1' }));
			results.push(await claim(context, 'late', 'event-1'));
		});
		expect(results).toEqual([
			1,
			{ state: 'done', at: expect.any(Number), detail: 'sent' },
			{ state: 'done', at: expect.any(Number), detail: 'sent' },
		]);
		fixture.api.setFaults(undefined);
		await waitFor(() =>
			recordRows(fixture.api, fixture.apiKey).some(
				(row) => row.recordKey === 'late|event-1' && row.state === 'done',
			),
		);
	});
});

describe("record writes waiting for n8n's API", () => {
	test('wait in one queue per table and key: while the API refuses them, 20 waiting done rows cost one try per round, not one per row; all are written once it takes them', async () => {
		setRecordTiming({ retryBudgetMs: 50, pendingRetryMs: 100 });
		const keys = Array.from({ length: 20 }, (_, i) => `queued-${i}`);
		await withRecord(async (context) => {
			const tickets = [];
			for (const key of keys) tickets.push(ticketOf(await claim(context, 'queued', key)));
			fixture.api.setFaults(() => ({ status: 503 }));
			for (const ticket of tickets) await once.finish(context, ticket, '', 'keepTrying');
			expect(once.countDoneOnlyInMemory('queued')).toBe(keys.length);
		});
		const from = fixture.api.calls.length;
		await sleep(1_000);
		const triedWhileRefused = fixture.api.calls.length - from;
		// Rounds at 100, 200 and 400 ms: a few tries in all, where a loop per row makes 20 a round.
		expect(triedWhileRefused).toBeLessThan(keys.length);
		fixture.api.setFaults(undefined);
		await waitFor(() => {
			const done = recordRows(fixture.api, fixture.apiKey).filter(
				(row) => String(row.recordKey).startsWith('queued|queued-') && row.state === 'done',
			);
			return done.length === keys.length;
		}, 10_000);
	}, 30_000);
	test('wait in one queue per key: writes made with a second key of the same user go out with that key while n8n still refuses the first', async () => {
		setRecordTiming({ retryBudgetMs: 50, pendingRetryMs: 100 });
		const user = fixture.api.addUser('two-keys');
		const keys = { a: user.apiKey, b: fixture.api.addKey(user.userId) };
		const credentials = {
			a: recordCredentialsWith(fixture.api, keys.a),
			b: recordCredentialsWith(fixture.api, keys.b),
		};
		const tickets: Partial<Record<'a' | 'b', Ticket>> = {};
		for (const which of ['a', 'b'] as const)
			await runWithRecord(credentials[which], async (context) => {
				tickets[which] = ticketOf(await claim(context, 'two-keys', which));
			});
		const refused = new Set([keys.a, keys.b]);
		fixture.api.setFaults((call) =>
			call.isWrite && refused.has(call.apiKey ?? '') ? { status: 503 } : undefined,
		);
		for (const which of ['a', 'b'] as const)
			await runWithRecord(credentials[which], async (context) => {
				await once.finish(context, tickets[which]!, '', 'keepTrying');
			});
		const doneKeys = () =>
			recordRows(fixture.api, keys.a)
				.filter((row) => row.scope === 'two-keys' && row.state === 'done')
				.map((row) => row.recordKey);
		expect(doneKeys()).toEqual([]);
		refused.delete(keys.b);
		await waitFor(() => doneKeys().length > 0, 5_000);
		expect(doneKeys()).toEqual(['two-keys|b']);
		refused.delete(keys.a);
		await waitFor(() => doneKeys().length === 2, 10_000);
	});
});

describe("the record's rows past the longest retention (72 hours)", () => {
	test('are removed by a check at most an hour after the last removal; younger rows stay', async () => {
		const HOUR = 60 * 60 * 1000;
		const startedAt = Date.now();
		await withRecord(async (context) => {
			await once.check(context, { scope: 'aged', key: 'first' });
		});
		const later = startedAt + 2 * HOUR;
		fixture.api.addRows(
			RECORD_TABLE,
			[
				{
					scope: 'aged',
					recordKey: 'aged|73h',
					state: 'done',
					stateAt: later - 73 * HOUR,
					detail: '',
				},
				{
					scope: 'aged',
					recordKey: 'aged|71h',
					state: 'done',
					stateAt: later - 71 * HOUR,
					detail: '',
				},
			],
			fixture.apiKey,
		);
		const agedKeys = () =>
			recordRows(fixture.api, fixture.apiKey)
				.filter((row) => row.scope === 'aged')
				.map((row) => row.recordKey);
		await withRecord(async (context) => {
			await once.check(context, { scope: 'aged', key: 'within the hour' });
		});
		expect(agedKeys()).toEqual(['aged|73h', 'aged|71h']);
		const clock = jest.spyOn(Date, 'now').mockReturnValue(later);
		try {
			await withRecord(async (context) => {
				await once.check(context, { scope: 'aged', key: 'two hours later' });
			});
		} finally {
			clock.mockRestore();
		}
		await waitFor(() => agedKeys().length === 1);
		expect(agedKeys()).toEqual(['aged|71h']);
	});
});

describe("the storage warning when n8n's API does not list the data tables' sizes", () => {
	test("the run goes on without the warning, and n8n's log says why at warn, at most every 5 minutes per key", async () => {
		fixture.api.setFaults(({ operation, query }) =>
			operation === 'listTables' && query.filter === undefined ? { status: 403 } : undefined,
		);
		const sizesUnread =
			/^Contact Center: the sizes of n8n's data tables could not be read, so this run cannot warn of a nearly full storage: /;
		const logs = captureLogs();
		try {
			await withRecord(async (context) => {
				// A record call that goes through between them, so that each tries the sizes again.
				const recordCallGoesThrough = async () =>
					await api(context, await targetOf(context), 'GET', '/data-tables', {
						qs: { filter: JSON.stringify({ name: RECORD_TABLE }) },
					});
				await warnIfStorageNearlyFull(context);
				await recordCallGoesThrough();
				await warnIfStorageNearlyFull(context);
				expect(logs.at('warn').filter((line) => sizesUnread.test(line))).toHaveLength(1);
				const later = Date.now() + 5 * 60_000;
				jest.spyOn(Date, 'now').mockReturnValue(later);
				await recordCallGoesThrough();
				await warnIfStorageNearlyFull(context);
			});
		} finally {
			logs.restore();
			jest.restoreAllMocks();
		}
		expect(logs.at('warn').filter((line) => sizesUnread.test(line))).toEqual([
			expect.stringMatching(/403/),
			expect.stringMatching(/403/),
		]);
	});
});
