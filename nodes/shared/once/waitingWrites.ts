import { sleep } from 'n8n-workflow';

import {
	contextWithoutExecution,
	isTransientFailure,
	pendingRetryMs,
	recordErrorFor,
	recordFailureCauseOf,
	type RecordContext,
} from '../recordApi';
import {
	DEFAULT_RECORD_WINDOWS,
	MAX_RECORD_RETENTION_MS,
	recordKeyOf,
	type Finished,
	type RecordFilter,
} from './rows';
import { memoryOfTable, state, type WaitingWrite, type WriteQueue } from './state';
import { deleteRow, deleteRowsWhere, insertRow, markRowDone, onTable, type Table } from './table';

/*
 * The record's writes that must reach it in the end: the `done` row of work done, and the delete
 * of a claim row this process gave up. When n8n's API does not take one, it waits in the queue of
 * its table and key, retried by one loop per queue. A waiting write is plain data and the loop has
 * a context of no execution: nothing that waits keeps a run, or its execution, alive.
 */

const MINUTE_MS = 60_000;
const duration = (ms: number) =>
	ms < MINUTE_MS ? `${Math.round(ms / 1000)} s` : `${Math.round(ms / MINUTE_MS)} min`;

// What giving a write up means, for the line that says so.
const RUNS_AGAIN =
	'this process no longer counts its key as done: a redelivery of this key will run again';
const CLAIM_LEFT = `its running row keeps the key taken (answered "running") until the claim window of ${duration(DEFAULT_RECORD_WINDOWS.claimMs)} has passed`;
const LEFT_BESIDE_DONE =
	'the claim row stays beside the done row, which counts; it is removed with the expired rows';

/**
 * Writes the `done` row of work done. Without a detail, the claim's row turns `done` (one update
 * for the process's calls); a detail (a send's message id), which an update of many rows cannot
 * give, takes a row of its own, and the claim's row is deleted.
 */
export async function writeDone(
	context: RecordContext,
	table: Table,
	{ work, claimId, detail }: Finished,
): Promise<void> {
	const updatesClaim = claimId !== undefined && detail === '';
	if (updatesClaim && (await markRowDone(context, table, claimId))) return;
	const { scope } = work;
	const recordKey = recordKeyOf(scope, work.key);
	const row = { scope, recordKey, state: 'done' as const, stateAt: Date.now(), detail };
	await insertRow(context, table, row);
	if (claimId === undefined || updatesClaim) return;
	const gone = { id: claimId, ifLeft: LEFT_BESIDE_DONE };
	await deleteNowOrLater(context, table, `the claim row of ${recordKey}, done`, gone);
}

/** Queues the `done` row of work done that n8n's API did not take. */
export function writeDoneLater(context: RecordContext, table: Table, finished: Finished): void {
	const { work, claimId, detail } = finished;
	// A copy: only the fields the write needs, nothing else the caller's objects may hold.
	const done = { work: { scope: work.scope, key: work.key }, claimId, detail };
	const what = `the done row of ${recordKeyOf(work.scope, work.key)}`;
	writeLater(context, table, {
		kind: 'done',
		what,
		ifGivenUp: RUNS_AGAIN,
		since: Date.now(),
		done,
	});
}

type Gone = {
	id?: number;
	where?: RecordFilter;
	/** Throws a failure no later try may overcome instead of queueing the delete. */
	throwUnlessTransient?: boolean;
	/** What the row left in the record means (by default: a claim row, which holds its key). */
	ifLeft?: string;
};

/**
 * Deletes a row this process gave up (by `id`, or the rows `where` finds); when n8n's API does not
 * take it, reads leave the row out at once and the delete waits in the table's queue.
 */
export async function deleteNowOrLater(
	context: RecordContext,
	table: Table,
	what: string,
	gone: Gone,
): Promise<void> {
	const { id, where } = gone;
	try {
		if (where === undefined) await deleteRow(context, table, id as number);
		else await deleteRowsWhere(context, table, where);
	} catch (failure) {
		if (gone.throwUnlessTransient === true && !isTransientFailure(failure)) {
			throw recordErrorFor(context, failure);
		}
		context.logger.warn(
			`Contact Center record: ${what} could not be deleted yet (${(failure as Error).message}); this process leaves it out of its reads and deletes it in the background`,
		);
		if (id !== undefined) memoryOfTable(table).deletingInBackground.add(id);
		const ifGivenUp = gone.ifLeft ?? CLAIM_LEFT;
		const write = { kind: 'delete' as const, what: `the delete of ${what}`, ifGivenUp, id, where };
		writeLater(context, table, { ...write, since: Date.now() });
	}
}

