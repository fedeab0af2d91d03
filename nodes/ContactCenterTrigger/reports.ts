import { createHmac, randomBytes } from 'crypto';

import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';

import { operationError } from '../shared/operationError';
import { SIGNING_SECRET_CREDENTIAL, type Endpoint } from './description';
import { triggerState } from './processState';
import { writeJsonResponse, type MinimalResponse } from './request';
import {
	computeSignature,
	decodeSigningSecret,
	readHeader,
	SIGNATURE_HEADER,
	verifySignature,
} from './signature';

/**
 * Nothing fails silently: a call the trigger refuses (401, 400, 500, 503) starts no run of the
 * workflow's nodes, but it is reported where ops teams look. The refused call's webhook, after its
 * answer is written, hands n8n a report item (`noWebhookResponse` with `workflowData`, which n8n's
 * webhook-helpers.js runs like any webhook's data); the trigger's execute() meets it first in that
 * run and fails there with the cause and the fix. So the executions list shows a failed execution,
 * the workflow's Error Workflow runs (n8n starts it for a failed execution of any mode but manual:
 * execution-lifecycle-hooks.js, in one process and on a queue-mode worker alike) and n8n's log has
 * a warning. At most one report per cause per trigger node per REPORT_INTERVAL_MS in each n8n
 * process; the calls refused in between are counted in the next one.
 */

export type RefusalCause =
	| 'signatureMismatch'
	| 'signatureMissing'
	| 'signingCredential'
	| 'notJsonObject'
	| 'storageFull'
	| 'recordKey'
	| 'apiUnavailable'
	| 'apiRateLimited'
	| 'recordUnusable'
	| 'reportOtherTrigger'
	| 'reportStale'
	| 'reportReplayed';

/** What a report is about: calls refused, or write backs processed whose key only memory holds. */
type ReportCause = RefusalCause | 'keptInMemory';

export const REPORT_INTERVAL_MS = 5 * 60_000;

export interface Refusal {
	cause: RefusalCause;
	/** The HTTP status the service got. */
	status: number;
	/** What the service was told, as the answer's `message`. */
	answer: string;
	/** The cause in the user's words: the start of the report's message. */
	what: string;
	/** How to fix it: the start of the report's description. */
	fix: string;
	/** What the sender does meanwhile, where it is not the service (SERVICE_AGAIN). */
	again?: string;
}

/**
 * Counts a refusal; returns the count to report now (the first refusal, or the first after
 * REPORT_INTERVAL_MS since the last report), or undefined while the last report is recent.
 */
export function countRefusal(
	nodeKey: string,
	cause: ReportCause,
	now = Date.now(),
): { refused: number; since: number } | undefined {
	const key = `${nodeKey} ${cause}`;
	const tallies = triggerState.refusals;
	const tally = tallies.get(key) ?? { refused: 0, firstRefusedAt: now };
	// "since" is the first refusal the report counts, not one an earlier report counted.
	if (tally.refused === 0) tally.firstRefusedAt = now;
	tally.refused++;
	tallies.set(key, tally);
	if (tally.reportedAt !== undefined && now - tally.reportedAt < REPORT_INTERVAL_MS)
		return undefined;
	const due = { refused: tally.refused, since: tally.firstRefusedAt };
	tallies.set(key, { reportedAt: now, refused: 0, firstRefusedAt: now });
	return due;
}

const SERVICE_AGAIN: Record<Endpoint, string> = {
	writeBack:
		'The service delivers each refused write back again after 1, 2, 4, 8, 16 and 32 hours and gives up 63 hours after the first try: fix the cause before then and none is lost.',
	lookup: 'The service does not ask again: the agent saw no lookup result for these calls.',
	notification:
		'The service does not document whether it sends a refused notification again; count it as lost.',
};

const ENDPOINT_NAME: Record<Endpoint, string> = {
	writeBack: 'write back',
	lookup: 'lookup',
	notification: 'notification',
};

/** Beside `json` on the report item, so that no body the service sends can pass for a report. */
const REPORT_FIELD = 'contactCenterReport';

const nodeKeyOf = (context: IWebhookFunctions | IExecuteFunctions) =>
	`${context.getWorkflow().id ?? ''} ${context.getNode().webhookId ?? context.getNode().id}`;

const calls = (n: number) => (n === 1 ? '1 call' : `${n} calls`);

/**
 * Answers a refused call and, when a report is due, hands n8n the report run. The editor's test
 * URL is answered the same way but never reported: whoever sent it is looking at the answer.
 */
