import { keyUsable, type RecordContext } from '../recordApi';
import { inBatch } from './batches';
import { MAX_RECORD_RETENTION_MS, filterOf } from './rows';
import { ScopeIndex } from './scopeIndex';
import { memoryOfTable, state } from './state';
import { PAGE_ROWS, asCallersOf, laneOf, readPage, type Table } from './table';

/*
 * This process's indexes of the scopes whose every row it writes itself (the one-process
 * strategy, see strategies.ts), in their table's memory (TableMemory.scopeIndexes).
 * Only a cache of the record: built from it by reading it, told by table.ts of every row this
 * process writes, dropped at each activation of the scope's trigger, never needed after a restart.
 */
const INDEX_RETRY_MS = 60_000;

/** How long rows others add to a scope may go unseen by the scope's loaded index. */
const CATCH_UP_EVERY_MS = 60_000;

/**
 * Reads the scope's rows after the index's last read row id into it, 250 a call (n8n indexes the
 * id, so a call neither scans the table nor re-reads the rows before); rows past the longest
 * retention are left out. Returns the number of calls.
 */
async function readIntoIndex(
	context: RecordContext,
	table: Table,
	index: ScopeIndex,
): Promise<number> {
	const since = Date.now() - MAX_RECORD_RETENTION_MS;
	for (let calls = 1; ; calls++) {
		const page = await readPage(
			context,
			table,
			filterOf([
				['scope', 'eq', index.scope],
				['id', 'gt', index.readThroughId],
				['stateAt', 'gte', since],
			]),
		);
		index.addRead(page.rows);
		if (page.entries < PAGE_ROWS || page.rows.length === 0) return calls;
	}
}

async function loadIndex(context: RecordContext, table: Table, index: ScopeIndex): Promise<void> {
	const calls = await readIntoIndex(context, table, index);
	index.loaded = true;
	context.logger.info(
		`Contact Center record: ${index.keys} keys of ${index.scope} loaded into this process's index in ${Date.now() - index.startedAt} ms (${calls} calls)`,
	);
}

/**
 * Reads the rows added to the scope since the index last read them (by hand, or by another n8n
 * sharing the table) when that was a minute ago or more: one read by row id (which n8n indexes),
 * shared by the checks that arrive meanwhile.
 */
async function catchUpOnceAMinute(
	context: RecordContext,
	table: Table,
	index: ScopeIndex,
	now: number,
): Promise<void> {
	if (now - index.caughtUpAt < CATCH_UP_EVERY_MS) return;
	await inBatch(
		laneOf(`catch up ${index.scope}`, table),
		now,
		async (waiting) => {
			if (Date.now() - index.caughtUpAt >= CATCH_UP_EVERY_MS) {
				const startedAt = Date.now();
				await readIntoIndex(context, table, index);
				index.caughtUpAt = startedAt;
			}
			return waiting;
		},
		asCallersOf(context),
	);
}

/** The scope's index; starts loading it in the background when this process has none. */
function scopeIndexOf(
	context: RecordContext,
	table: Table,
	scope: string,
	now: number,
): ScopeIndex | undefined {
	const { scopeIndexes, indexRetryAt } = memoryOfTable(table);
	const known = scopeIndexes.get(scope);
	if (known !== undefined || now < (indexRetryAt.get(scope) ?? 0)) return known;
	const index = new ScopeIndex(scope, now);
	scopeIndexes.set(scope, index);
	void loadIndex(context, table, index).catch((error: Error) => {
		if (scopeIndexes.get(scope) === index) scopeIndexes.delete(scope);
		indexRetryAt.set(scope, Date.now() + INDEX_RETRY_MS);
		context.logger.warn(
			`Contact Center record: loading the index of ${scope} failed (${error.message}); reading the record per delivery meanwhile`,
		);
	});
	return index;
}

/**
 * The scope's index when it may answer now: loaded, the record's key not expired and its last
 * call not failed (a record that cannot be used must refuse deliveries, as without the index).
 * Starts loading the index the first time and catches it up once a minute.
 */
export async function usableIndexOf(
	context: RecordContext,
	table: Table,
	scope: string,
	now: number,
): Promise<ScopeIndex | undefined> {
	const index = scopeIndexOf(context, table, scope, now);
	if (index?.loaded !== true || !keyUsable(table.target, now)) return undefined;
	await catchUpOnceAMinute(context, table, index, now);
	return index;
}

/**
 * Drops this process's index of the scope, so that the next check loads it from the record
 * again: rows written or deleted by hand or by another process count from then on.
 */
export function forgetIndex(scope: string): void {
	for (const table of state.tables.values()) {
		table.scopeIndexes.delete(scope);
		table.indexRetryAt.delete(scope);
	}
}
