import { randomBytes } from 'crypto';

import { sleep } from 'n8n-workflow';

import {
	isPassingFailure,
	kindOfRecordError,
	recordError,
	statusOfRecordError,
	type RecordContext,
} from '../recordApi';
import { type Gather } from './batches';
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
	type CheckResult,
	type RecordWindows,
	type Work,
} from './rows';
import {
	deleteLater,
	deleteRow,
	deleteRowsWhere,
	insertRow,
	knownTable,
	markRowDone,
	onTable,
	rowsOfKey,
	writeLater,
	type Table,
} from './table';

/**
 * The record of work done, an n8n data table shared by every n8n process: the verbs over its rows.
 * `scope` separates users of one table (a trigger's webhook id, a send's workflow); `key` names
 * the piece of work (an idempotency key, a message's send once key).
 */

type RowClaim =
	/**
	 * `claimId`: the claim's row, to pass to finish. `lapsedClaimAt`: an earlier claim of the key
	 * was left by a process that stopped (see decideClaim).
	 */
	| { state: 'claimed'; claimId: number; lapsedClaimAt?: number }
	| { state: 'done'; at: number; detail: string }
	| { state: 'running'; since?: number };

/**
 * How long a claim waits between inserting its row and reading its key's rows. An insert takes
 * its row id before it commits; this lets a concurrent insert with a lower id commit first, so
 * that every process sees the same oldest claim.
 */
const CLAIM_SETTLE_MS = 50;

/** The claims whose `done` rows went out together are deleted together. */
const CLAIMS_DONE_TOGETHER: Gather = { ms: 2, upToMs: 10, until: 100 };

const PRUNE_EVERY_MS = 60 * 60 * 1000;

/*
 * Work done in this process whose `done` row n8n's API has not taken yet (state.pendingDone) is
 * counted as done by check and claim until its row is written (see finishAndKeepTrying). Lost
 * with the process: in queue mode the claim's `running` row keeps holding the key meanwhile.
 */

const pendingDoneOf = (recordKey: string): CheckResult | undefined => {
	const pending = state.pendingDone.get(recordKey);
	return pending === undefined ? undefined : { state: 'done', ...pending };
};

/** What the record says of a key, decided by `decide` unless this process counts it done. */
async function checkKey(
	context: RecordContext,
	work: Work,
	decide: (table: Table, recordKey: string, now: number) => Promise<CheckResult>,
): Promise<CheckResult> {
	const recordKey = recordKeyOf(work.scope, work.key);
	const pending = pendingDoneOf(recordKey);
	if (pending !== undefined) return pending;
	const now = Date.now();
	return await onTable(context, async (table) => {
		const found = await decide(table, recordKey, now);
		pruneNowAndThen(context, table, now);
		return found;
	});
}

/** Removes rows past the longest retention any user of the table may ask for. */
function pruneNowAndThen(context: RecordContext, table: Table, now: number) {
	const memory = memoryOfTable(table);
	if (now - memory.lastPrunedAt < PRUNE_EVERY_MS) return;
	memory.lastPrunedAt = now;
	const expired = filterOf([['stateAt', 'lt', now - MAX_RECORD_RETENTION_MS]]);
	void deleteRowsWhere(context, table, expired).catch((error: Error) => {
		context.logger.warn(`Contact Center record: removing expired rows failed: ${error.message}`);
	});
}

/**
 * Deletes the rows of a claim that failed before it was decided (found by its token, as an insert
 * whose answer was lost leaves a row nobody knows the id of). When n8n's API does not take that
 * either, this process leaves the claim's row out of its decisions and keeps deleting the rows in
 * the background; the claim's own failure is what its caller reports.
 */
async function deleteFailedClaimRows(
	context: RecordContext,
	table: Table,
	recordKey: string,
	token: string,
	insertedId?: number,
) {
	const drop = async (caller: RecordContext) =>
		await deleteRowsWhere(
			caller,
			table,
			filterOf([
				['recordKey', 'eq', recordKey],
				['detail', 'eq', token],
			]),
		);
	await drop(context).catch((error: unknown) =>
		deleteLater(
			context,
			table,
			`the row of a failed claim of ${recordKey}`,
			drop,
			error,
			insertedId,
		),
	);
}

