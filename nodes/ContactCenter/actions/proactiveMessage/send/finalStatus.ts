import { sleep, type IExecuteFunctions, type INodeExecutionData } from 'n8n-workflow';

import type { StatusOverview } from '../../../helpers/statusOverview';
import {
	NO_REASON_IN_DETAILS,
	NOT_RECEIVED_STATUSES,
	noDetailsGiven,
	readStatusDetails,
} from '../getFailed.operation';
import { getStatusOverview } from '../getStatus.operation';

/** Statuses a message does not leave: the service has nothing more to report about it. */
export const FINAL_STATUSES: readonly string[] = ['DELIVERED', 'FAILED', 'DELIVERING_FAILED'];

/**
 * One send is one message, so its status is the one status its overview counts. A status still on
 * its way (PROCESSING, SENT, or one the spec does not list) wins over a final one.
 */
export function currentStatusOf(overview: StatusOverview): string {
	const counted = Object.keys(overview).filter(
		(key) => key !== 'correlationId' && key !== 'total' && Number(overview[key]) > 0,
	);
	return counted.find((status) => !FINAL_STATUSES.includes(status)) ?? counted[0] ?? 'UNKNOWN';
}

/**
 * Polls Get Status, once per correlation id per round, until every sent message has a final status
 * or the timeout passes. Each sent item gets `finalStatus` (the status last read), `settled` (whether
 * that status is final) and, for FAILED and DELIVERING_FAILED, `failureReason` (the service's, or
 * that it gave none). A status that cannot be read does not fail the item: the message was sent;
 * `finalStatusError` says why the status is not known.
 */
export async function addFinalStatuses(
	this: IExecuteFunctions,
	results: INodeExecutionData[],
	{ timeoutMs, pollIntervalMs }: { timeoutMs: number; pollIntervalMs: number },
): Promise<void> {
	const waiting = new Map<string, INodeExecutionData[]>();
	for (const item of results) {
		// Rows of messages that went out, in this run or an earlier one (already sent), have one.
		if (typeof item.json.correlationId !== 'string' || item.json.correlationId === '') continue;
		item.json.finalStatus = 'UNKNOWN';
		item.json.settled = false;
		const correlationId = String(item.json.correlationId);
		waiting.set(correlationId, [...(waiting.get(correlationId) ?? []), item]);
	}
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		for (const [correlationId, items] of waiting) {
			const read = await getStatusOverview.call(this, correlationId).then(
				(overview) => ({ status: currentStatusOf(overview), error: undefined }),
				(error: Error) => ({ status: undefined, error: error.message }),
			);
			for (const item of items) {
				if (read.status === undefined) {
					item.json.finalStatusError = read.error;
					continue;
				}
				item.json.finalStatus = read.status;
				item.json.settled = FINAL_STATUSES.includes(read.status);
				delete item.json.finalStatusError;
			}
			if (read.status !== undefined && FINAL_STATUSES.includes(read.status)) {
				waiting.delete(correlationId);
			}
		}
		if (waiting.size === 0 || Date.now() + pollIntervalMs > deadline) break;
		await sleep(pollIntervalMs);
	}
	for (const item of results) {
		const status = String(item.json.finalStatus);
		if (!NOT_RECEIVED_STATUSES.includes(status)) continue;
		item.json.failureReason = await readStatusDetails
			.call(this, String(item.json.correlationId), status)
			.then(
				(details) =>
					details === undefined
						? noDetailsGiven(status)
						: details
								.map((detail) => detail.reason)
								.filter(Boolean)
								.join('; ') || NO_REASON_IN_DETAILS,
				(error: Error) => `(could not be read: ${error.message})`,
			);
	}
}
