import type { RecordTarget } from './client';
import type { Usage } from './storage';

/**
 * Everything the record API client keeps in this n8n process's memory, in one place: caches and
 * beliefs about n8n's API, none of which has to outlive the process. What belongs to one key
 * (by RecordTarget.cacheKey) is in that key's object, so two keys never share an entry.
 */

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
