import type { KeyExpiry } from './apiKey';
import { DEFAULT_RECORD_TIMING, type RecordTiming } from './failure';

/**
 * Everything the record API client keeps in this n8n process's memory, in one place: caches and
 * beliefs about n8n's API, none of which has to outlive the process. What belongs to one key
 * (by RecordTarget.cacheKey) is in that key's object, so two keys never share an entry.
 */

/** The record credential as read (see client.ts targetOf). */
export interface RecordTarget {
	baseUrl: string;
	tableName: string;
	apiKey: string;
	expiry: KeyExpiry;
	/** API URL, table name and a fingerprint of the key: nothing cached is shared by two keys. */
	cacheKey: string;
	/** When the credential was read (ms since the epoch). */
	readAt: number;
	/** N8N_DATA_TABLES_MAX_SIZE_BYTES: n8n's default, or the credential's Custom Storage Limit. */
	storageLimitBytes: number;
	credentialId?: string;
}

/** n8n's data table sizes as last read (see storage.ts). */
export interface Usage {
	usedBytes: number;
	readAt: number;
	loggedAt?: number;
}

export interface KeyMemory {
	/** Whether the last call failed: the once module's indexes answer no longer (see keyUsable). */
	lastCallFailed: boolean;
	/** n8n's words of its last size limit refusal of a write, and when. */
	fullStorage?: { message: string; at: number };
	/** Data table sizes as last read. */
	storageUsage?: Usage;
}

function freshState() {
	return {
		/** Record credentials read, by credential id (see targetOf). */
		credentials: new Map<string, RecordTarget>(),
		keys: new Map<string, KeyMemory>(),
		/** How long the record waits for n8n's API (see failure.ts); tests shorten it. */
		timing: { ...DEFAULT_RECORD_TIMING } as RecordTiming,
	};
}

export const state = freshState();

export function memoryOfKey(target: RecordTarget): KeyMemory {
	let memory = state.keys.get(target.cacheKey);
	if (memory === undefined) {
		memory = { lastCallFailed: false };
		state.keys.set(target.cacheKey, memory);
	}
	return memory;
}

/** For tests: the process as if it had just started. */
export function resetRecordApiState(): void {
	Object.assign(state, freshState());
}
