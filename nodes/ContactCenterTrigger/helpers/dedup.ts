import { createHash, randomUUID } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

/**
 * Idempotency keys of write back deliveries, per trigger node.
 *
 * - `done`: the delivery was accepted with a 2xx; a redelivery is answered 2xx and runs nothing.
 * - `pending`: the workflow was started but its outcome decides the answer ("when the workflow
 *   finishes" mode). The service only redelivers an event it did not get a 2xx for, so a
 *   redelivery of a pending key runs the workflow again: a failed run never loses the event.
 *
 * The keys live in the n8n process (one store per workflow and trigger node) and are copied into
 * the node's workflow static data on every delivery, so that they survive a restart. Memory is
 * needed because n8n 2.41 does not save static data changed by a webhook call that starts a run:
 * WorkflowRunner.establishContextForPersistence wraps the same static data object in a new
 * Workflow, which resets its change flag before the webhook handler saves it. Calls that start no
 * run (a duplicate, an unselected type) are saved, and so is the first change to empty static data.
 *
 * The store holds fingerprints of the keys, not the keys: n8n copies the workflow's static data
 * into every execution it saves, so the saved form is kept small (18 characters per key).
 */
export type DedupState = 'done' | 'pending';

interface DedupEntry {
	/** Last time (epoch ms) the key was seen. */
	at: number;
	state: DedupState;
	/** The entry as saved: encoded once, as every call saves all entries. */
	saved: string;
}

export interface DedupLimits {
	/** How long a key is remembered after it was last seen. */
	retentionMs: number;
	/** At most this many keys; the oldest are dropped first. */
	maxKeys: number;
}

/** The service retries after 1, 2, 4, 8, 16 and 32 hours: 63 hours in all (spec 6.1). */
export const RETRY_WINDOW_MS = 63 * 60 * 60 * 1000;

export const DEFAULT_DEDUP_LIMITS: DedupLimits = {
	// The retry window plus a margin for clock skew and slow deliveries.
	retentionMs: 72 * 60 * 60 * 1000,
	maxKeys: 10000,
};

/** Name of the node static-data property holding the keys. */
export const DEDUP_STATIC_KEY = 'writeBackIdempotencyKeys';

/** Characters of a key's fingerprint: 72 bits of its SHA-256, base64url. */
const FINGERPRINT_LENGTH = 12;
/** Minutes since the epoch in base 36, zero-padded: five digits last until the year 2084. */
const MINUTE_LENGTH = 5;
/** One saved key: fingerprint, minute of the last sighting, state code. */
export const PERSISTED_RECORD_LENGTH = FINGERPRINT_LENGTH + MINUTE_LENGTH + 1;

const MINUTE_MS = 60_000;
const RECORD_PATTERN = /^[A-Za-z0-9_-]{12}[0-9a-z]{5}[dp]$/;

/**
 * What a delivery's key is remembered by. With 10 000 keys kept, a new key matches a remembered
 * one by chance with a probability of about 2e-18.
 */
export function fingerprintOf(key: string): string {
	return createHash('sha256').update(key).digest('base64url').slice(0, FINGERPRINT_LENGTH);
}

/**
 * The keys as saved in static data: one string of fixed-width records, oldest sighting first.
 * A string is also what n8n loads cheapest: it wraps every object in static data in a
 * change-tracking proxy on each call.
 */
export interface PersistedDedupStore extends IDataObject {
	records: string;
	/** The in-process store that wrote it: what it wrote itself it need not merge again. */
	writtenBy: string;
}

const STATE_CODES: Record<DedupState, string> = { done: 'd', pending: 'p' };

/** Sightings are saved rounded up to the minute, so a reloaded key is kept slightly longer, never shorter. */
function entryOf(fingerprint: string, at: number, state: DedupState): DedupEntry {
	const minute = Math.ceil(at / MINUTE_MS)
		.toString(36)
		.padStart(MINUTE_LENGTH, '0');
	return { at, state, saved: fingerprint + minute + STATE_CODES[state] };
}

export class IdempotencyKeyStore {
	/** By fingerprint, in the order of the last sighting, oldest first, so pruning only looks at the front. */
	private entries = new Map<string, DedupEntry>();

	private readonly id = randomUUID();

	constructor(private readonly limits: DedupLimits = DEFAULT_DEDUP_LIMITS) {}

	get size(): number {
		return this.entries.size;
	}

