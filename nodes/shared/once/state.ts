import type { RecordTarget } from '../recordApi';
import type { Finished, RecordFilter } from './rows';
import type { ScopeIndex } from './scopeIndex';

// All the once module keeps in this process's memory: caches of the record (the data table is what
// lasts), the work in hand and writes still being tried. Nothing here has to outlive the process.

/** A call waiting in a lane (see batches.ts); `asCallers`: a batch's failure as the caller's own. */
export interface Waiting<I, O> {
	item: I;
	resolve: (value: O) => void;
	reject: (error: unknown) => void;
	run: (items: I[]) => Promise<O[]>;
	asCallers: (error: unknown) => unknown;
}

/** `joined`: while an idle lane gathers (see GATHER), tells it that a call joined. */
export type Lane = {
	busy: boolean;
	waiting: Array<Waiting<unknown, unknown>>;
	joined?: () => void;
};

/** Work this process is handling now (see claimHold). */
export type Hold = { recordKey: string; since: number };

/**
 * A record write n8n's API did not take (see waitingWrites.ts), as plain data: nothing of the run
 * that made it. `what` names it with its record key; `ifGivenUp` says what giving it up means.
 */
export type WaitingWrite = { what: string; ifGivenUp: string; since: number } & (
	| { kind: 'done'; done: Finished }
	| { kind: 'delete'; id?: number; where?: RecordFilter }
);

/** The writes waiting for one table and key, and whether a loop is retrying them. */
/** A data table of the record: the API it is reached through and its id. */
export type Table = { target: RecordTarget; id: string };

export type WriteQueue = { table: Table; waiting: WaitingWrite[]; retrying: boolean };

/** One data table (API URL and table id), whichever key reached it. */
export interface TableMemory {
	/** One queue per key (RecordTarget.cacheKey), retried with that key's credential. */
	writeQueues: Map<string, WriteQueue>;
	lastPrunedAt: number;
	/** Rows of released claims whose delete n8n's API has not taken yet: left out of reads. */
	deletingInBackground: Set<number>;
	/** Indexes of the one-process strategy's scopes, by scope. */
	scopeIndexes: Map<string, ScopeIndex>;
	/** When a failed index load may be tried again, by scope. */
	indexRetryAt: Map<string, number>;
}

/** Bounds of what this process holds for n8n's API, and how often a queue that keeps failing says so. */
export const DEFAULT_ONCE_LIMITS = {
	/** Writes waiting in one queue (one table and key). */
	maxWaitingWrites: 10_000,
	/** Keys done that only this process's memory holds as done (doneOnlyInMemory). */
	maxDoneOnlyInMemory: 10_000,
	/** A queue whose writes still fail warns again after this long. */
	warnEveryMs: 15 * 60 * 1000,
};

export type OnceLimits = typeof DEFAULT_ONCE_LIMITS;

const freshState = () => ({
	/** By RecordTarget.cacheKey (each n8n user has tables of their own); looked up again on 403/404. */
	tableIds: new Map<string, string>(),
	tables: new Map<string, TableMemory>(),
	lanes: new Map<string, Lane>(),
	/** Work done whose `done` row n8n's API has not taken yet, by record key: counts as done here. */
	doneOnlyInMemory: new Map<string, { at: number; detail: string }>(),
	holds: new Map<string, Hold>(),
	/** Items this process's webhook calls handed to their runs, with the hold if any. */
	receivedHere: new WeakMap<object, Hold | undefined>(),
	productionRunsStayHere: false,
	/** Send Once's calls to n8n's own store, one line per workflow and node (see n8nStore.ts). */
	n8nStoreLines: new Map<string, Promise<void>>(),
	limits: { ...DEFAULT_ONCE_LIMITS }, // tests lower them
});

export const state = freshState();

/** For tests: the process as if it had just started. */
export const resetOnceState = (): void => void Object.assign(state, freshState());

export function memoryOfTable(table: Table): TableMemory {
	const key = `${table.target.baseUrl} ${table.id}`;
	const memory = state.tables.get(key) ?? {
		writeQueues: new Map(),
		lastPrunedAt: 0,
		deletingInBackground: new Set(),
		scopeIndexes: new Map(),
		indexRetryAt: new Map(),
	};
	state.tables.set(key, memory);
	return memory;
}
