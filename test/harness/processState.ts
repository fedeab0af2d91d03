import {
	DEFAULT_ONCE_LIMITS,
	resetOnceState,
	state as onceState,
	type OnceLimits,
} from '../../nodes/shared/once/state';
import { DEFAULT_RECORD_TIMING, type RecordTiming } from '../../nodes/shared/recordApi/failure';
import { resetRecordApiState, state as recordApiState } from '../../nodes/shared/recordApi/state';

/**
 * What tests change of the package's process state, in one place: each module keeps its state in
 * its state.ts, and this is the only test code that reaches into it.
 */

/** Shorter waits for n8n's API (see recordApi/failure.ts), until resetRecordTiming. */
export const setRecordTiming = (timing: Partial<RecordTiming>) =>
	void Object.assign(recordApiState.timing, timing);

export const resetRecordTiming = () =>
	void Object.assign(recordApiState.timing, DEFAULT_RECORD_TIMING);

/** Smaller bounds and shorter waits for the record writes that wait (see once/state.ts), until resetOnceLimits. */
export const setOnceLimits = (limits: Partial<OnceLimits>) =>
	void Object.assign(onceState.limits, limits);

export const resetOnceLimits = () => void Object.assign(onceState.limits, DEFAULT_ONCE_LIMITS);

/** The package's modules as if this n8n process had just started. */
export function resetProcessState(): void {
	resetRecordApiState();
	resetOnceState();
}
