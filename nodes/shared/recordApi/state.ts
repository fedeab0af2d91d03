import type { KeyExpiry } from './apiKey';
import { DEFAULT_RECORD_TIMING, type RecordTiming } from './failure';

// All the record API client keeps in this process's memory; what belongs to one key is in its
// KeyMemory (by RecordTarget.cacheKey), so two keys never share an entry.

export interface RecordTarget {
	baseUrl: string;
	tableName: string;
	apiKey: string;
	expiry: KeyExpiry;
	cacheKey: string; // API URL, table name and a fingerprint of the key
	readAt: number;
	storageLimitBytes: number; // n8n's N8N_DATA_TABLES_MAX_SIZE_BYTES, or the credential's own limit
	credentialId?: string;
}

export interface KeyMemory {
	lastCallFailed: boolean;
	fullStorage?: { message: string; at: number }; // n8n's last size limit refusal of a write
	storageUsage?: { usedBytes: number; readAt: number; loggedAt?: number }; // n8n's data table sizes
	sizesUnreadLoggedAt?: number; // when n8n's log last said the sizes could not be read
}

const freshState = () => ({
	credentials: new Map<string, RecordTarget>(), // by credential id
	keys: new Map<string, KeyMemory>(),
	timing: { ...DEFAULT_RECORD_TIMING } as RecordTiming, // tests shorten it
});
export const state = freshState();

export function memoryOfKey(target: RecordTarget): KeyMemory {
	let memory = state.keys.get(target.cacheKey);
	if (memory === undefined) state.keys.set(target.cacheKey, (memory = { lastCallFailed: false }));
	return memory;
}

/** For tests: the process as if it had just started. */
export function resetRecordApiState(): void {
	Object.assign(state, freshState());
}
