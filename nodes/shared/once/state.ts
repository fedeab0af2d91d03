import type { RecordContext, RecordTarget } from '../recordApi';
import type { ScopeIndex } from './scopeIndex';

/**
 * Everything the once module keeps in this n8n process's memory, in one place. None of it has to
 * outlive the process: the record (the data table) is what lasts; this is caches of it, the work
 * the process is doing now, and writes it is still trying. What belongs to one table is in that
 * table's object, so two never share an entry. (What the process knows of n8n's API and the
 * record credential's key is the record API client's: see recordApi/state.ts.)
 */

/** A call waiting in a lane (see batches.ts inBatch). */
export interface Waiting<I, O> {
	item: I;
	resolve: (value: O) => void;
	reject: (error: unknown) => void;
	/** The caller's own call, on its own execution's context. */
	run: (items: I[]) => Promise<O[]>;
	/** The batch's failure as the caller's own (naming its node), when another caller's call made it. */
	asCallers: (error: unknown) => unknown;
}

/** Calls waiting to go out together (see batches.ts). */
export interface Lane {
	busy: boolean;
	waiting: Array<Waiting<unknown, unknown>>;
	/** While an idle lane gathers: tells it that a call joined. */
	joined?: () => void;
}

/** Work this process is handling now, and since when (see strategies.ts claimHold). */
export interface Hold {
	recordKey: string;
	since: number;
}

/**
 * A record write n8n's API did not take, waiting in its table's queue (see table.ts writeLater).
 * `write` gets the context to call with: it holds none of its own.
 */
export interface WaitingWrite {
	what: string;
	since: number;
	write: (context: RecordContext) => Promise<unknown>;
	/** Called once the write is made or given up. */
	settled: () => void;
}

/** Writes waiting for n8n's API, oldest first, and whether the queue's one retry loop runs. */
export interface WriteQueue {
	waiting: WaitingWrite[];
	retrying: boolean;
}

/** One data table (API URL and table id) as this process knows it, whichever key reached it. */
export interface TableMemory {
	/**
	 * Writes waiting for n8n's API, one queue per key that reached the table (RecordTarget.cacheKey),
	 * so that each queue retries with the credential of the writes it holds.
	 */
	writeQueues: Map<string, WriteQueue>;
	/** When this process last removed rows past the retention. */
	lastPrunedAt: number;
	/** Rows of released claims whose delete n8n's API has not taken yet: left out of reads. */
	deletingInBackground: Set<number>;
	/** Indexes of the one-process strategy's scopes, by scope. */
	scopeIndexes: Map<string, ScopeIndex>;
	/** When a failed index load may be tried again, by scope. */
	indexRetryAt: Map<string, number>;
}

function freshState() {
	return {
		/**
		 * The record's table id, by record credential key (RecordTarget.cacheKey; each n8n user has
		 * tables of their own): looked up again when a call gets 403 or 404.
		 */
		tableIds: new Map<string, string>(),
		/** By API URL and table id. */
		tables: new Map<string, TableMemory>(),
		/** Calls waiting to go out together, by lane (see table.ts laneOf). */
		lanes: new Map<string, Lane>(),
		/** Work done whose `done` row n8n's API has not taken yet, by record key: counts as done here. */
		pendingDone: new Map<string, { at: number; detail: string }>(),
		/** Holds: the work this process is handling now, by record key (see strategies.ts). */
		holds: new Map<string, Hold>(),
		/** Items this process's webhook calls handed to their runs, with the hold if any (see strategies.ts). */
		receivedHere: new WeakMap<object, Hold | undefined>(),
		/** Whether a production run of this process was found where its call was received. */
		productionRunsStayHere: false,
	};
}

export const state = freshState();

/** For tests: the process as if it had just started. */
export function resetOnceState(): void {
	Object.assign(state, freshState());
}

export function memoryOfTable(table: { target: RecordTarget; id: string }): TableMemory {
	const key = `${table.target.baseUrl} ${table.id}`;
	let memory = state.tables.get(key);
	if (memory === undefined) {
		memory = {
			writeQueues: new Map(),
			lastPrunedAt: 0,
			deletingInBackground: new Set(),
			scopeIndexes: new Map(),
			indexRetryAt: new Map(),
		};
		state.tables.set(key, memory);
	}
	return memory;
}
