import { NodeOperationError, type IDataObject } from 'n8n-workflow';

import {
	api,
	kindOfRecordError,
	recordError,
	recordErrorFor,
	statusOfRecordError,
	targetOf,
	type RecordContext,
	type RecordTarget,
} from '../recordApi';
import { inBatch } from './batches';
import { memoryOfTable, state, type Lane, type Table } from './state';
import { RECORD_COLUMNS, anyOf, rowsOf, type RecordFilter, type RecordRow } from './rows';

export type { Table } from './state';

/** Tells the indexes of the table's scopes of rows this process inserted (see scopeIndex.ts). */
function tellIndexes(table: Table, rows: RecordRow[]) {
	for (const index of memoryOfTable(table).scopeIndexes.values()) index.add(rows);
}

const idOf = (found?: { id?: unknown }) => (found?.id === undefined ? undefined : String(found.id));

/** The record's data table, created when it does not exist yet. */
async function tableOf(context: RecordContext, target: RecordTarget, lookUpAgain = false) {
	const { tableName: name, cacheKey } = target;
	const find = async () => {
		const found = (await api(context, target, 'GET', '/data-tables', {
			qs: { filter: JSON.stringify({ name }), limit: 10 },
		})) as { data?: Array<{ id?: unknown; name?: unknown }> };
		return idOf(found?.data?.find((table) => table.name === name));
	};
	const create = async () => {
		const body = { name, columns: RECORD_COLUMNS.map((column) => ({ ...column })) };
		try {
			return idOf(
				(await api(context, target, 'POST', '/data-tables', { body })) as { id?: unknown },
			);
		} catch (error) {
			// Another process created it at the same moment.
			const id = await find();
			if (id !== undefined) return id;
			const message = `The record's data table "${name}" could not be created: ${(error as Error).message}`;
			throw recordErrorFor(context, error, message);
		}
	};
	const id =
		(lookUpAgain ? undefined : state.tableIds.get(cacheKey)) ?? (await find()) ?? (await create());
	if (id === undefined) {
		throw recordError(context, `n8n did not return an id for the record's data table "${name}"`);
	}
	state.tableIds.set(cacheKey, id);
	return { target, id };
}

// A 404 (the table was deleted) or a 403 (a cached table of another user, or a key switched
// since) reads the credential afresh and finds or creates the table again, once.
export async function onTable<T>(
	context: RecordContext,
	call: (table: Table) => Promise<T>,
): Promise<T> {
	const target = await targetOf(context);
	const table = await tableOf(context, target);
	try {
		return await call(table);
	} catch (error) {
		const status = statusOfRecordError(error);
		const kind = kindOfRecordError(error);
		if (!(kind === 'notFound' || (kind === 'credential' && status === 403))) {
			throw error instanceof NodeOperationError
				? error
				: recordError(context, (error as Error).message, status);
		}
	}
	state.tableIds.delete(target.cacheKey);
	const fresh = await targetOf(context, target.credentialId !== undefined);
	return await call(await tableOf(context, fresh, true));
}

/** The table as this process last found it, without a call: where waiting writes queue up. */
export async function knownTable(context: RecordContext): Promise<Table> {
	const target = await targetOf(context);
	const id = state.tableIds.get(target.cacheKey) ?? `(not found yet) ${target.cacheKey}`;
	return { target, id };
}

export async function readTableAfresh(context: RecordContext, target: RecordTarget): Promise<void> {
	const table = await tableOf(context, target, true);
	await api(context, target, 'GET', rowsPath(table), { qs: { limit: 1 } });
}

const rowsPath = (table: Table) => `/data-tables/${encodeURIComponent(table.id)}/rows`;

/** A batch's failure as this caller's own, so that what a run reports names its own node. */
export const asCallersOf = (context: RecordContext) => (error: unknown) =>
	error instanceof NodeOperationError ? recordErrorFor(context, error) : error;

/** Calls of one kind on one table with one key go out together (see inBatch). */
export function laneOf(kind: string, table: Table): Lane {
	const key = `${kind} ${table.target.baseUrl} ${table.id} ${table.target.apiKey}`;
	const lane = state.lanes.get(key) ?? { busy: false, waiting: [] };
	state.lanes.set(key, lane);
	return lane;
}

