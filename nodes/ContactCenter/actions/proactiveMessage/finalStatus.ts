import { sleep, type IExecuteFunctions, type INodeExecutionData } from 'n8n-workflow';

import { MESSAGE_STATUSES, type StatusOverview } from '../../helpers/statusOverview';
import { getFailedMessages } from './getFailed.operation';
import { getStatusOverview } from './getStatus.operation';

/** One send is one message, so its final status is the one status its overview counts. */
export function finalStatusOf(overview: StatusOverview): string {
	if (Number(overview.PROCESSING) > 0) return 'PROCESSING';
	const settled = MESSAGE_STATUSES.filter((status) => status !== 'PROCESSING');
	const counted = Object.keys(overview).filter(
		(key) => key !== 'correlationId' && key !== 'total' && Number(overview[key]) > 0,
	);
	return settled.find((status) => counted.includes(status)) ?? counted[0] ?? 'UNKNOWN';
}

/**
 * Polls Get Status for every sent item until none is processing or the timeout passes, then adds
 * `finalStatus` (and `failureReason` for a failed message) to each sent item. A status that cannot
 * be read does not fail the item: the message was sent, and the output says the status is unknown.
 */
export async function addFinalStatuses(
	this: IExecuteFunctions,
	results: INodeExecutionData[],
	{ timeoutMs, pollIntervalMs }: { timeoutMs: number; pollIntervalMs: number },
): Promise<void> {
	const pending = new Set(results.filter((item) => item.json.sent === true));
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		for (const item of pending) {
			const correlationId = String(item.json.correlationId);
			const status = await getStatusOverview.call(this, correlationId).then(
				(overview) => ({ finalStatus: finalStatusOf(overview), finalStatusError: undefined }),
				(error: Error) => ({ finalStatus: 'UNKNOWN', finalStatusError: error.message }),
			);
			item.json.finalStatus = status.finalStatus;
			if (status.finalStatusError !== undefined)
				item.json.finalStatusError = status.finalStatusError;
			else delete item.json.finalStatusError;
			if (status.finalStatus !== 'PROCESSING' && status.finalStatusError === undefined) {
				pending.delete(item);
			}
		}
		if (pending.size === 0 || Date.now() + pollIntervalMs > deadline) break;
		await sleep(pollIntervalMs);
	}
	for (const item of results) {
		if (item.json.finalStatus !== 'FAILED') continue;
		const failed = await getFailedMessages
			.call(this, String(item.json.correlationId))
			.catch((error: Error) => [{ reason: `(could not be read: ${error.message})` }]);
		item.json.failureReason = failed.map((detail) => detail.reason).join('; ');
	}
}
