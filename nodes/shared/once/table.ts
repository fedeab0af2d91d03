import { NodeOperationError, sleep, type IDataObject } from 'n8n-workflow';

import {
	api,
	contextWithoutExecution,
	kindOfRecordError,
	recordError,
	pendingRetryMs,
	statusOfRecordError,
	targetOf,
	type RecordContext,
	type RecordTarget,
} from '../recordApi';
import { inBatch, type Gather } from './batches';
import { memoryOfTable, state, type Lane, type WaitingWrite, type WriteQueue } from './state';
import {
	MAX_RECORD_RETENTION_MS,
	RECORD_COLUMNS,
	anyOf,
	rowsOf,
	type RecordFilter,
	type RecordRow,
} from './rows';

/**
 * The record's data table and its rows: the table found or created, and every row call, batched
 * with the process's concurrent calls. Every write tells this process's indexes of the table's
 * scopes (see indexes.ts), so no caller has to keep a cache of the rows up to date by hand.
 */

/** A table as the row calls see it: the credential it was reached with and its id. */
export interface Table {
	target: RecordTarget;
	id: string;
}

type RowChange =
	| { kind: 'inserted'; rows: RecordRow[] }
	/** Rows turned `done`, as n8n returned them. */
	| { kind: 'updated'; rows: RecordRow[] }
	| { kind: 'deleted'; ids: number[] };

/** Tells the indexes of the table's scopes of a change this process made to its rows. */
function changed(table: Table, change: RowChange) {
	for (const index of memoryOfTable(table).scopeIndexes.values()) {
		if (change.kind === 'inserted') for (const row of change.rows) index.inserted(row);
		else if (change.kind === 'updated') index.updated(change.rows);
		else index.deleted(change.ids);
	}
}

async function findTable(
	context: RecordContext,
	target: RecordTarget,
): Promise<string | undefined> {
	const found = (await api(context, target, 'GET', '/data-tables', {
		qs: { filter: JSON.stringify({ name: target.tableName }), limit: 10 },
	})) as { data?: Array<{ id?: unknown; name?: unknown }> };
	const table = (found?.data ?? []).find((entry) => entry.name === target.tableName);
	return table?.id === undefined ? undefined : String(table.id);
}

async function createTable(
	context: RecordContext,
	target: RecordTarget,
): Promise<string | undefined> {
	try {
		const created = (await api(context, target, 'POST', '/data-tables', {
			body: { name: target.tableName, columns: RECORD_COLUMNS.map((column) => ({ ...column })) },
		})) as { id?: unknown };
		return created?.id === undefined ? undefined : String(created.id);
	} catch (error) {
		// Another process created it at the same moment.
		const id = await findTable(context, target);
		if (id !== undefined) return id;
		throw recordError(
			context,
			`The record's data table "${target.tableName}" could not be created: ${(error as Error).message}`,
			statusOfRecordError(error),
			kindOfRecordError(error),
		);
	}
}

/** The record's data table, created with its columns when it does not exist yet. */
async function tableOf(
	context: RecordContext,
	target: RecordTarget,
	{ lookUpAgain = false } = {},
): Promise<Table> {
	const known = lookUpAgain ? undefined : state.tableIds.get(target.cacheKey);
	if (known !== undefined) return { target, id: known };
	const id = (await findTable(context, target)) ?? (await createTable(context, target));
	if (id === undefined) {
		throw recordError(
			context,
			`n8n did not return an id for the record's data table "${target.tableName}"`,
		);
	}
	state.tableIds.set(target.cacheKey, id);
	return { target, id };
}

/**
 * Calls the record's table. A 404 (the table was deleted meanwhile) or a 403 (a cached table of
 * another user, or a key switched since) reads the credential afresh and looks the table up or
 * creates it again, once.
 */
