import type { Lane } from './batches';
import type { RecordTarget } from './client';
import type { ScopeIndex } from './scopeIndex';
import type { Usage } from './storage';

/**
 * Everything the once module keeps in this n8n process's memory, in one place. None of it has to
 * outlive the process: the record (the data table) is what lasts; this is caches of it, the work
 * the process is doing now, and writes it is still trying. What belongs to one record credential
 * or one table is in that credential's or table's object, so two never share an entry.
 */

/** One record credential's record as this process knows it (by RecordTarget.cacheKey). */
export interface RecordMemory {
	/** The table's id: looked up again when a call gets 403 or 404. */
	tableId?: string;
	/** Whether the last call failed: the indexes of its scopes answer no longer. */
	lastCallFailed: boolean;
	/** n8n's words of its last size limit refusal of a write, and when. */
	fullStorage?: { message: string; at: number };
	/** Data table sizes as last read. */
	storageUsage?: Usage;
}

/** One data table (API URL and table id) as this process knows it, whichever key reached it. */
export interface TableMemory {
	/** When this process last removed rows past the retention. */
	lastPrunedAt: number;
	/** Rows given up whose delete n8n's API has not taken yet: left out of reads. */
	deletingInBackground: Set<number>;
	/** Indexes of the one-process strategy's scopes, by scope. */
	scopeIndexes: Map<string, ScopeIndex>;
	/** When a failed index load may be tried again, by scope. */
	indexRetryAt: Map<string, number>;
}

function freshState() {
	return {
		/** Record credentials read, by credential id (see targetOf). */
		recordCredentials: new Map<string, RecordTarget>(),
		records: new Map<string, RecordMemory>(),
		/** By API URL and table id. */
		tables: new Map<string, TableMemory>(),
		/** Calls waiting to go out together, by lane (see inBatch). */
		lanes: new Map<string, Lane>(),
		/** Work done whose `done` row n8n's API has not taken yet, by row key: counts as done here. */
		pendingDone: new Map<string, { at: number; detail: string }>(),
		/** The work this process is doing now, by row key, and since when (see strategies.ts). */
		holds: new Map<string, number>(),
		/** Items this process's webhook calls handed to their runs (see strategies.ts). */
		receivedHere: new WeakSet<object>(),
		/** Whether a production run of this process was found where its call was received. */
		productionRunsStayHere: false,
	};
}

export const state = freshState();

export function memoryOfRecord(target: RecordTarget): RecordMemory {
	let memory = state.records.get(target.cacheKey);
	if (memory === undefined) {
		memory = { lastCallFailed: false };
		state.records.set(target.cacheKey, memory);
	}
	return memory;
}

export function memoryOfTable(table: { target: RecordTarget; id: string }): TableMemory {
	const key = `${table.target.baseUrl} ${table.id}`;
	let memory = state.tables.get(key);
	if (memory === undefined) {
		memory = {
			lastPrunedAt: 0,
			deletingInBackground: new Set(),
			scopeIndexes: new Map(),
			indexRetryAt: new Map(),
		};
		state.tables.set(key, memory);
	}
	return memory;
}

/** For tests: the process as if it had just started. */
export function resetOnceState(): void {
	Object.assign(state, freshState());
}
