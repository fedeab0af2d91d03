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
const LEDGER_PATTERN = /^(?:[A-Za-z0-9_-]{12}[0-9a-z]{5})*$/;
const MINUTE_MS = 60_000;

/** A processed delivery: its fingerprint and the minute (since the epoch) of its last 2xx answer. */
export type ProcessedRecord = [fingerprint: string, minute: number];

export const minuteOf = (time: number) => Math.floor(time / MINUTE_MS);

/** The saved records; unreadable saved data counts as none, so it can never fail a call. */
function ledgerOf(staticData: IDataObject): string {
	const ledger = staticData[WRITE_BACK_LEDGER_KEY];
	return typeof ledger === 'string' && LEDGER_PATTERN.test(ledger) ? ledger : '';
}

function recordsOf(ledger: string): Map<string, number> {
	const records = new Map<string, number>();
	for (let start = 0; start < ledger.length; start += LEDGER_RECORD_LENGTH) {
		const fingerprint = ledger.slice(start, start + FINGERPRINT_LENGTH);
		records.delete(fingerprint);
		records.set(
			fingerprint,
			parseInt(ledger.slice(start + FINGERPRINT_LENGTH, start + LEDGER_RECORD_LENGTH), 36),
		);
	}
	return records;
}

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
		const minute = ledger.slice(at + FINGERPRINT_LENGTH, at + LEDGER_RECORD_LENGTH);
		if (parseInt(minute, 36) >= oldest) return true;
	}
	return false;
}

/**
 * Records processed deliveries (a later answer moves a record to the end), drops records past the
 * retention and, over the cap, the oldest ones. Assigning to the static data marks it changed, so
 * n8n saves it.
 */
export function recordProcessed(
	staticData: IDataObject,
	processed: ProcessedRecord[],
	now: number,
	limits: LedgerLimits = DEFAULT_LEDGER_LIMITS,
): void {
	const records = recordsOf(ledgerOf(staticData));
	for (const [fingerprint, minute] of [...processed].sort((a, b) => a[1] - b[1])) {
		if ((records.get(fingerprint) ?? -1) > minute) continue;
		records.delete(fingerprint);
		records.set(fingerprint, minute);
	}
	const oldest = minuteOf(now - limits.retentionMs);
	const kept = [...records].filter(([, minute]) => minute >= oldest);
	staticData[WRITE_BACK_LEDGER_KEY] = kept
		.slice(Math.max(0, kept.length - limits.maxEntries))
		.map(([fingerprint, minute]) => fingerprint + minute.toString(36).padStart(MINUTE_LENGTH, '0'))
		.join('');
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