export async function onTable<T>(
	context: RecordContext,
	call: (table: Table) => Promise<T>,
): Promise<T> {
	const target = await targetOf(context);
	const first = await call(await tableOf(context, target)).then(
		(value) => ({ ok: true as const, value }),
		(error: unknown) => ({ ok: false as const, error }),
	);
	if (first.ok) return first.value;
	const status = statusOfRecordError(first.error);
	const kind = kindOfRecordError(first.error);
	if (!(kind === 'notFound' || (kind === 'credential' && status === 403))) {
		if (first.error instanceof NodeOperationError) throw first.error;
		throw recordError(context, (first.error as Error).message, status);
	}
	state.tableIds.delete(target.cacheKey);
	const fresh = await targetOf(context, target.credentialId !== undefined);
	return await call(await tableOf(context, fresh, { lookUpAgain: true }));
}

/**
 * The record's table as this process last found it, without a call: where waiting writes queue up
 * (see writeLater). A table not found yet queues under its credential's key alone.
 */
export async function knownTable(context: RecordContext): Promise<Table> {
	const target = await targetOf(context);
	return {
		target,
		id: state.tableIds.get(target.cacheKey) ?? `(not found yet) ${target.cacheKey}`,
	};
}

/** Looks the record's table up afresh (creating it if need be) and reads a row: throws if unusable. */
export async function readTableAfresh(context: RecordContext, target: RecordTarget): Promise<void> {
	const table = await tableOf(context, target, { lookUpAgain: true });
	await api(context, target, 'GET', rowsPath(table), { qs: { limit: 1 } });
}

export const rowsPath = (table: Table) => `/data-tables/${encodeURIComponent(table.id)}/rows`;

/**
 * A batch's failure as this caller's own: the same error on the caller's node, so that what a run
 * reports names its own node, not the node of the caller whose call the batch went out as.
 */
export const asCallersOf =
	(context: RecordContext) =>
	(error: unknown): unknown => {
		if (!(error instanceof NodeOperationError)) return error;
		return recordError(
			context,
			error.message,
			statusOfRecordError(error),
			kindOfRecordError(error),
			error.description ?? undefined,
		);
	};

/** Calls of one kind on one table with one key go out together (see inBatch). */
export function laneOf(kind: string, table: Table): Lane {
	const key = `${kind} ${table.target.baseUrl} ${table.id} ${table.target.apiKey}`;
	let lane = state.lanes.get(key);
	if (lane === undefined) {
		lane = { busy: false, waiting: [] };
		state.lanes.set(key, lane);
	}
	return lane;
}

/** n8n's public API returns at most this many rows per page (MAX_ITEMS_PER_PAGE, @n8n/api-types). */
export const PAGE_ROWS = 250;

/** Every row of these record keys, oldest first, following n8n's pages. */
async function readKeys(
	context: RecordContext,
	table: Table,
	recordKeys: string[],
): Promise<RecordRow[]> {
	const rows: RecordRow[] = [];
	const filter = JSON.stringify(anyOf('recordKey', [...new Set(recordKeys)]));
	for (let cursor: string | undefined, page = 0; page < 100; page++) {
		const answer = (await api(context, table.target, 'GET', rowsPath(table), {
			qs: { filter, sortBy: 'id:asc', limit: PAGE_ROWS, ...(cursor ? { cursor } : {}) },
		})) as { nextCursor?: unknown };
		rows.push(...rowsOf(answer));
		cursor = typeof answer?.nextCursor === 'string' ? answer.nextCursor : undefined;
		if (cursor === undefined) break;
	}
	return rows;
}

/** The rows of one record key (read together with the process's concurrent reads). */
export async function rowsOfKey(
	context: RecordContext,
	table: Table,
	recordKey: string,
	gather?: Gather,
): Promise<RecordRow[]> {
	return await inBatch(
		laneOf('read', table),
		recordKey,
		async (recordKeys) => {
			const { deletingInBackground } = memoryOfTable(table);
			const rows = (await readKeys(context, table, recordKeys)).filter(
				(row) => !deletingInBackground.has(row.id),
			);
			return recordKeys.map((key) => rows.filter((row) => row.recordKey === key));
		},
		asCallersOf(context),
		gather,
	);
}

