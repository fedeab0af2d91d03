/**
 * Everything the trigger keeps in this n8n process's memory, in one place: a cache and throttles,
 * none of which has to outlive the process (the once module keeps its own, see once/state.ts).
 */

export interface RefusalTally {
	reportedAt?: number;
	/** Refused since the last report (or since the first refusal). */
	refused: number;
	firstRefusedAt: number;
}

function freshState() {
	return {
		/** Decoded signing keys by credential id (see readSignedBody). */
		signingKeys: new Map<string, { key: Buffer; readAt: number }>(),
		/** Refusals counted per trigger node and cause, for the reports (see countRefusal). */
		refusals: new Map<string, RefusalTally>(),
		/** When each trigger node last asked for a report of write backs kept only in memory. */
		keptInMemoryAskedAt: new Map<string, number>(),
		/** Nonces of the report calls taken, each until a call carrying it could no longer pass as fresh (see reportCallOf). */
		reportNonces: new Map<string, number>(),
	};
}

export const triggerState = freshState();

/** For tests: the process as if it had just started. */
export function resetTriggerState(): void {
	Object.assign(triggerState, freshState());
}
