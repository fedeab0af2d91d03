import { DEFAULT_RECORD_WINDOWS } from './rows';
import { state } from './state';

/**
 * The work this n8n process is handling right now, by row key: from its begin until it is
 * finished or abandoned. In the one-process strategy a hold replaces the claim row in the record,
 * so a new delivery costs one insert there instead of an insert, a read and an update; in the
 * shared-table strategy it keeps a second call of this process from slipping past a claim before
 * its row is written. Nothing here has to outlive the process: the work dies with it.
 */

/** A hold lapses like a claim row: a run that never ends blocks redeliveries no longer. */
const HOLD_LAPSE_MS = DEFAULT_RECORD_WINDOWS.claimMs;

/** Holds the key for the caller unless a live hold of this process has it. */
export function holdHere(rowKey: string, now: number): boolean {
	for (const [key, since] of state.holds) {
		if (since > now - HOLD_LAPSE_MS) break;
		state.holds.delete(key);
	}
	if (state.holds.has(rowKey)) return false;
	state.holds.set(rowKey, now);
	return true;
}

export function releaseHold(rowKey: string): void {
	state.holds.delete(rowKey);
}

/** How many deliveries this process holds (each records its key when its run gets there). */
export function heldDeliveries(): number {
	return state.holds.size;
}
