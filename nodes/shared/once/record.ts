import { randomBytes } from 'crypto';

import { sleep } from 'n8n-workflow';

import { contextWithoutExecution, type RecordContext } from '../recordApi';
import { usableIndexOf } from './indexes';
import { memoryOfTable, state } from './state';
import {
	MAX_RECORD_RETENTION_MS,
	decideClaim,
	decideRead,
	filterOf,
	ownClaimRows,
	recordKeyOf,
	windowsOf,
	type Finished,
	type Found,
	type RecordFilter,
	type Work,
} from './rows';
import {
	deleteRow,
	deleteRowsWhere,
	insertRow,
	knownTable,
	onTable,
	rowsOfKey,
	type Table,
} from './table';
import { deleteNowOrLater, writeDone, writeDoneLater } from './waitingWrites';

/** A claim whose row holds the key: the row's id. */
type ClaimedRow = { state: 'claimed'; claimId: number; lapsedClaimAt?: number };

// A claim beside only younger live claims reads its key again, as each of them gives up on seeing
// it and deletes its row: the first wait 50 to 100 ms, doubling up to 1 s, for up to 10 s in all.
// Then it gives up too (one of the younger ones took the key before this row committed). The bound
// is that long because n8n under load can answer the losers' deletes seconds late, and a claim
// that gave up too early left the key to nobody: every delivery answered "running".
const CONTENDED_FIRST_WAIT_MS = 50;
const CONTENDED_MAX_WAIT_MS = 1000;
const CONTENDED_FOR_MS = 10_000;

const PRUNE_EVERY_MS = 60 * 60 * 1000;

/** Work done here whose `done` row n8n's API has not taken yet counts as done (finishAndKeepTrying). */
const doneOnlyInMemoryOf = (recordKey: string) => {
	const inMemory = state.doneOnlyInMemory.get(recordKey);
	return inMemory && { state: 'done' as const, ...inMemory };
};

/**
 * Counts work as done in this process until its row is written; false when this process already
 * holds as many keys as it may (maxDoneOnlyInMemory), which it logs.
 */
function countAsDone(context: RecordContext, recordKey: string, detail: string): boolean {
	const { doneOnlyInMemory, limits } = state;
	if (!doneOnlyInMemory.has(recordKey) && doneOnlyInMemory.size >= limits.maxDoneOnlyInMemory) {
		// Keys whose row could not even be queued stay until they expire: make room for new ones.
		const expired = Date.now() - MAX_RECORD_RETENTION_MS;
		for (const [key, { at }] of doneOnlyInMemory) {
			if (at < expired) doneOnlyInMemory.delete(key);
		}
	}
	if (!doneOnlyInMemory.has(recordKey) && doneOnlyInMemory.size >= limits.maxDoneOnlyInMemory) {
		context.logger.error(
			`Contact Center record: ${recordKey} is done but could not be recorded yet, and ${limits.maxDoneOnlyInMemory} keys already count as done only in this process's memory: it does not count this one, so a redelivery of this key will run again until its row is written`,
		);
		return false;
	}
	doneOnlyInMemory.set(recordKey, { at: Date.now(), detail });
	return true;
}

async function checkKey(
	context: RecordContext,
	work: Work,
	decide: (table: Table, recordKey: string, now: number) => Promise<Found>,
): Promise<Found> {
	const recordKey = recordKeyOf(work.scope, work.key);
	const inMemory = doneOnlyInMemoryOf(recordKey);
	if (inMemory !== undefined) return inMemory;
	const now = Date.now();
	return await onTable(context, async (table) => {
		const found = await decide(table, recordKey, now);
		pruneNowAndThen(context, table, now);
		return found;
	});
}

/**
 * Removes rows past the longest retention any user of the table may ask for, in the background:
 * with a context of no execution, as the caller's call may end first.
 */
function pruneNowAndThen(context: RecordContext, table: Table, now: number) {
	const memory = memoryOfTable(table);
	if (now - memory.lastPrunedAt < PRUNE_EVERY_MS) return;
	memory.lastPrunedAt = now;
	const expired = filterOf([['stateAt', 'lt', now - MAX_RECORD_RETENTION_MS]]);
	void pruneInBackground(contextWithoutExecution(context), table, expired);
}

async function pruneInBackground(context: RecordContext, table: Table, expired: RecordFilter) {
	await deleteRowsWhere(context, table, expired).catch((error: Error) => {
		context.logger.warn(`Contact Center record: removing expired rows failed: ${error.message}`);
	});
}

/** Reads the key's rows and decides the claim whose row this process inserted (see decideClaim). */
async function readClaim(
	context: RecordContext,
	table: Table,
	work: Work,
	inserted: { id: number; token: string },
) {
	const keyRows = await rowsOfKey(context, table, recordKeyOf(work.scope, work.key));
	const now = Date.now();
	const { ownId, otherOwnIds, rows } = ownClaimRows(keyRows, inserted.id, inserted.token);
	for (const id of otherOwnIds) await deleteRow(context, table, id);
	return { ownId, now, decision: decideClaim(rows, ownId, now, windowsOf(work)) };
}