export function refuse(
	context: IWebhookFunctions,
	endpoint: Endpoint,
	refusal: Refusal,
): IWebhookResponseData {
	const res = context.getResponseObject() as unknown as MinimalResponse;
	writeJsonResponse(res, refusal.status, { message: refusal.answer });
	if (context.getMode() === 'manual') return { noWebhookResponse: true };
	const due = countRefusal(nodeKeyOf(context), refusal.cause);
	if (due === undefined) return { noWebhookResponse: true };
	return reportRun(context, {
		cause: refusal.cause,
		message: `${refusal.what}: ${calls(due.refused)} to the ${ENDPOINT_NAME[endpoint]} URL refused (${refusal.status}) since ${new Date(due.since).toISOString()}`,
		description: `${refusal.fix} ${refusal.again ?? SERVICE_AGAIN[endpoint]} ${REPORT_BOUND}`,
		status: refusal.status,
		refusedCalls: due.refused,
		since: new Date(due.since).toISOString(),
	});
}

const REPORT_BOUND = `This trigger reports each cause at most once every ${REPORT_INTERVAL_MS / 60_000} minutes in each n8n process; the calls refused in between are counted in the next report.`;

/** Logs the report and hands n8n its run, which fails at the trigger (see failWithReport). */
function reportRun(
	context: IWebhookFunctions,
	report: IDataObject & { cause: ReportCause; message: string },
): IWebhookResponseData {
	context.logger.warn(`Contact Center Trigger "${context.getNode().name}": ${report.message}`, {
		workflowId: context.getWorkflow().id,
		cause: report.cause,
	});
	return { noWebhookResponse: true, workflowData: [[{ json: report, [REPORT_FIELD]: 1 }]] };
}

/**
 * A write back that ran and was answered 200 while n8n's API did not take its `done` row is held
 * as done only in the memory of the process that ran it (see ../shared/once). A run cannot start
 * another run, and in queue mode only a call reaches a process that can: so that process asks for
 * the report the way the service calls, a call to the trigger's own Write Back URL. The URL travels
 * from the webhook call to the run beside the item's `json`, like the ticket, so that it also
 * reaches a queue-mode worker.
 *
 * The call is told apart by a header no delivery carries: a signature with a key derived from the
 * secret key (REPORT_KEY_LABEL), so a delivery is processed as a delivery whatever its body holds.
 * Its body, which both signatures cover, carries the trigger's webhook id, its time and a nonce: a
 * call for another trigger with the same secret, one more than REPORT_CALL_FRESH_MS off this
 * process's clock, or one this process has taken already is refused, and reported like any refused
 * call. Nonces are kept in each process only: in queue mode a captured call can be taken once by
 * each webhook process within REPORT_CALL_FRESH_MS, which only repeats a report already made (see
 * docs/trigger.md); the store every process shares is n8n's API, the very thing failing when
 * this report is made.
 */
const REPORT_URL_FIELD = 'contactCenterReportUrl';
const REPORT_HEADER = 'x-contact-center-report';
const REPORT_KEY_LABEL = 'n8n-nodes-contact-center kept-in-memory report';
const REPORT_CALL_FRESH_MS = 60_000;
/** A run that could not reach the URL leaves the next run of this process to ask again this much later. */
const REPORT_CALL_RETRY_MS = 60_000;

const reportKeyOf = (signingKey: Buffer) =>
	createHmac('sha256', signingKey).update(REPORT_KEY_LABEL).digest();

/** The trigger a report call is for: its webhook id, as in its URL. */
const webhookIdOf = (context: IWebhookFunctions | IExecuteFunctions) =>
	context.getNode().webhookId ?? context.getNode().id;

export function carryReportUrl(context: IWebhookFunctions, item: INodeExecutionData): void {
	const url = context.getNodeWebhookUrl('default');
	if (url !== undefined) item[REPORT_URL_FIELD] = url;
}

export function withoutReportUrl(items: INodeExecutionData[]): INodeExecutionData[] {
	return items.map((item) => {
		if (!(REPORT_URL_FIELD in item)) return item;
		const copy = { ...item };
		delete copy[REPORT_URL_FIELD];
		return copy;
	});
}

/**
 * In the run that just finished: asks for a report of the write backs kept only in memory, at
 * most once every REPORT_INTERVAL_MS per trigger node in this process. Never throws. Where the
 * call does not get through, n8n's log says so at warn and the next write back run of this process
 * asks again from REPORT_CALL_RETRY_MS on.
 */