/** One claim attempt: its row inserted, then every row of its key read and decided. */
async function claimOnce(
	context: RecordContext,
	table: Table,
	scope: string,
	recordKey: string,
	windows: RecordWindows,
	gather?: Gather,
): Promise<RowClaim | 'lost'> {
	// Names this claim's rows: an insert whose answer was lost and was sent again adds a second
	// row that is ours as well.
	const token = `claim:${randomBytes(12).toString('hex')}`;
	let decided = false;
	let insertedId: number | undefined;
	try {
		insertedId = await insertRow(
			context,
			table,
			{ scope, recordKey, state: 'running', stateAt: Date.now(), detail: token },
			gather,
		);
		await sleep(CLAIM_SETTLE_MS);
		const now = Date.now();
		const { ownId, otherOwnIds, rows } = ownClaimRows(
			await rowsOfKey(context, table, recordKey, gather),
			insertedId,
			token,
		);
		for (const id of otherOwnIds) await deleteRow(context, table, id);
		const decision = decideClaim(rows, ownId, now, windows);
		decided = true;
		if (decision.state === 'lost') return 'lost';
		if (decision.state !== 'claimed') {
			// The decision stands: a row whose delete fails is left out and deleted in the background.
			const deleteOwn = async (caller: RecordContext) => await deleteRow(caller, table, ownId);
			await deleteOwn(context).catch((error: unknown) =>
				deleteLater(
					context,
					table,
					`the row of a claim of ${recordKey} not taken`,
					deleteOwn,
					error,
					ownId,
				),
			);
		}
		pruneNowAndThen(context, table, now);
		if (decision.state === 'claimed') return { ...decision, claimId: ownId };
		return decision;
	} finally {
		// A claim that failed before it was decided leaves no row behind.
		if (!decided) await deleteFailedClaimRows(context, table, recordKey, token, insertedId);
	}
}

