import type { IDataObject } from 'n8n-workflow';

/**
 * Idempotency-key store for write back deliveries, kept in the trigger node's workflow static data.
 *
 * - `done`: the delivery was accepted with a 2xx; a redelivery is answered 2xx and runs nothing.
 * - `pending`: the workflow was started but its outcome decides the answer ("when the workflow
 *   finishes" mode). The service only redelivers an event it did not get a 2xx for, so a
 *   redelivery of a pending key runs the workflow again: a failed run never loses the event.
 */
export type DedupState = 'done' | 'pending';

export interface DedupEntry extends IDataObject {
	/** Last time (epoch ms) the key was seen. */
	at: number;
	state: DedupState;
	/** How many deliveries of the key started a run. */
	runs: number;
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

/** Name of the static-data property holding the store. */
export const DEDUP_STATIC_KEY = 'writeBackIdempotencyKeys';

export type DedupStore = Record<string, DedupEntry>;

function isEntry(value: unknown): value is DedupEntry {
	if (value === null || typeof value !== 'object') return false;
	const entry = value as IDataObject;
	return (
		typeof entry.at === 'number' &&
		Number.isFinite(entry.at) &&
		(entry.state === 'done' || entry.state === 'pending')
	);
}

/** The store inside the node's static data, created when missing or unreadable. */
export function getDedupStore(staticData: IDataObject): DedupStore {
	const current = staticData[DEDUP_STATIC_KEY];
	if (current === null || typeof current !== 'object' || Array.isArray(current)) {
		staticData[DEDUP_STATIC_KEY] = {};
	}
	return staticData[DEDUP_STATIC_KEY] as DedupStore;
}

/** Drops expired or unreadable entries, then the oldest ones beyond `maxKeys`. */
export function pruneDedupStore(store: DedupStore, now: number, limits: DedupLimits): void {
	const oldestKept = now - limits.retentionMs;
	for (const [key, entry] of Object.entries(store)) {
		if (!isEntry(entry) || entry.at < oldestKept) delete store[key];
	}
	const keys = Object.keys(store);
	if (keys.length <= limits.maxKeys) return;
	const byAge = keys.sort((a, b) => store[a].at - store[b].at);
	for (const key of byAge.slice(0, keys.length - limits.maxKeys)) delete store[key];
}

/** State of a key: `new` when never seen or no longer remembered. */
export function lookupKey(
	store: DedupStore,
	key: string,
	now: number,
	limits: DedupLimits,
): DedupState | 'new' {
	const entry = store[key];
	if (!isEntry(entry) || entry.at < now - limits.retentionMs) return 'new';
	return entry.state;
}

/** Records that a delivery of `key` starts a run, in the given state. */
export function recordRun(
	store: DedupStore,
	key: string,
	state: DedupState,
	now: number,
	limits: DedupLimits,
): void {
	const previous = store[key];
	const runs = isEntry(previous) && typeof previous.runs === 'number' ? previous.runs + 1 : 1;
	// Delete first so that the key moves to the end of the insertion order.
	delete store[key];
	store[key] = { at: now, state, runs };
	pruneDedupStore(store, now, limits);
}

/** Records that a redelivery of an already accepted key was seen, so it is kept for the full window. */
export function touchKey(store: DedupStore, key: string, now: number): void {
	const entry = store[key];
	if (isEntry(entry)) entry.at = Math.max(entry.at, now);
}

/** The idempotency key of a write back payload, or undefined when it carries none usable. */
export function idempotencyKeyOf(payload: IDataObject): string | undefined {
	const key = payload.idempotencyKey;
	if (typeof key === 'string' && key.trim() !== '') return key;
	if (typeof key === 'number' && Number.isFinite(key)) return String(key);
	return undefined;
}