export async function askForKeptInMemoryReport(
	context: IExecuteFunctions,
	item: INodeExecutionData | undefined,
	kept: number,
): Promise<void> {
	if (kept === 0) return;
	const nodeKey = nodeKeyOf(context);
	const now = Date.now();
	const askedAt = triggerState.keptInMemoryAskedAt.get(nodeKey);
	if (askedAt !== undefined && now - askedAt < REPORT_INTERVAL_MS) return;
	triggerState.keptInMemoryAskedAt.set(nodeKey, now);
	const cannotReport = (why: string) => {
		triggerState.keptInMemoryAskedAt.set(nodeKey, now - REPORT_INTERVAL_MS + REPORT_CALL_RETRY_MS);
		context.logger.warn(
			`Contact Center Trigger "${context.getNode().name}": ${kept} processed write back(s) are kept as done only in this process's memory, and they could not be reported as a failed execution: ${why}. The next write back run of this process tries again.`,
		);
	};
	const url = item?.[REPORT_URL_FIELD];
	if (typeof url !== 'string') {
		return cannotReport(
			'this run did not come from a webhook call of this trigger (n8n started it again after a restart)',
		);
	}
	try {
		const credentials = await context.getCredentials(SIGNING_SECRET_CREDENTIAL);
		const secret = decodeSigningSecret(credentials.secret);
		if (!secret.ok) return cannotReport(`the signing secret cannot be used (${secret.detail})`);
		const body = Buffer.from(
			JSON.stringify({
				keptInMemory: kept,
				webhookId: webhookIdOf(context),
				at: now,
				nonce: randomBytes(12).toString('hex'),
			}),
		);
		const answer = (await context.helpers.httpRequest({
			method: 'POST',
			url,
			body,
			headers: {
				'content-type': 'application/json',
				[SIGNATURE_HEADER]: computeSignature(secret.key, body),
				[REPORT_HEADER]: computeSignature(reportKeyOf(secret.key), body),
			},
			timeout: 10_000,
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
		})) as { statusCode?: number; body?: unknown };
		if (answer.statusCode !== 202) {
			return cannotReport(
				`the call to this trigger's Production URL ${url} was answered ${answer.statusCode ?? 'without a status'} (${answerMessageOf(answer.body)}), not taken as a report`,
			);
		}
	} catch (error) {
		cannotReport(
			`the call to this trigger's Production URL ${url} failed (${(error as Error).message}); check that n8n's WEBHOOK_URL reaches this n8n from this process`,
		);
	}
}

/** The `message` of the trigger's answer, for the log of the run whose report call was not taken. */
function answerMessageOf(body: unknown): string {
	let parsed = body;
	if (Buffer.isBuffer(parsed)) parsed = parsed.toString('utf8');
	if (typeof parsed === 'string') {
		try {
			parsed = JSON.parse(parsed);
		} catch {
			// Safe to ignore: an answer that is not JSON is quoted as its text below.
		}
	}
	const message = (parsed as IDataObject | undefined)?.message;
	if (typeof message === 'string') return message;
	return typeof parsed === 'string' && parsed !== '' ? parsed.slice(0, 300) : 'no message';
}

/** A signed write back call that is the trigger's own report call: the count to report, or why it is refused. */
export type ReportCall = { kept: number } | { refusal: Refusal };

const iso = (ms: number) => new Date(ms).toISOString();
const writeBacks = (n: number) => (n === 1 ? '1 write back' : `${n} write backs`);
const RUN_ASKS_AGAIN =
	'The write back run that made the call logs at warn that it could not report, and the next write back run of that n8n process asks again a minute later.';

/**
 * Whether a signed write back call is the trigger's own report call (see above): the count to
 * report, a refusal for one made for another trigger, stale or replayed, or undefined for a delivery.
 */
export function reportCallOf(
	context: IWebhookFunctions,
	signed: { body: IDataObject; rawBody: Buffer; key: Buffer },
): ReportCall | undefined {
	const headers = (context.getRequestObject() as unknown as { headers?: Record<string, unknown> })
		.headers;
	const header = readHeader(headers, REPORT_HEADER);
	if (header === undefined) return undefined;
	if (!verifySignature(signed.rawBody, header, reportKeyOf(signed.key)).valid) return undefined;
	const { keptInMemory, webhookId, at, nonce } = signed.body;
	const kept =
		typeof keptInMemory === 'number' && Number.isInteger(keptInMemory) && keptInMemory > 0
			? keptInMemory
			: 0;
	const ours = webhookIdOf(context);
	if (webhookId !== ours)
		return { refusal: otherTriggerRefusal(String(webhookId ?? 'none'), ours) };
	const now = Date.now();
	if (typeof at !== 'number' || Math.abs(now - at) > REPORT_CALL_FRESH_MS)
		return { refusal: staleRefusal(typeof at === 'number' ? at : undefined, now, kept) };
	const seen = triggerState.reportNonces;
	// A nonce is kept while a call carrying it could pass as fresh: until its own time is stale.
	for (const [old, keptUntil] of seen) if (now > keptUntil) seen.delete(old);
	if (typeof nonce !== 'string' || nonce === '' || seen.has(nonce))
		return { refusal: replayedRefusal() };
	seen.set(nonce, at + REPORT_CALL_FRESH_MS);
	return { kept };
}

