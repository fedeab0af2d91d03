import { MAX_RECORD_RETENTION_MS, type RecordRow } from './rows';

/**
 * The keys of one scope that have rows in the record, as this n8n process knows them: every row
 * read once, then the rows added since (by row id, which n8n indexes), and every row this process
 * inserts. Only for a scope whose rows this process writes itself (the one-process strategy): a key
 * it does not know has no row, so it is free without a call; any key it knows is read from the
 * record, so a row deleted by hand counts at once.
 */
export class ScopeIndex {
	/** The latest `stateAt` of each key's rows. */
	private readonly latest = new Map<string, number>();

	loaded = false;

	/** Every row of the scope up to this id has been read. */
	readThroughId = 0;

	/** When the rows added to the scope were last asked for (ms since the epoch). */
	caughtUpAt: number;

	private sweptAt: number;

	constructor(
		readonly scope: string,
		readonly startedAt: number,
	) {
		this.caughtUpAt = startedAt;
		this.sweptAt = startedAt;
	}

	get keys(): number {
		return this.latest.size;
	}

	/** A page of the scope's rows read from the record, after readThroughId. */
	addRead(rows: RecordRow[]): void {
		for (const row of rows) this.readThroughId = Math.max(this.readThroughId, row.id);
		this.add(rows);
	}

	/** Rows this process read or inserted, of this scope or another. */
	add(rows: RecordRow[]): void {
		for (const row of rows) {
			if (row.scope !== this.scope) continue;
			this.latest.set(row.recordKey, Math.max(row.stateAt, this.latest.get(row.recordKey) ?? 0));
		}
	}

	/**
	 * Whether the key surely has no row: false while the index loads. Keys whose rows are all past
	 * the longest retention are forgotten now and then, as the record prunes them.
	 */
	hasNoRows(recordKey: string, now: number): boolean {
		if (!this.loaded) return false;
		if (now - this.sweptAt >= SWEEP_EVERY_MS) {
			this.sweptAt = now;
			for (const [key, at] of this.latest)
				if (at < now - MAX_RECORD_RETENTION_MS) this.latest.delete(key);
		}
		return !this.latest.has(recordKey);
	}
}

export const SWEEP_EVERY_MS = 60 * 60 * 1000;
