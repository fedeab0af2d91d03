import { contextWithoutExecution, keyUsable, type RecordContext } from '../recordApi';
import { inBatch } from './batches';
import { MAX_RECORD_RETENTION_MS, filterOf } from './rows';
import { ScopeIndex } from './scopeIndex';
import { memoryOfTable, state } from './state';
import { PAGE_ROWS, asCallersOf, laneOf, readPage, type Table } from './table';

/*
 * This process's indexes of the scopes of the one-process strategy (TableMemory.scopeIndexes):
 * built by reading the record, told by table.ts of every row this process inserts, dropped at each
 * activation of the scope's trigger.
 */
const INDEX_RETRY_MS = 60_000;
/** How long rows others add to a scope may go unseen by its index. */
const CATCH_UP_EVERY_MS = 60_000;

/** Reads the scope's rows after readThroughId into the index, a page a call; returns the calls. */
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

/**
 * The scope's index; starts loading it in the background when this process has none, with a
 * context of no execution, as the load outlasts the call that started it.
 */
function scopeIndexOf(context: RecordContext, table: Table, scope: string, now: number) {
	const { scopeIndexes, indexRetryAt } = memoryOfTable(table);
	const known = scopeIndexes.get(scope);
	if (known !== undefined || now < (indexRetryAt.get(scope) ?? 0)) return known;
	const index = new ScopeIndex(scope, now);
	scopeIndexes.set(scope, index);
	void loadIndex(contextWithoutExecution(context), table, index);
	return index;
}

async function loadIndex(context: RecordContext, table: Table, index: ScopeIndex) {
	const { scope } = index;
	const { scopeIndexes, indexRetryAt } = memoryOfTable(table);
	try {
		const calls = await readIntoIndex(context, table, index);
		index.loaded = true;
		context.logger.info(
			`Contact Center record: ${index.keys} keys of ${scope} loaded into this process's index in ${Date.now() - index.startedAt} ms (${calls} calls)`,
		);
	} catch (error) {
		if (scopeIndexes.get(scope) === index) scopeIndexes.delete(scope);
		indexRetryAt.set(scope, Date.now() + INDEX_RETRY_MS);
		context.logger.warn(
			`Contact Center record: loading the index of ${scope} failed (${(error as Error).message}); reading the record per delivery meanwhile`,
		);
	}
}

/**
 * The scope's index when it may answer: loaded, and the record's key neither expired nor failing
 * (a record that cannot be used must refuse deliveries, as without the index). Catches the index up
 * once a minute, one read shared by the checks that arrive meanwhile.
 */
export async function usableIndexOf(
	context: RecordContext,
	table: Table,
	scope: string,
	now: number,
): Promise<ScopeIndex | undefined> {
	const index = scopeIndexOf(context, table, scope, now);
	if (index?.loaded !== true || !keyUsable(table.target, now)) return undefined;
	if (now - index.caughtUpAt >= CATCH_UP_EVERY_MS) {
		await inBatch(
			laneOf(`catch up ${scope}`, table),
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
	return index;
}

/** Drops this process's index of the scope: rows written or deleted meanwhile count from now on. */
export function forgetIndex(scope: string): void {
	for (const table of state.tables.values()) {
		table.scopeIndexes.delete(scope);
		table.indexRetryAt.delete(scope);
	}
}
