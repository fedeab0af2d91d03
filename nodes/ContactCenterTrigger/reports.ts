import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';

import { operationError } from '../shared/operationError';
import type { Endpoint } from './description';
import { writeJsonResponse, type MinimalResponse } from './request';

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
	| 'recordUnusable';

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
}

interface Tally {
	reportedAt?: number;
	/** Refused since the last report (or since the first refusal). */
	refused: number;
	firstRefusedAt: number;
}

/** The one piece of process state of the reports: refusals counted per trigger node and cause. */
const tallies = new Map<string, Tally>();

/** For tests: forgets every count. */
export function resetReports(): void {
	tallies.clear();
}

/**
 * Counts a refusal; returns the count to report now (the first refusal, or the first after
 * REPORT_INTERVAL_MS since the last report), or undefined while the last report is recent.
 */
export function countRefusal(
	nodeKey: string,
	cause: RefusalCause,
	now = Date.now(),
): { refused: number; since: number } | undefined {
	const key = `${nodeKey} ${cause}`;
	const tally = tallies.get(key) ?? { refused: 0, firstRefusedAt: now };
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

const nodeKeyOf = (context: IWebhookFunctions) =>
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
	const message = `${refusal.what}: ${calls(due.refused)} to the ${ENDPOINT_NAME[endpoint]} URL refused (${refusal.status}) since ${new Date(due.since).toISOString()}`;
	const description = `${refusal.fix} ${SERVICE_AGAIN[endpoint]} This trigger reports each cause at most once every ${REPORT_INTERVAL_MS / 60_000} minutes in each n8n process; the calls refused in between are counted in the next report.`;
	context.logger.warn(`Contact Center Trigger "${context.getNode().name}": ${message}`, {
		workflowId: context.getWorkflow().id,
		cause: refusal.cause,
	});
	const json: IDataObject = {
		cause: refusal.cause,
		status: refusal.status,
		refusedCalls: due.refused,
		since: new Date(due.since).toISOString(),
		message,
		description,
	};
	return { noWebhookResponse: true, workflowData: [[{ json, [REPORT_FIELD]: 1 }]] };
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
