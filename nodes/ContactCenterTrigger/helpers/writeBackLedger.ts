import type { IDataObject, IRunExecutionData } from 'n8n-workflow';

/**
 * The durable record of processed write back deliveries (trigger version 2), kept in the trigger
 * node's workflow static data, which n8n stores with the workflow in its database: one string of
 * fixed-width records, oldest first, each the fingerprint of an idempotency key (12 characters)
 * and the minute the delivery was last answered 2xx (5 characters, base 36). n8n loads a
 * workflow's static data for every webhook call and copies it into every execution it saves, so
 * the record is kept small and cheap to load: a string, not an object of 10 000 properties.
 *
 * Only the n8n process that received the call writes it, when the run's 2xx answer goes out; n8n
 * saves the static data of a webhook call right after its answer (live-webhooks' response
 * callback). The run never writes it: a queue-mode worker starts new executions with empty static
 * data, and saving that would wipe the workflow's.
 */
export const WRITE_BACK_LEDGER_KEY = 'writeBackLedger';

export interface LedgerLimits {
	/** How long a delivery is remembered after it was last answered. */
	retentionMs: number;
	/** At most this many deliveries; the oldest are dropped first. */
	maxEntries: number;
}

export const DEFAULT_LEDGER_LIMITS: LedgerLimits = {
	// The service's retries span 63 hours (1 + 2 + 4 + 8 + 16 + 32); a margin for clock skew.
	retentionMs: 72 * 60 * 60 * 1000,
	maxEntries: 10000,
};

const FINGERPRINT_LENGTH = 12;
const MINUTE_LENGTH = 5;
export const LEDGER_RECORD_LENGTH = FINGERPRINT_LENGTH + MINUTE_LENGTH;
const MINUTE_MS = 60_000;

/** A processed delivery: its fingerprint and the minute (since the epoch) of its last 2xx answer. */
export type ProcessedRecord = [fingerprint: string, minute: number];

export const minuteOf = (time: number) => Math.floor(time / MINUTE_MS);

/**
 * The saved records; saved data that is not a string of whole records counts as none, so it can
 * never fail a call. Not matched against a pattern, which would read up to 170 KB on every call: a
 * damaged record is only a record that matches no delivery.
 */
function ledgerOf(staticData: IDataObject): string {
	const ledger = staticData[WRITE_BACK_LEDGER_KEY];
	return typeof ledger === 'string' && ledger.length % LEDGER_RECORD_LENGTH === 0 ? ledger : '';
}

const minuteAt = (ledger: string, at: number) =>
	parseInt(ledger.slice(at + FINGERPRINT_LENGTH, at + LEDGER_RECORD_LENGTH), 36);

const minuteText = (minute: number) => minute.toString(36).padStart(MINUTE_LENGTH, '0');

const recordOf = (fingerprint: string, minute: number) => fingerprint + minuteText(minute);

/** Records read back beyond twice the ones being recorded (see recordProcessed). */
const TAIL_SLACK_RECORDS = 256;

/** Whether a delivery with this fingerprint was answered 2xx within the retention. */
export function wasProcessed(
	staticData: IDataObject,
	fingerprint: string,
	now: number,
	limits: LedgerLimits = DEFAULT_LEDGER_LIMITS,
): boolean {
	const ledger = ledgerOf(staticData);
	const oldest = minuteOf(now - limits.retentionMs);
	for (let at = ledger.indexOf(fingerprint); at !== -1; at = ledger.indexOf(fingerprint, at + 1)) {
		if (at % LEDGER_RECORD_LENGTH !== 0) continue;
		if (minuteAt(ledger, at) >= oldest) return true;
	}
	return false;
}

/**
 * Records processed deliveries: a later answer of a delivery replaces its record and moves it to
 * the end; records past the retention and, over the cap, the oldest ones are dropped from the
 * front. Assigning to the static data marks it changed, so n8n saves it.
 *
 * Deliveries are recorded when they are answered, so the ones recorded again (a process merges in
 * the deliveries it answered lately) are among the last records: only that tail is read, new
 * records are appended, and the tail is rewritten only when one of its records moves. A call costs
 * about the same with 10 records or 10 000. A delivery whose older record lies further back gets
 * a second, newer record; the older one ages out first.
 */
