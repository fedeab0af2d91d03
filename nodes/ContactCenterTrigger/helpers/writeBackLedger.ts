import type { IDataObject, IRunExecutionData } from 'n8n-workflow';

/**
 * The durable record of processed write back deliveries (trigger version 2), kept in the trigger
 * node's workflow static data, which n8n stores with the workflow in its database:
 *
 *   fingerprint of the idempotency key -> minute (base 36) the delivery was last answered 2xx
 *
 * Only the n8n process that received the call writes it, when the run's 2xx answer goes out; n8n
 * saves the static data of a webhook call right after its answer (live-webhooks' response
 * callback). The run never writes it: a queue-mode worker starts new executions with empty static
 * data, and saving that would wipe the workflow's.
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

const MINUTE_MS = 60_000;
const MINUTE_PATTERN = /^[0-9a-z]{1,9}$/;

function ledgerEntries(staticData: IDataObject): IDataObject | undefined {
	const ledger = staticData[WRITE_BACK_LEDGER_KEY];
	if (ledger === null || typeof ledger !== 'object' || Array.isArray(ledger)) return undefined;
	return ledger as IDataObject;
}

function minuteOf(value: unknown): number | undefined {
	return typeof value === 'string' && MINUTE_PATTERN.test(value) ? parseInt(value, 36) : undefined;
}

/** Whether a delivery with this fingerprint was answered 2xx within the retention. */
export function wasProcessed(
	staticData: IDataObject,
	fingerprint: string,
	now: number,
	limits: LedgerLimits = DEFAULT_LEDGER_LIMITS,
): boolean {
	const minute = minuteOf(ledgerEntries(staticData)?.[fingerprint]);
	return minute !== undefined && minute >= Math.floor((now - limits.retentionMs) / MINUTE_MS);
}

/**
 * Records that the delivery was answered 2xx (again), drops entries past the retention and, over
 * the cap, the oldest ones. Assigning to the static data marks it changed, so n8n saves it.
 */
export function recordProcessed(
	staticData: IDataObject,
	fingerprint: string,
	now: number,
	limits: LedgerLimits = DEFAULT_LEDGER_LIMITS,
): void {
	const oldestMinute = Math.floor((now - limits.retentionMs) / MINUTE_MS);
	const kept: Array<[string, number]> = [];
	for (const [key, value] of Object.entries(ledgerEntries(staticData) ?? {})) {
		const minute = minuteOf(value);
		if (key === fingerprint || minute === undefined || minute < oldestMinute) continue;
		kept.push([key, minute]);
	}
	kept.sort((a, b) => a[1] - b[1]);
	const next: IDataObject = {};
	for (const [key, minute] of kept.slice(Math.max(0, kept.length - (limits.maxEntries - 1)))) {
		next[key] = minute.toString(36);
	}
	next[fingerprint] = Math.floor(now / MINUTE_MS).toString(36);
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
