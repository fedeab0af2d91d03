import {
	sleep,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
} from 'n8n-workflow';

import { withDeliveryNote } from '../../../helpers/deliveryNote';
import { currentStatusOf, FINAL_STATUSES, receivedOf } from '../../../helpers/statusOverview';
import { notReceivedReason } from '../getDeliveryReport.operation';
import { DetailsNotRead } from '../getFailed.operation';
import { getStatusOverview } from '../getStatus.operation';

/**
 * The item's row with the status fields right after `outcome`: whether the contact got the
 * message, its status, and the reason of a message that did not reach the contact ('' otherwise).
 */
export function withStatusFields(json: IDataObject, status: IDataObject): IDataObject {
	const { outcome, ...rest } = json;
	for (const key of Object.keys(status)) delete rest[key];
	return { outcome, ...status, ...rest };
}

/**
 * Polls Get Status, once per correlation id per round, until every sent message has a final status
 * or the timeout passes. Each item of a message that went out, in this run or an earlier one
 * (already accepted, whose outcome says so), gets `received` (yes, no, unconfirmed), `status` (the
 * status last read), `reason` (the service's, for FAILED and DELIVERING_FAILED, else '') and a
 * note that says what the status means. A
 * status that cannot be read does not fail the item: the message was sent; `statusError` says why
 * the status is not known.
 */
export async function addFinalStatuses(
	this: IExecuteFunctions,
	results: INodeExecutionData[],
	{ timeoutMs, pollIntervalMs }: { timeoutMs: number; pollIntervalMs: number },
): Promise<void> {
	const waiting = new Map<string, INodeExecutionData[]>();
	const statusOf = new Map<INodeExecutionData, { status: string; error?: string }>();
	for (const item of results) {
		if (typeof item.json.correlationId !== 'string' || item.json.correlationId === '') continue;
		statusOf.set(item, { status: 'UNKNOWN' });
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
				const last = statusOf.get(item) ?? { status: 'UNKNOWN' };
				statusOf.set(
					item,
					read.status === undefined ? { ...last, error: read.error } : { status: read.status },
				);
			}
			if (read.status !== undefined && FINAL_STATUSES.includes(read.status)) {
				waiting.delete(correlationId);
			}
		}
		if (waiting.size === 0 || Date.now() + pollIntervalMs > deadline) break;
		await sleep(pollIntervalMs);
	}
	const notRead = new DetailsNotRead();
	for (const [item, { status, error }] of statusOf) {
		const correlationId = String(item.json.correlationId);
		const reason = await notReceivedReason.call(this, correlationId, status, notRead);
		item.json = withDeliveryNote(
			withStatusFields(item.json, {
				received: receivedOf(status),
				status,
				reason,
				...(error === undefined ? {} : { statusError: error }),
			}),
		);
	}
	notRead.report(this);
}
