import {
	DEFAULT_RECORD_WINDOWS,
	MAX_RECORD_RETENTION_MS,
	decideRead,
	type CheckResult,
	type RecordRow,
	type RecordWindows,
} from './rows';

/**
 * One scope's rows of the durable record as this n8n process knows them: the rows it read from the
 * record (all of them once, in pages by row id, then those added since) together with every change
 * it made itself. Only a cache of the record, for the one case where this process writes the
 * scope's rows (one n8n process, see runsStayHere in strategies.ts): there it
 * answers what a read of a key's rows would answer. Rows added by anyone else are seen by the next
 * read of the rows added since (by row id, which n8n indexes); rows deleted by anyone else when the
 * key's rows are read again (replaceKey). It keeps of each key only what can still decide: its
 * latest `done` row and its `running` rows.
 */
export class ScopeIndex {
	private readonly done = new Map<string, RecordRow>();

	/** When (see `changes`) each key's `done` row and each `running` row (by id) was put. */
	private readonly donePutAt = new Map<string, number>();

	private readonly runningPutAt = new Map<number, number>();

	/** Counts the rows put: a read of a key's rows replaces only what was put before it began. */
	private changes = 0;

	private readonly running = new Map<number, RecordRow>();

	private readonly runningIdsByKey = new Map<string, Set<number>>();

	/**
	 * Rows past readThroughId that this process turned done or deleted: a read that began before
	 * the change must not bring the old row back.
	 */
	private readonly changedAhead = new Set<number>();

	private loaded = false;

	/** When the rows added to the scope were last asked for (ms since the epoch). */
	caughtUpAt: number;

	private lastSweep: number;

	private readId = 0;

	/**
	 * Ids past readId of the rows this process inserted into the table (any scope), at most
	 * MOST_INSERTED_AHEAD: an index whose scope gets no work (so no read) while other scopes'
	 * rows are written would otherwise keep every id. Dropping them only makes the next read ask
	 * for rows from readId.
	 */
	private readonly insertedAhead = new Set<number>();

	/** `startedAt`: when the load began (ms since the epoch). Rows of other scopes are ignored. */
	constructor(
		readonly scope: string,
		readonly startedAt: number,
	) {
		this.lastSweep = startedAt;
		this.caughtUpAt = startedAt;
	}

	/**
	 * Every row up to this id has been read; the next read asks for the rows after it. Rows this
	 * process inserted right after it (no row of anyone else between) count as read: the catch-up
	 * reads of a busy process would otherwise read back mostly its own rows.
	 */
	get readThroughId(): number {
		while (this.insertedAhead.delete(this.readId + 1)) this.readId++;
		return this.readId;
	}

	get isLoaded(): boolean {
		return this.loaded;
	}

	/** The number of keys with a `done` row. */
	get doneKeys(): number {
		return this.done.size;
	}

	/** Adds a page of rows read from the record, the rows after readThroughId in id order. */
	addRead(rows: RecordRow[]): void {
		for (const row of rows) {
			this.readId = Math.max(this.readId, row.id);
			if (row.state === 'running' && this.changedAhead.has(row.id)) continue;
			this.put(row);
		}
		for (const id of this.changedAhead) if (id <= this.readId) this.changedAhead.delete(id);
		for (const id of this.insertedAhead) if (id <= this.readId) this.insertedAhead.delete(id);
	}

	/** Every page has been read: from now on the index answers. */
	finishLoading(): void {
		this.loaded = true;
	}

	/** Marks the start of a read of keys' rows, for replaceKey. */
	readStarts(): number {
		return this.changes;
	}

	/**
	 * Every row of a key as a read begun at `readStart` (see readStarts) found them: rows put
	 * before the read began that it did not find were deleted meanwhile (by hand, to allow a rerun).
	 * Rows put since (this process's own writes during the read) are kept.
	 */
	replaceKey(recordKey: string, rows: RecordRow[], readStart: number): void {
		if ((this.donePutAt.get(recordKey) ?? Infinity) <= readStart) {
			this.done.delete(recordKey);
			this.donePutAt.delete(recordKey);
		}
		for (const id of [...(this.runningIdsByKey.get(recordKey) ?? [])]) {
			if ((this.runningPutAt.get(id) ?? Infinity) <= readStart) this.forgetRunning(id);
		}
		for (const row of rows) if (row.recordKey === recordKey) this.put(row);
	}

	/** A row this process inserted into the table, of this scope or another. */
	inserted(row: RecordRow): void {
		if (row.id > this.readId) {
			if (this.insertedAhead.size >= MOST_INSERTED_AHEAD) this.insertedAhead.clear();
			this.insertedAhead.add(row.id);
		}
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

	/**
	 * What a read of the key's rows would decide (see decideRead), or undefined while the index is
	 * still loading. Rows past the longest retention are dropped now and then, as the record prunes
	 * them.
	 */
	decide(
		recordKey: string,
		now: number,
		windows: RecordWindows = DEFAULT_RECORD_WINDOWS,
	): CheckResult | undefined {
		if (!this.loaded) return undefined;
		if (now - this.lastSweep >= SWEEP_EVERY_MS) this.sweep(now);
		const rows = [...(this.runningIdsByKey.get(recordKey) ?? [])].map(
			(id) => this.running.get(id) as RecordRow,
		);
		const done = this.done.get(recordKey);
		return decideRead(done === undefined ? rows : [done, ...rows], now, windows);
	}

	private put(row: RecordRow): void {
		if (row.scope !== this.scope) return;
		this.changes++;
		if (row.state === 'done') {
			const known = this.done.get(row.recordKey);
			if (known === undefined || known.stateAt <= row.stateAt) {
				this.done.set(row.recordKey, row);
				this.donePutAt.set(row.recordKey, this.changes);
			}
			return;
		}
		this.running.set(row.id, row);
		this.runningPutAt.set(row.id, this.changes);
		const ids = this.runningIdsByKey.get(row.recordKey) ?? new Set<number>();
		ids.add(row.id);
		this.runningIdsByKey.set(row.recordKey, ids);
	}

	/** A row of this scope's that is no longer `running`; ids of rows it does not hold are ignored. */
	private forgetRunning(id: number): void {
		const row = this.running.get(id);
		if (row === undefined) return;
		if (id > this.readId) this.changedAhead.add(id);
		this.running.delete(id);
		this.runningPutAt.delete(id);
		const ids = this.runningIdsByKey.get(row.recordKey);
		ids?.delete(id);
		if (ids?.size === 0) this.runningIdsByKey.delete(row.recordKey);
	}

	/** Drops the rows the record no longer keeps (older than the longest retention). */
	private sweep(now: number): void {
		this.lastSweep = now;
		const oldest = now - MAX_RECORD_RETENTION_MS;
		for (const [key, row] of this.done) {
			if (row.stateAt >= oldest) continue;
			this.done.delete(key);
			this.donePutAt.delete(key);
		}
		for (const [id, row] of this.running) if (row.stateAt < oldest) this.forgetRunning(id);
	}
}

const MOST_INSERTED_AHEAD = 10_000;

/** How often an index drops the rows past the retention (it also ignores them in between). */
export const SWEEP_EVERY_MS = 60 * 60 * 1000;