export function recordProcessed(
	staticData: IDataObject,
	processed: ProcessedRecord[],
	now: number,
	limits: LedgerLimits = DEFAULT_LEDGER_LIMITS,
): void {
	const ledger = ledgerOf(staticData);
	const tailRecords = 2 * processed.length + TAIL_SLACK_RECORDS;
	const tailStart = Math.max(0, ledger.length - tailRecords * LEDGER_RECORD_LENGTH);
	const lastInTail = new Map<string, number>();
	for (let at = tailStart; at < ledger.length; at += LEDGER_RECORD_LENGTH) {
		lastInTail.set(ledger.slice(at, at + FINGERPRINT_LENGTH), at);
	}
	const added = new Map<string, number>();
	let moves = false;
	for (const [fingerprint, minute] of [...processed].sort((a, b) => a[1] - b[1])) {
		const at = lastInTail.get(fingerprint);
		if (at !== undefined) {
			// Minutes are fixed-width base 36 ('0' < '9' < 'a' < 'z'): compared as text, unparsed.
			const saved = ledger.slice(at + FINGERPRINT_LENGTH, at + LEDGER_RECORD_LENGTH);
			if (saved >= minuteText(minute)) continue;
			moves = true;
		}
		added.delete(fingerprint);
		added.set(fingerprint, minute);
	}
	let merged = moves ? ledger.slice(0, tailStart) : ledger;
	if (moves) {
		for (let at = tailStart; at < ledger.length; at += LEDGER_RECORD_LENGTH) {
			const fingerprint = ledger.slice(at, at + FINGERPRINT_LENGTH);
			if (!added.has(fingerprint) && lastInTail.get(fingerprint) === at) {
				merged += ledger.slice(at, at + LEDGER_RECORD_LENGTH);
			}
		}
	}
	for (const [fingerprint, minute] of added) merged += recordOf(fingerprint, minute);

	const oldest = minuteOf(now - limits.retentionMs);
	let start = Math.max(0, merged.length - limits.maxEntries * LEDGER_RECORD_LENGTH);
	while (start < merged.length && minuteAt(merged, start) < oldest) start += LEDGER_RECORD_LENGTH;
	staticData[WRITE_BACK_LEDGER_KEY] = merged.slice(start);
}

export type RunOutcome = 'succeeded' | 'failed' | 'unknown';

/**
 * What n8n's saved execution says about a run. `unknown` when n8n keeps no record of it (not
 * saved, pruned) or the record is not one of a finished run (still running, or its worker died
 * before it ended).
 */
export function outcomeOfRun(
	run: IRunExecutionData | undefined,
	startNodeName: string,
): RunOutcome {
	if (run === undefined || run === null || typeof run !== 'object') return 'unknown';
	const { resultData } = run;
	if (resultData === undefined) return 'unknown';
	if (resultData.error !== undefined && resultData.error !== null) return 'failed';
	const lastNode = resultData.lastNodeExecuted;
	const runData = resultData.runData ?? {};
	if (lastNode !== undefined && runData[lastNode]?.at(-1)?.error) return 'failed';
	const pending = run.executionData?.nodeExecutionStack?.length ?? 0;
	if (pending > 0 || runData[startNodeName] === undefined || lastNode === undefined) {
		return 'unknown';
	}
	return 'succeeded';
}

/** Claims cover a delivery for this long: a duplicate sent meanwhile is answered "in progress". */
export const CLAIM_WINDOW_MS = 15 * 60 * 1000;

/**
 * The processed-data items that claim a delivery: its fingerprint in the current and in the
 * previous claim window, so that two deliveries on either side of a window boundary still meet.
 */
export function claimItems(fingerprint: string, now: number): string[] {
	const window = Math.floor(now / CLAIM_WINDOW_MS);
	return [`${fingerprint}@${window}`, `${fingerprint}@${window - 1}`];
}

/** The item only this run records with its claim, to see afterwards whether its write survived. */
export function claimToken(fingerprint: string, executionId: string): string {
	return `${fingerprint}!${executionId}`;
}

export type WriteBackStatus = 'processed' | 'duplicate' | 'inProgress' | 'ignored';

/** Every write back answer has this shape, whatever happened. */
export interface WriteBackAnswer extends IDataObject {
	received: boolean;
	duplicate: boolean;
	idempotencyKey: string | null;
	status: WriteBackStatus;
}

export function writeBackAnswer(
	status: WriteBackStatus,
	idempotencyKey: string | undefined,
): { statusCode: number; body: WriteBackAnswer } {
	return {
		// 409 for a delivery in progress: not 2xx, so the service delivers it again later and
		// nothing is lost should the run in progress fail.
		statusCode: status === 'inProgress' ? 409 : 200,
		body: {
			received: status !== 'inProgress',
			duplicate: status === 'duplicate' || status === 'inProgress',
			idempotencyKey: idempotencyKey ?? null,
			status,
		},
	};
}
