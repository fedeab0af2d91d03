import type { IDataObject, IRunExecutionData } from 'n8n-workflow';

/**
 * The durable record of write back deliveries (trigger version 2), kept in the trigger node's
 * workflow static data, which n8n stores with the workflow in its database and saves at the end
 * of every run, failed or not, in whichever process ran it:
 *
 *   fingerprint of the idempotency key -> "<minute of the last delivery, base 36>:<execution id>"
 *
 * The execution is the run that last took the delivery on. Whether that run succeeded is read
 * from n8n's saved execution, never assumed: a run that failed, or whose worker died, leaves no
 * success behind, so its redelivery runs again and nothing is lost.
 */
export const WRITE_BACK_LEDGER_KEY = 'writeBackLedger';

export interface LedgerLimits {
	/** How long a delivery is remembered after it was last seen. */
	retentionMs: number;
	/** At most this many deliveries; the oldest are dropped first. */
	maxEntries: number;
}

export const DEFAULT_LEDGER_LIMITS: LedgerLimits = {
	// The service's retries span 63 hours (1 + 2 + 4 + 8 + 16 + 32); a margin for clock skew.
	retentionMs: 72 * 60 * 60 * 1000,
	maxEntries: 10000,
};

export interface LedgerEntry {
	executionId: string;
	/** Minutes since the epoch of the last delivery. */
	minute: number;
}

const MINUTE_MS = 60_000;
const ENTRY_PATTERN = /^([0-9a-z]{1,9}):(.+)$/;

function ledgerOf(staticData: IDataObject): IDataObject {
	const ledger = staticData[WRITE_BACK_LEDGER_KEY];
	if (ledger !== null && typeof ledger === 'object' && !Array.isArray(ledger)) {
		return ledger as IDataObject;
	}
	const fresh: IDataObject = {};
	staticData[WRITE_BACK_LEDGER_KEY] = fresh;
	return fresh;
}

function parseEntry(value: unknown): LedgerEntry | undefined {
	if (typeof value !== 'string') return undefined;
	const match = ENTRY_PATTERN.exec(value);
	if (match === null) return undefined;
	return { minute: parseInt(match[1], 36), executionId: match[2] };
}

/** The last run that took on the delivery with this fingerprint; unreadable entries count as none. */
export function readLedgerEntry(
	staticData: IDataObject,
	fingerprint: string,
): LedgerEntry | undefined {
	const ledger = staticData[WRITE_BACK_LEDGER_KEY];
	if (ledger === null || typeof ledger !== 'object' || Array.isArray(ledger)) return undefined;
	return parseEntry((ledger as IDataObject)[fingerprint]);
}

/**
 * Records that `executionId` took on the delivery, drops entries past the retention and, over the
 * cap, the oldest ones. Assigning to the static data marks it changed, so n8n saves it after the run.
 */
export function recordLedgerEntry(
	staticData: IDataObject,
	fingerprint: string,
	executionId: string,
	now: number,
	limits: LedgerLimits = DEFAULT_LEDGER_LIMITS,
): void {
	const ledger = ledgerOf(staticData);
	const minute = Math.floor(now / MINUTE_MS);
	const oldestMinute = Math.floor((now - limits.retentionMs) / MINUTE_MS);
	const kept: Array<[string, LedgerEntry]> = [];
	for (const [key, value] of Object.entries(ledger)) {
		const entry = parseEntry(value);
		if (key === fingerprint || entry === undefined || entry.minute < oldestMinute) continue;
		kept.push([key, entry]);
	}
	kept.sort((a, b) => a[1].minute - b[1].minute);
	const survivors = kept.slice(Math.max(0, kept.length - (limits.maxEntries - 1)));
	const next: IDataObject = {};
	for (const [key, entry] of survivors) {
		next[key] = `${entry.minute.toString(36)}:${entry.executionId}`;
	}
	next[fingerprint] = `${minute.toString(36)}:${executionId}`;
	staticData[WRITE_BACK_LEDGER_KEY] = next;
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
 * previous claim window, so that two deliveries on either side of a window boundary still meet,
 * and the run the ledger last named for it, so that a redelivery after a failed run claims anew.
 */
export function claimItems(fingerprint: string, now: number, previousExecutionId = ''): string[] {
	const window = Math.floor(now / CLAIM_WINDOW_MS);
	return [window, window - 1].map((w) => `${fingerprint}@${w}#${previousExecutionId}`);
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
