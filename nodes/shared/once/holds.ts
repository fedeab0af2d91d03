import { DEFAULT_RECORD_WINDOWS, recordKeyOf, type Work } from './rows';
import type { Hold } from './state';

export type { Hold } from './state';

// A hold: one process, it stands for the claim row from claim to finish or release; shared table,
// it keeps a second call of this process from slipping past a claim before its row is written. It
// lapses like a claim row, so a run that never ends does not block redeliveries for ever.
const HOLD_LAPSE_MS = DEFAULT_RECORD_WINDOWS.claimMs;

/** Holds the work unless a live hold of this process has it: the hold, or undefined. */
export function claimHold(holds: Map<string, Hold>, work: Work, now = Date.now()) {
	for (const [key, held] of holds) {
		if (held.since > now - HOLD_LAPSE_MS) break;
		holds.delete(key);
	}
	const recordKey = recordKeyOf(work.scope, work.key);
	if (holds.has(recordKey)) return undefined;
	const hold: Hold = { recordKey, since: now };
	holds.set(recordKey, hold);
	return hold;
}

/** Releases a hold, unless it lapsed and another call holds the work now. */
export function releaseHold(holds: Map<string, Hold>, hold: Hold | undefined): void {
	if (hold !== undefined && holds.get(hold.recordKey) === hold) holds.delete(hold.recordKey);
}
