import { DEFAULT_RECORD_WINDOWS, recordKeyOf, type Work } from './rows';
import type { Hold } from './state';

/*
 * Holds: the work this n8n process is handling right now, by record key (state.holds, see strategies.ts). In the
 * one-process strategy a hold lasts from its claim until the work is finished or released and
 * replaces the claim row in the record, so a new delivery costs one insert there instead of an
 * insert, a read and an update; in the shared-table strategy it lasts while the claim is decided
 * and keeps a second call of this process from slipping past a claim before its row is written.
 * A hold lapses like a claim row: a run that never ends blocks redeliveries no longer.
 */
const HOLD_LAPSE_MS = DEFAULT_RECORD_WINDOWS.claimMs;

/** Holds the work for the caller unless a live hold of this process has it: the hold, or undefined. */
export function claimHold(
	holds: Map<string, Hold>,
	work: Work,
	now = Date.now(),
): Hold | undefined {
	for (const [key, held] of holds) {
		if (held.since > now - HOLD_LAPSE_MS) break;
		holds.delete(key);
	}
	const recordKey = recordKeyOf(work.scope, work.key);
	if (holds.has(recordKey)) return undefined;
	const hold = { recordKey, since: now };
	holds.set(recordKey, hold);
	return hold;
}

/** Releases a hold, unless it lapsed and another call holds the work now. */
export function releaseHold(holds: Map<string, Hold>, hold: Hold | undefined): void {
	if (hold !== undefined && holds.get(hold.recordKey) === hold) holds.delete(hold.recordKey);
}
