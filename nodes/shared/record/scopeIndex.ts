import {
	DEFAULT_RECORD_WINDOWS,
	MAX_RECORD_RETENTION_MS,
	decideRead,
	type ReadDecision,
	type RecordRow,
	type RecordWindows,
} from './rows';

/**
 * One scope's rows of the durable record as this n8n process knows them: the rows read from the
 * record once (in pages, in the background) together with every row this process wrote itself
 * since. Only a cache of the record, for the one case where this process writes every row of the
 * scope (one n8n process, see ../../ContactCenterTrigger/helpers/receivedHere.ts): there it
 * answers what a read of a key's rows would answer, without the read. Rows written by anyone else
 * after the load (another process, a row deleted by hand) are seen only when the index is loaded
 * again. It keeps of each key only what can still decide: its latest `done` row and its `running`
 * rows.
 */
export class ScopeIndex {
	private readonly done = new Map<string, RecordRow>();

	private readonly running = new Map<number, RecordRow>();

	private readonly runningIdsByKey = new Map<string, Set<number>>();

	/**
	 * Rows this process changed (turned done or deleted) while the load was under way: a page read
	 * before the change must not bring the old row back.
	 */
	private readonly changedWhileLoading = new Set<number>();

	private loaded = false;

	private lastSweep: number;

	/** `startedAt`: when the load began (ms since the epoch). */
	constructor(readonly startedAt: number) {
		this.lastSweep = startedAt;
	}

	get isLoaded(): boolean {
		return this.loaded;
	}

	/** The number of keys with a `done` row. */
	get doneKeys(): number {
		return this.done.size;
	}

	/** Adds rows of a page read from the record (loading). */
	addLoaded(rows: RecordRow[]): void {
		for (const row of rows) {
			if (row.state === 'running' && this.changedWhileLoading.has(row.id)) continue;
			this.put(row);
		}
	}

	/** Every page has been read: from now on the index answers. */
	finishLoading(): void {
		this.loaded = true;
		this.changedWhileLoading.clear();
	}

	/** A row this process inserted. */
	inserted(row: RecordRow): void {
		this.put(row);
	}

	/** Rows this process turned `done` (as n8n returned them after the update). */
	updated(rows: RecordRow[]): void {
		for (const row of rows) {
			this.forgetRunning(row.id);
			this.put(row);
		}
	}

	/** Rows this process deleted by their ids. */
	deleted(ids: number[]): void {
		for (const id of ids) this.forgetRunning(id);
	}

	/** This process deleted every `running` row of a key. */
	deletedRunning(recordKey: string): void {
		for (const id of [...(this.runningIdsByKey.get(recordKey) ?? [])]) this.forgetRunning(id);
	}

	/**
	 * What a read of the key's rows would decide (see decideRead), or undefined while the index is
	 * still loading. Rows past the longest retention are dropped now and then, as the record prunes
	 * them.
	 */
	decide(
		recordKey: string,
		now: number,
		windows: RecordWindows = DEFAULT_RECORD_WINDOWS,
	): ReadDecision | undefined {
		if (!this.loaded) return undefined;
		if (now - this.lastSweep >= SWEEP_EVERY_MS) this.sweep(now);
		const rows = [...(this.runningIdsByKey.get(recordKey) ?? [])].map(
			(id) => this.running.get(id) as RecordRow,
		);
		const done = this.done.get(recordKey);
		return decideRead(done === undefined ? rows : [done, ...rows], now, windows);
	}

	private put(row: RecordRow): void {
		if (row.state === 'done') {
			const known = this.done.get(row.recordKey);
			if (known === undefined || known.stateAt <= row.stateAt) this.done.set(row.recordKey, row);
			return;
		}
		this.running.set(row.id, row);
		const ids = this.runningIdsByKey.get(row.recordKey) ?? new Set<number>();
		ids.add(row.id);
		this.runningIdsByKey.set(row.recordKey, ids);
	}

	private forgetRunning(id: number): void {
		if (!this.loaded) this.changedWhileLoading.add(id);
		const row = this.running.get(id);
		if (row === undefined) return;
		this.running.delete(id);
		const ids = this.runningIdsByKey.get(row.recordKey);
		ids?.delete(id);
		if (ids?.size === 0) this.runningIdsByKey.delete(row.recordKey);
	}

	/** Drops the rows the record no longer keeps (older than the longest retention). */
	private sweep(now: number): void {
		this.lastSweep = now;
		const oldest = now - MAX_RECORD_RETENTION_MS;
		for (const [key, row] of this.done) if (row.stateAt < oldest) this.done.delete(key);
		for (const [id, row] of this.running) if (row.stateAt < oldest) this.forgetRunning(id);
	}
}

/** How often an index drops the rows past the retention (it also ignores them in between). */
export const SWEEP_EVERY_MS = 60 * 60 * 1000;