/** Adds a write to its table and key's queue, and starts retrying the queue unless it is already. */
function writeLater(context: RecordContext, table: Table, write: WaitingWrite): void {
	const { writeQueues } = memoryOfTable(table);
	const queue = writeQueues.get(table.target.cacheKey) ?? { table, waiting: [], retrying: false };
	writeQueues.set(table.target.cacheKey, queue);
	const { maxWaitingWrites } = state.limits;
	if (queue.waiting.length >= maxWaitingWrites) {
		settle(queue, write);
		context.logger.error(
			`Contact Center record: gave up on ${write.what}: ${maxWaitingWrites} record writes already wait for n8n's API; ${write.ifGivenUp}`,
		);
		return;
	}
	queue.waiting.push(write);
	if (!queue.retrying) void retryWaitingWrites(contextWithoutExecution(context), queue);
}

/** Undoes what this process assumed while the write waited: it was written, or given up. */
function settle(queue: WriteQueue, write: WaitingWrite) {
	if (write.kind === 'done') {
		state.doneOnlyInMemory.delete(recordKeyOf(write.done.work.scope, write.done.work.key));
	} else if (write.id !== undefined) {
		memoryOfTable(queue.table).deletingInBackground.delete(write.id);
	}
}

function takeOut(queue: WriteQueue, write: WaitingWrite) {
	queue.waiting.splice(queue.waiting.indexOf(write), 1);
	settle(queue, write);
}

async function perform(context: RecordContext, queue: WriteQueue, write: WaitingWrite) {
	if (write.kind === 'done') {
		await onTable(context, async (table) => await writeDone(context, table, write.done));
	} else if (write.where !== undefined) {
		await deleteRowsWhere(context, queue.table, write.where);
	} else if (write.id !== undefined) {
		await deleteRow(context, queue.table, write.id);
	}
}

/**
 * Whether n8n's API may take the write at a later try: it limited or did not answer the call, its
 * storage was full (rows may be deleted meanwhile), or it refused the key (a key pasted into the
 * credential counts from the next run that reads it). Any other failure (a 400, a table not
 * found, a node without a credential id) would come back at every try.
 */
const mayTakeLater = (error: unknown) => {
	const cause = recordFailureCauseOf(error);
	return isTransientFailure(error) || cause === 'storageFull' || cause === 'recordKey';
};

/**
 * Tries the queue's writes in order. A write that fails for good is given up (and logged), and
 * the next one is tried; a failure a later try may overcome ends the round.
 */
async function retryRound(context: RecordContext, queue: WriteQueue) {
	let written = 0;
	for (const write of [...queue.waiting]) {
		try {
			await perform(context, queue, write);
		} catch (error) {
			if (mayTakeLater(error)) return { written, failure: error as Error };
			takeOut(queue, write);
			context.logger.error(
				`Contact Center record: gave up on ${write.what}: n8n's API refused it (${(error as Error).message}), which another try would not change; ${write.ifGivenUp}`,
			);
			continue;
		}
		takeOut(queue, write);
		written++;
	}
	return { written, failure: undefined };
}

function giveUpTooOld(context: RecordContext, queue: WriteQueue) {
	const now = Date.now();
	const tooOld = queue.waiting.filter((write) => now - write.since >= MAX_RECORD_RETENTION_MS);
	if (tooOld.length === 0) return;
	for (const write of tooOld) takeOut(queue, write);
	const given = tooOld.map((write) => `${write.what} (${write.ifGivenUp})`);
	context.logger.error(
		`Contact Center record: gave up after ${MAX_RECORD_RETENTION_MS / 3_600_000} hours of n8n's API not taking them: ${given.join('; ')}`,
	);
}

/**
 * Retries a queue's writes until none waits: after 5 s (pendingRetryMs), then twice as long after
 * each round that wrote nothing, up to a minute. While the API still fails them, it says so every
 * 15 minutes (warnEveryMs).
 */
async function retryWaitingWrites(context: RecordContext, queue: WriteQueue): Promise<void> {
	queue.retrying = true;
	let failedRounds = 0;
	let warnedAt = -Infinity;
	while (queue.waiting.length > 0) {
		await sleep(Math.min(MINUTE_MS, pendingRetryMs() * 2 ** Math.min(failedRounds, 10)));
		giveUpTooOld(context, queue);
		const { written, failure } = await retryRound(context, queue);
		failedRounds = failure === undefined || written > 0 ? 0 : failedRounds + 1;
		const waiting = queue.waiting.length;
		if (written > 0) {
			context.logger.info(
				`Contact Center record: resolved: ${written} waiting record write(s) made${waiting > 0 ? `, ${waiting} still waiting` : "; nothing depends on this process's memory any longer"}`,
			);
		}
		const { warnEveryMs } = state.limits;
		if (failure !== undefined && waiting > 0 && Date.now() - warnedAt >= warnEveryMs) {
			warnedAt = Date.now();
			const oldest = Date.now() - queue.waiting[0].since; // writes join the queue's end
			context.logger.warn(
				`Contact Center record: ${waiting} record write(s) wait for n8n's API, which still does not take them (${failure.message}), the oldest for ${duration(oldest)}; this process tries again in the background, says so again every ${duration(warnEveryMs)} while they wait, and logs once they are written`,
			);
		}
	}
	queue.retrying = false;
}