	/**
	 * Adds keys saved by an earlier n8n process or another one sharing the workflow. A later
	 * sighting wins. Anything unreadable is skipped: losing a key only means a redelivery runs.
	 */
	merge(persisted: unknown): void {
		if (persisted === null || typeof persisted !== 'object') return;
		const { records, writtenBy } = persisted as Partial<PersistedDedupStore>;
		// Its own copy holds no key this store lacks or has seen later.
		if (writtenBy === this.id || typeof records !== 'string') return;
		let newestAt = this.newestAt();
		let outOfOrder = false;
		for (
			let start = 0;
			start + PERSISTED_RECORD_LENGTH <= records.length;
			start += PERSISTED_RECORD_LENGTH
		) {
			const record = records.slice(start, start + PERSISTED_RECORD_LENGTH);
			if (!RECORD_PATTERN.test(record)) continue;
			const fingerprint = record.slice(0, FINGERPRINT_LENGTH);
			const at = parseInt(record.slice(FINGERPRINT_LENGTH, -1), 36) * MINUTE_MS;
			const state = record.endsWith('d') ? 'done' : 'pending';
			const known = this.entries.get(fingerprint);
			if (known !== undefined && known.at >= at) continue;
			// A key this store already dropped at the cap would only be dropped again.
			if (known === undefined && this.isFull() && at <= this.oldestAt()) continue;
			this.entries.delete(fingerprint);
			this.entries.set(fingerprint, { at, state, saved: record });
			if (at < newestAt) outOfOrder = true;
			else newestAt = at;
		}
		if (outOfOrder) {
			this.entries = new Map([...this.entries].sort(([, a], [, b]) => a.at - b.at));
		}
		while (this.entries.size > this.limits.maxKeys) {
			this.entries.delete(this.entries.keys().next().value as string);
		}
	}

	/** State of a key: `new` when never seen or no longer remembered. */
	lookup(key: string, now: number): DedupState | 'new' {
		const entry = this.entries.get(fingerprintOf(key));
		if (entry === undefined || entry.at < now - this.limits.retentionMs) return 'new';
		return entry.state;
	}

	/** Records that a delivery of `key` starts a run, in the given state. */
	record(key: string, state: DedupState, now: number): void {
		const fingerprint = fingerprintOf(key);
		this.entries.delete(fingerprint);
		this.entries.set(fingerprint, entryOf(fingerprint, now, state));
		this.prune(now);
	}

	/** Records that a redelivery of a known key was seen, so it is kept for the full window. */
	touch(key: string, now: number): void {
		const fingerprint = fingerprintOf(key);
		const entry = this.entries.get(fingerprint);
		if (entry === undefined) return;
		this.entries.delete(fingerprint);
		this.entries.set(fingerprint, entryOf(fingerprint, Math.max(entry.at, now), entry.state));
	}

	private isFull(): boolean {
		return this.entries.size >= this.limits.maxKeys;
	}

	private oldestAt(): number {
		return this.entries.values().next().value?.at ?? -Infinity;
	}

	private newestAt(): number {
		let newest = -Infinity;
		for (const entry of this.entries.values()) newest = Math.max(newest, entry.at);
		return newest;
	}

	/** Drops expired keys, then the oldest beyond `maxKeys`: only entries at the front are visited. */
	prune(now: number): void {
		const oldestKept = now - this.limits.retentionMs;
		for (const [fingerprint, entry] of this.entries) {
			if (entry.at >= oldestKept && this.entries.size <= this.limits.maxKeys) break;
			this.entries.delete(fingerprint);
		}
	}

	toPersisted(): PersistedDedupStore {
		let records = '';
		for (const entry of this.entries.values()) records += entry.saved;
		return { records, writtenBy: this.id };
	}
}

interface RegisteredStore {
	store: IdempotencyKeyStore;
	lastUsed: number;
}

const storesByTrigger = new Map<string, RegisteredStore>();

/**
 * The in-memory store of one trigger node of one workflow. Stores unused for the retention time
 * are released, so deleted workflows do not keep memory.
 */
export function idempotencyKeyStoreOf(
	workflowId: string,
	nodeId: string,
	now: number,
	limits: DedupLimits = DEFAULT_DEDUP_LIMITS,
): IdempotencyKeyStore {
	for (const [id, registered] of storesByTrigger) {
		if (registered.lastUsed < now - limits.retentionMs) storesByTrigger.delete(id);
	}
	const id = `${workflowId}\u0000${nodeId}`;
	let registered = storesByTrigger.get(id);
	if (registered === undefined) {
		registered = { store: new IdempotencyKeyStore(limits), lastUsed: now };
		storesByTrigger.set(id, registered);
	}
	registered.lastUsed = now;
	return registered.store;
}

/** The idempotency key of a write back payload, or undefined when it carries none usable. */
export function idempotencyKeyOf(payload: IDataObject): string | undefined {
	const key = payload.idempotencyKey;
	if (typeof key === 'string' && key.trim() !== '') return key;
	if (typeof key === 'number' && Number.isFinite(key)) return String(key);
	return undefined;
}