/** One page of rows by a filter, as n8n returned it (rows and the number of entries). */
export async function readPage(
	context: RecordContext,
	table: Table,
	filter: RecordFilter,
): Promise<{ rows: RecordRow[]; entries: number }> {
	const answer = (await api(context, table.target, 'GET', rowsPath(table), {
		qs: { filter: JSON.stringify(filter), sortBy: 'id:asc', limit: PAGE_ROWS },
	})) as { data?: unknown[] };
	return { rows: rowsOf(answer), entries: answer?.data?.length ?? 0 };
}

/**
 * Inserts a row (batched with the process's concurrent inserts of rows of its state); resolves
 * with its id. `done` rows go in a lane of their own, so that a batch gathering them never holds
 * a claim back.
 */
export async function insertRow(
	context: RecordContext,
	table: Table,
	row: Omit<RecordRow, 'id'>,
	gather?: Gather,
): Promise<number> {
	return await inBatch(
		laneOf(`insert ${row.state}`, table),
		row,
		async (rows) => {
			const inserted = await api(context, table.target, 'POST', rowsPath(table), {
				body: { data: rows as unknown as IDataObject[], returnType: 'id' },
			});
			const ids = (Array.isArray(inserted) ? inserted : []).map((entry) =>
				Number((entry as { id?: unknown })?.id),
			);
			if (ids.length !== rows.length || !ids.every(Number.isFinite)) {
				throw recordError(
					context,
					`n8n did not return the ids of the new rows in the record: ${JSON.stringify(inserted)}`,
				);
			}
			changed(table, {
				kind: 'inserted',
				rows: rows.map((written, i) => ({ ...written, id: ids[i] })),
			});
			return ids;
		},
		asCallersOf(context),
		gather,
	);
}

/**
 * Turns a claim's row `done` by id, its detail (the claim's token) cleared: one update for the
 * process's concurrent calls. Resolves with whether the row was still there.
 */
export async function markRowDone(
	context: RecordContext,
	table: Table,
	id: number,
): Promise<boolean> {
	return await inBatch(
		laneOf('done', table),
		id,
		async (ids) => {
			const rows = rowsOf(
				await api(context, table.target, 'PATCH', `${rowsPath(table)}/update`, {
					body: {
						filter: anyOf('id', [...new Set(ids)]),
						data: { state: 'done', stateAt: Date.now(), detail: '' },
						returnData: true,
					},
				}),
			);
			changed(table, { kind: 'updated', rows });
			return ids.map((wanted) => rows.some((row) => row.id === wanted));
		},
		asCallersOf(context),
	);
}

/**
 * Deletes the rows a filter finds without telling the indexes: rows past the retention, which they
 * drop by themselves, or a failed claim's rows, which at most make an index read their key again.
 */
export async function deleteRowsWhere(context: RecordContext, table: Table, filter: RecordFilter) {
	await api(context, table.target, 'DELETE', `${rowsPath(table)}/delete`, {
		qs: { filter: JSON.stringify(filter) },
	});
}

/** Deletes a row by id (together with the process's concurrent deletes). */
export async function deleteRow(context: RecordContext, table: Table, id: number, gather?: Gather) {
	await inBatch(
		laneOf('delete', table),
		id,
		async (ids) => {
			await deleteRowsWhere(context, table, anyOf('id', ids));
			changed(table, { kind: 'deleted', ids });
			return ids.map(() => undefined);
		},
		asCallersOf(context),
		gather,
	);
}

/** The most writes one queue holds; one past it is given up at once, with an error. */
const MAX_WAITING_WRITES = 10_000;