function otherTriggerRefusal(theirs: string, ours: string): Refusal {
	return {
		cause: 'reportOtherTrigger',
		status: 403,
		answer: `This report call is signed for another trigger (webhook id ${theirs}), not for this one (${ours}); it was not taken`,
		what: `Report calls signed for another trigger (webhook id ${theirs}) reached this trigger's Write Back URL`,
		fix: 'A write back run of another Contact Center Trigger with the same signing secret made them for its own URL: a proxy in front of n8n routed them here, or someone sent a captured call here. They change nothing here.',
		again: RUN_ASKS_AGAIN,
	};
}

function staleRefusal(at: number | undefined, now: number, kept: number): Refusal {
	const offBy =
		at === undefined
			? 'carried no time'
			: `carried ${iso(at)}, ${Math.round(Math.abs(now - at) / 1000)} s ${at < now ? 'before' : 'after'} this n8n process's clock (${iso(now)})`;
	return {
		cause: 'reportStale',
		status: 403,
		answer: `A report call is taken only within ${REPORT_CALL_FRESH_MS / 1000} s of the time it carries: this one ${offBy}; it was not taken`,
		what: `Report calls of this trigger's own runs refused as more than ${REPORT_CALL_FRESH_MS / 1000} s off this n8n process's clock (the last ${offBy}, reporting ${writeBacks(kept)} processed and kept as done only in the memory of the n8n process that ran ${kept === 1 ? 'it' : 'them'})`,
		fix: `A write back run makes such a call when n8n's API did not take its record row, and the call is taken only within ${REPORT_CALL_FRESH_MS / 1000} s of its time, so that a captured one cannot be sent again later. Either the clocks of the n8n processes differ by more than that (the one that ran the write back, e.g. a queue-mode worker, and the one that received the call): sync them (NTP), as until then these report calls are refused; or an old call was sent again, which changes nothing.`,
		again: RUN_ASKS_AGAIN,
	};
}

function replayedRefusal(): Refusal {
	return {
		cause: 'reportReplayed',
		status: 409,
		answer: 'This report call was taken already; each is taken once',
		what: "Report calls of this trigger's own runs sent again after this n8n process had taken them",
		fix: 'Each report call carries a nonce and is taken once; one sent again changes nothing. Something in front of n8n repeats requests (a proxy or load balancer that retries a POST), or someone who captured a call sent it again: signed, it can only repeat a report already made.',
		again: 'Nothing is lost: the call was reported when it was first taken.',
	};
}

/**
 * Answers the trigger's own call for a report of write backs kept only in memory, and reports; a
 * refused one (another trigger's, stale, replayed) is answered and reported as a refused call.
 */
export function reportKeptInMemory(
	context: IWebhookFunctions,
	call: ReportCall,
): IWebhookResponseData {
	if ('refusal' in call) return refuse(context, 'writeBack', call.refusal);
	const { kept } = call;
	const res = context.getResponseObject() as unknown as MinimalResponse;
	writeJsonResponse(res, 202, { message: kept > 0 ? 'reported' : 'nothing to report' });
	if (kept === 0 || context.getMode() === 'manual') return { noWebhookResponse: true };
	const due = countRefusal(nodeKeyOf(context), 'keptInMemory');
	if (due === undefined) return { noWebhookResponse: true };
	const them = kept === 1 ? 'its key is' : 'their keys are';
	return reportRun(context, {
		cause: 'keptInMemory',
		message: `${kept === 1 ? '1 write back was' : `${kept} write backs were`} processed and answered 200, but n8n's API did not take ${kept === 1 ? 'its' : 'their'} record row, so ${them} held as done only in the memory of the n8n process that ran ${kept === 1 ? 'it' : 'them'}`,
		description: `Should that process restart before the rows are written, a delivery of the same event would run the workflow again. n8n's log has the cause ("could not be recorded yet") and says "resolved" once the rows are written. The usual causes: n8n's data table storage is full (free space or raise N8N_DATA_TABLES_MAX_SIZE_BYTES), or n8n refused the record's n8n API key (it expired or was removed: paste a new one). ${REPORT_BOUND}`,
		keptInMemory: kept,
	});
}

/** The report a run was started for, if its first item is one. */
export function reportOf(items: INodeExecutionData[]): IDataObject | undefined {
	const first = items[0];
	return first?.[REPORT_FIELD] === 1 ? first.json : undefined;
}

/** Fails the report run at the trigger, before any other node runs. */
export function failWithReport(context: IExecuteFunctions, report: IDataObject): never {
	throw operationError(context.getNode(), String(report.message), {
		description: String(report.description),
	});
}