const batched = async <I, O>(
	context: RecordContext,
	table: Table,
	kind: string,
	item: I,
	run: (items: I[]) => Promise<O[]>,
): Promise<O> => await inBatch(laneOf(kind, table), item, run, asCallersOf(context));

/** n8n's public API returns at most this many rows per page (MAX_ITEMS_PER_PAGE, @n8n/api-types). */
export const PAGE_ROWS = 250;
/** A key has a row per claim and done: far fewer than this many pages' worth. */
const MAX_PAGES_PER_READ = 100;

// Node's HTTP server, n8n's too, answers 431 to a request line and headers over 16 KB: a read's
// keys go in filters of at most about 8 KB in the URL.
function inUrlSizedParts(keys: string[]): string[][] {
	const parts: string[][] = [[]];
	let size = 0;
	for (const key of keys) {
		const keySize = encodeURIComponent(key).length + 100;
		if (size + keySize > 8_000 && parts[parts.length - 1].length > 0) {
			parts.push([]);
			size = 0;
		}
		parts[parts.length - 1].push(key);
		size += keySize;
	}
	return parts;
}

export async function rowsOfKey(
	context: RecordContext,
	table: Table,
	recordKey: string,
): Promise<RecordRow[]> {
	return await batched(context, table, 'read', recordKey, async (recordKeys) => {
		const rows: RecordRow[] = [];
		for (const keys of inUrlSizedParts([...new Set(recordKeys)])) {
			const filter = JSON.stringify(anyOf('recordKey', keys));
			for (let cursor: string | undefined, page = 1; ; page++) {
				const answer = (await api(context, table.target, 'GET', rowsPath(table), {
					qs: { filter, sortBy: 'id:asc', limit: PAGE_ROWS, ...(cursor ? { cursor } : {}) },
				})) as { nextCursor?: unknown };
				rows.push(...rowsOf(answer));
				cursor = typeof answer?.nextCursor === 'string' ? answer.nextCursor : undefined;
				if (cursor === undefined) break;
				if (page === MAX_PAGES_PER_READ) {
					context.logger.warn(
						`Contact Center record: a read of ${keys.length} key(s) stopped after ${MAX_PAGES_PER_READ} pages of ${PAGE_ROWS} rows; their later rows were not seen`,
					);
					break;
				}
			}
		}
		const { deletingInBackground } = memoryOfTable(table);
		return recordKeys.map((key) =>
			rows.filter((row) => row.recordKey === key && !deletingInBackground.has(row.id)),
		);
	});
}

export async function readPage(context: RecordContext, table: Table, filter: RecordFilter) {
	const answer = (await api(context, table.target, 'GET', rowsPath(table), {
		qs: { filter: JSON.stringify(filter), sortBy: 'id:asc', limit: PAGE_ROWS },
	})) as { data?: unknown[] };
	return { rows: rowsOf(answer), entries: answer?.data?.length ?? 0 };
}

/** Resolves with the row's id. `done` rows have a lane of their own: gathering them holds no claim. */
export async function insertRow(
	context: RecordContext,
	table: Table,
	row: Omit<RecordRow, 'id'>,
): Promise<number> {
	return await batched(context, table, `insert ${row.state}`, row, async (rows) => {
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
		tellIndexes(
			table,
			rows.map((written, i) => ({ ...written, id: ids[i] })),
		);
		return ids;
	});
}

/** Turns a claim's row `done`, its token cleared: false if the row was gone. */
export async function markRowDone(context: RecordContext, table: Table, id: number) {
	return await batched(context, table, 'done', id, async (ids) => {
		const path = `${rowsPath(table)}/update`;
		const data = { state: 'done', stateAt: Date.now(), detail: '' };
		const body = { filter: anyOf('id', [...new Set(ids)]), data, returnData: true };
		const rows = rowsOf(await api(context, table.target, 'PATCH', path, { body }));
		return ids.map((wanted) => rows.some((row) => row.id === wanted));
	});
}

export async function deleteRowsWhere(context: RecordContext, table: Table, filter: RecordFilter) {
	await api(context, table.target, 'DELETE', `${rowsPath(table)}/delete`, {
		qs: { filter: JSON.stringify(filter) },
	});
}

export async function deleteRow(context: RecordContext, table: Table, id: number) {
	await batched(context, table, 'delete', id, async (ids) => {
		await deleteRowsWhere(context, table, anyOf('id', ids));
		return ids.map(() => undefined);
	});
}