export const record = {
	/** How many keys of the scope this process counts as done whose row n8n has not taken yet. */
	keptOnlyInMemory: (scope: string): number =>
		[...state.pendingDone.keys()].filter((recordKey) => recordKey.startsWith(`${scope}|`)).length,

	/**
	 * Takes the key for this process with a claim row, unless it was done within the retention or
	 * another live claim holds it. Each claim is one inserted row; the oldest live one wins. A claim
	 * that fails on its way deletes the rows it inserted, so that no claim stays behind without a run.
	 * `gather`: claims claimed together go out in one insert and one read.
	 */
	async claim(context: RecordContext, work: Work, gather?: Gather): Promise<RowClaim> {
		const { scope, key } = work;
		const windows = windowsOf(work);
		const recordKey = recordKeyOf(scope, key);
		const pending = pendingDoneOf(recordKey);
		if (pending?.state === 'done') return pending;
		return await onTable(context, async (table) => {
			for (let attempt = 0; attempt < 3; attempt++) {
				const result = await claimOnce(context, table, scope, recordKey, windows, gather);
				if (result !== 'lost') return result;
			}
			return { state: 'running' };
		});
	},

	/**
	 * What the record says of the key, a read only: done within the retention, held by a live
	 * claim, or free. `gather`: checks claimed together go out in one read.
	 */
	async check(context: RecordContext, work: Work, gather?: Gather): Promise<CheckResult> {
		return await checkKey(context, work, async (table, recordKey, now) =>
			decideRead(await rowsOfKey(context, table, recordKey, gather), now, windowsOf(work)),
		);
	},

	/**
	 * As check, for a scope whose every row this process writes itself (the one-process strategy):
	 * a key its loaded index knows to have no row is free without a call (see scopeIndex.ts).
	 */
	async checkKnownScope(context: RecordContext, work: Work): Promise<CheckResult> {
		return await checkKey(context, work, async (table, recordKey, now) => {
			const index = await usableIndexOf(context, table, work.scope, now);
			if (index?.hasNoRows(recordKey, now) === true) return { state: 'free' };
			return decideRead(await rowsOfKey(context, table, recordKey), now, windowsOf(work));
		});
	},

	/**
	 * Marks the key done. Without a detail, its claim's row (`claimId`, from claim) becomes `done`:
	 * one update turns the rows of every such call of the process done. With a detail of its own
	 * (a send's message id), which an update of many rows cannot give, a `done` row goes out with
	 * the process's other inserts and its claim's row with its other deletes. Without a claim row,
	 * a `done` row is added. A `done` row outweighs any `running` row of its key. `gather`: a
	 * caller that knows of other calls on their way lets that insert wait for them.
	 */
	async finish(
		context: RecordContext,
		work: Work,
		detail = '',
		claimId?: number,
		gather?: Gather,
	): Promise<void> {
		await onTable(context, async (table) => {
			const updatesClaim = claimId !== undefined && detail === '';
			if (updatesClaim && (await markRowDone(context, table, claimId))) return;
			const recordKey = recordKeyOf(work.scope, work.key);
			const row = {
				scope: work.scope,
				recordKey,
				state: 'done' as const,
				stateAt: Date.now(),
				detail,
			};
			await insertRow(context, table, row, gather);
			if (claimId === undefined || updatesClaim) return;
			const deleteDoneClaim = async (caller: RecordContext) =>
				await deleteRow(caller, table, claimId, CLAIMS_DONE_TOGETHER);
			await deleteDoneClaim(context).catch((error: unknown) =>
				deleteLater(
					context,
					table,
					`the claim row of ${recordKey}, done`,
					deleteDoneClaim,
					error,
					claimId,
				),
			);
		});
	},

	/**
	 * Marks the key done as finish does; when n8n's API does not take the write now (after the
	 * retries of every record call), the key counts as done in this process at once (check and
	 * claim answer `done`) and its row is written in the background as soon as the API takes it.
	 * For work that has happened: it must never be done again because its row came late. Never
	 * throws; says whether the row is in the record or still to be written.
	 */
	async finishAndKeepTrying(
		context: RecordContext,
		work: Work,
		detail = '',
		claimId?: number,
		gather?: Gather,
	): Promise<'recorded' | 'pending'> {
		try {
			await record.finish(context, work, detail, claimId, gather);
			return 'recorded';
		} catch (error) {
			const recordKey = recordKeyOf(work.scope, work.key);
			state.pendingDone.set(recordKey, { at: Date.now(), detail });
			context.logger.warn(
				`Contact Center record: ${recordKey} is done but could not be recorded yet (${(error as Error).message}); this process counts it as done and keeps writing its row`,
			);
			const table = await knownTable(context).catch((reason: Error) => {
				context.logger.error(
					`Contact Center record: the done row of ${recordKey} cannot even wait for n8n's API (${reason.message}); only this process's memory holds it as done`,
				);
				return undefined;
			});
			if (table === undefined) return 'pending';
			writeLater(
				context,
				table,
				`the done row of ${recordKey}`,
				async (caller) => await record.finish(caller, work, detail, claimId),
				() => state.pendingDone.delete(recordKey),
			);
			return 'pending';
		}
	},

	/**
	 * Releases the key (the work failed): its claim's row (`claimId`) is deleted, so the next
	 * attempt may run it at once. When n8n's API does not take the delete, this process leaves the
	 * row out of its decisions at once and deletes it in the background (another process sees the
	 * claim until then).
	 */
	async release(context: RecordContext, work: Work, claimId: number): Promise<void> {
		const recordKey = recordKeyOf(work.scope, work.key);
		await onTable(context, async (table) => {
			const deleteClaim = async (caller: RecordContext) => await deleteRow(caller, table, claimId);
			const failure = await deleteClaim(context).then(
				() => undefined,
				(error: unknown) => error,
			);
			if (failure === undefined) return;
			if (!isPassingFailure(failure)) {
				throw recordError(
					context,
					(failure as Error).message,
					statusOfRecordError(failure),
					kindOfRecordError(failure),
				);
			}
			deleteLater(
				context,
				table,
				`the claim row of ${recordKey}, released`,
				deleteClaim,
				failure,
				claimId,
			);
		});
	},
};