/**
 * A record write n8n's API did not take now: waits in one queue per table and key, which one loop
 * per queue tries again (pendingRetryMs, doubling up to a minute while nothing gets through),
 * with a context of no execution (see recordApi's contextWithoutExecution), so that no
 * run's context is kept alive meanwhile. `write` gets that context; it must use no other. A queue
 * that keeps failing is logged at warn once; a write waiting longer than the record's longest
 * retention, or one past the queue's bound, is given up with an error naming it.
 */
export function writeLater(
	context: RecordContext,
	table: Table,
	what: string,
	write: (context: RecordContext) => Promise<unknown>,
	settled: () => void = () => {},
): void {
	const { writeQueues } = memoryOfTable(table);
	let queue = writeQueues.get(table.target.cacheKey);
	if (queue === undefined) {
		queue = { waiting: [], retrying: false };
		writeQueues.set(table.target.cacheKey, queue);
	}
	if (queue.waiting.length >= MAX_WAITING_WRITES) {
		context.logger.error(
			`Contact Center record: gave up on ${what}: ${MAX_WAITING_WRITES} record writes already wait for n8n's API`,
		);
		settled();
		return;
	}
	queue.waiting.push({ what, since: Date.now(), write, settled });
	if (!queue.retrying) void retryWaitingWrites(contextWithoutExecution(context), queue);
}

async function retryWaitingWrites(context: RecordContext, writeQueue: WriteQueue): Promise<void> {
	writeQueue.retrying = true;
	const queue = writeQueue.waiting;
	let warned = false;
	for (let failedRounds = 0; queue.length > 0; ) {
		await sleep(Math.min(60_000, pendingRetryMs() * 2 ** Math.min(failedRounds, 10)));
		const now = Date.now();
		const tooOld = queue.filter((waiting) => now - waiting.since >= MAX_RECORD_RETENTION_MS);
		if (tooOld.length > 0) {
			context.logger.error(
				`Contact Center record: gave up after ${MAX_RECORD_RETENTION_MS / 3_600_000} hours of n8n's API not taking them: ${tooOld.map((waiting) => waiting.what).join('; ')}`,
			);
			for (const waiting of tooOld) settleWaiting(queue, waiting);
		}
		let written = 0;
		for (const waiting of [...queue]) {
			try {
				await waiting.write(context);
			} catch (error) {
				if (!warned) {
					warned = true;
					context.logger.warn(
						`Contact Center record: ${queue.length} record write(s) wait for n8n's API, which still does not take them (${(error as Error).message}); this process tries again in the background and logs once they are written`,
					);
				}
				break;
			}
			settleWaiting(queue, waiting);
			written++;
		}
		failedRounds = queue.length === 0 || written > 0 ? 0 : failedRounds + 1;
		if (written > 0) {
			context.logger.info(
				`Contact Center record: resolved: ${written} waiting record write(s) made${queue.length > 0 ? `, ${queue.length} still waiting` : "; nothing depends on this process's memory any longer"}`,
			);
		}
	}
	writeQueue.retrying = false;
}

function settleWaiting(queue: WaitingWrite[], waiting: WaitingWrite) {
	queue.splice(queue.indexOf(waiting), 1);
	waiting.settled();
}

/**
 * A delete of a row this process gave up that n8n's API did not take: reads leave the row (`id`,
 * when known) out at once while the delete waits in the table's queue (see writeLater).
 */
export function deleteLater(
	context: RecordContext,
	table: Table,
	what: string,
	remove: (context: RecordContext) => Promise<unknown>,
	failure: unknown,
	id?: number,
): void {
	context.logger.warn(
		`Contact Center record: ${what} could not be deleted yet (${(failure as Error).message}); this process leaves it out of its reads and deletes it in the background`,
	);
	const { deletingInBackground } = memoryOfTable(table);
	if (id !== undefined) deletingInBackground.add(id);
	writeLater(context, table, `the delete of ${what}`, remove, () => {
		if (id !== undefined) deletingInBackground.delete(id);
	});
}
