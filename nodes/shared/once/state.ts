import type { Lane } from './batches';
import type { RecordTarget } from './client';
import type { ScopeIndex } from './scopeIndex';
import type { Usage } from './storage';

/**
 * Everything the once module keeps in this n8n process's memory, in one place. None of it has to
 * outlive the process: the record (the data table) is what lasts; this is caches of it, the work
 * the process is doing now, and writes it is still trying. Keys name the record they belong to
 * (its cacheKey, or its API URL and table id), so that several record credentials and tables
 * never share an entry.
 */
function freshState() {
	return {
		/** Record credentials read, by credential id (see targetOf). */
		recordCredentials: new Map<string, RecordTarget>(),
		/** Records (cacheKey) whose last call failed: their indexes answer no longer. */
		failingRecords: new Set<string>(),
		/** Records (cacheKey) whose last write n8n refused for its size limit: its words and when. */
		fullStorage: new Map<string, { message: string; at: number }>(),
		/** Data table sizes read, by record (cacheKey). */
		storageUsages: new Map<string, Usage>(),
		/** Table ids by record (cacheKey): looked up again when a call gets 403 or 404. */
		tableIds: new Map<string, string>(),
		/** Calls waiting to go out together, by lane (see inBatch). */
		lanes: new Map<string, Lane>(),
		/** Rows given up whose delete n8n's API has not taken yet (table id and row id): left out of reads. */
		deletingInBackground: new Set<string>(),
		/** When this process last removed rows past the retention, by table id. */
		lastPruned: new Map<string, number>(),
		/** Work done whose `done` row n8n's API has not taken yet, by row key: counts as done here. */
		pendingDone: new Map<string, { at: number; detail: string }>(),
		/** The work this process is doing now, by row key, and since when (see holds.ts). */
		holds: new Map<string, number>(),
		/** Indexes of the one-process strategy's scopes, by scope, API URL and table id. */
		scopeIndexes: new Map<string, ScopeIndex>(),
		/** When a failed index load may be tried again, by index key. */
		indexRetryAt: new Map<string, number>(),
		/** Items this process's webhook calls handed to their runs (see receivedHere.ts). */
		receivedHere: new WeakSet<object>(),
		/** Whether a production run of this process was found where its call was received. */
		productionRunsStayHere: false,
	};
}

export const state = freshState();

/** For tests: the process as if it had just started. */
export function resetOnceState(): void {
	Object.assign(state, freshState());
}