/** One claim row: inserted, then read back until decided; undefined when the row was lost. */
async function claimOnce(context: RecordContext, table: Table, work: Work) {
	const { scope } = work;
	const recordKey = recordKeyOf(scope, work.key);
	// Names this claim's rows: an insert sent again after its answer was lost adds a second one.
	const token = `claim:${randomBytes(12).toString('hex')}`;
	let decided = false;
	let insertedId: number | undefined;
	try {
		const row = { scope, recordKey, state: 'running' as const, stateAt: Date.now(), detail: token };
		insertedId = await insertRow(context, table, row);
		const inserted = { id: insertedId, token };
		let read = await readClaim(context, table, work, inserted);
		const contendedUntil = Date.now() + CONTENDED_FOR_MS;
		for (
			let wait = CONTENDED_FIRST_WAIT_MS;
			read.decision.state === 'contended' && Date.now() < contendedUntil;
			wait = Math.min(wait * 2, CONTENDED_MAX_WAIT_MS)
		) {
			await sleep(wait * (1 + Math.random()));
			read = await readClaim(context, table, work, inserted);
		}
		const { ownId, now, decision } = read;
		decided = true;
		if (decision.state === 'lost') return undefined;
		pruneNowAndThen(context, table, now);
		if (decision.state === 'claimed') return { ...decision, claimId: ownId };
		const what = `the row of a claim of ${recordKey} not taken`;
		await deleteNowOrLater(context, table, what, { id: ownId });
		if (decision.state !== 'contended') return decision;
		// Still beside younger claims: one of them holds the key, or none does and the service's
		// next delivery takes it. Which, this claim cannot learn: said in n8n's log.
		context.logger.warn(
			`Contact Center record: a claim of ${recordKey} gave up after ${CONTENDED_FOR_MS / 1000} s beside younger claims of the same key. One of them holds it, or n8n's API answered their deletes that late and none does: then this delivery is answered "running" and the service's next delivery runs it.`,
		);
		return { state: 'running' as const, since: decision.since };
	} finally {
		// A claim that failed before it was decided deletes its rows, found by its token (an insert
		// whose answer was lost leaves a row nobody knows the id of).
		if (!decided) {
			const where = filterOf([
				['recordKey', 'eq', recordKey],
				['detail', 'eq', token],
			]);
			const what = `the row of a failed claim of ${recordKey}`;
			await deleteNowOrLater(context, table, what, { id: insertedId, where });
		}
	}
}

export const record = {
	countDoneOnlyInMemory: (scope: string): number =>
		[...state.doneOnlyInMemory.keys()].filter((recordKey) => recordKey.startsWith(`${scope}|`))
			.length,

	async claim(context: RecordContext, work: Work): Promise<Found<ClaimedRow>> {
		const inMemory = doneOnlyInMemoryOf(recordKeyOf(work.scope, work.key));
		if (inMemory !== undefined) return inMemory;
		return await onTable(context, async (table) => {
			for (let attempt = 0; attempt < 3; attempt++) {
				const claim = await claimOnce(context, table, work);
				if (claim !== undefined) return claim;
			}
			return { state: 'running' };
		});
	},

	async check(context: RecordContext, work: Work): Promise<Found> {
		return await checkKey(context, work, async (table, recordKey, now) =>
			decideRead(await rowsOfKey(context, table, recordKey), now, windowsOf(work)),
		);
	},

	/**
	 * As check, for a scope whose every row this process writes itself (the one-process strategy):
	 * a key its loaded index knows to have no row is free without a call (see scopeIndex.ts).
	 */
	async checkKnownScope(context: RecordContext, work: Work): Promise<Found> {
		return await checkKey(context, work, async (table, recordKey, now) => {
			const index = await usableIndexOf(context, table, work.scope, now);
			if (index?.hasNoRows(recordKey, now) === true) return { state: 'free' };
			return decideRead(await rowsOfKey(context, table, recordKey), now, windowsOf(work));
		});
	},

	async finish(context: RecordContext, done: Finished) {
		await onTable(context, async (table) => await writeDone(context, table, done));
	},

	// For work that has happened, which must never be done again because its row came late: counted
	// as done here at once when n8n's API does not take the write. Never throws.
	async finishAndKeepTrying(context: RecordContext, done: Finished) {
		await record.finish(context, done).catch(async (error: Error) => {
			const recordKey = recordKeyOf(done.work.scope, done.work.key);
			const counted = countAsDone(context, recordKey, done.detail);
			if (counted) {
				context.logger.warn(
					`Contact Center record: ${recordKey} is done but could not be recorded yet (${error.message}); this process counts it as done and keeps writing its row`,
				);
			}
			const table = await knownTable(context).catch((reason: Error) => {
				const meaning = counted
					? "only this process's memory holds it as done"
					: 'a redelivery of this key will run again';
				context.logger.error(
					`Contact Center record: the done row of ${recordKey} cannot even wait for n8n's API (${reason.message}); ${meaning}`,
				);
			});
			if (table !== undefined) writeDoneLater(context, table, done);
		});
	},

	async release(context: RecordContext, work: Work, claimId: number): Promise<void> {
		const what = `the claim row of ${recordKeyOf(work.scope, work.key)}, released`;
		const gone = { id: claimId, throwUnlessTransient: true };
		await onTable(context, async (table) => await deleteNowOrLater(context, table, what, gone));
	},
};
