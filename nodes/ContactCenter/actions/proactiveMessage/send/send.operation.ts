import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { processItems } from '../../../helpers/items';
import { toNodeError, withNotSent } from '../../../helpers/nodeErrors';
import { sendPaced, type RetryPolicy } from './pacedSend';
import { buildSendBody, readMessageAddress, type SendBody } from './body';
import { SendOnceGuard, warnAboutRecord } from './onceGuard';
import {
	correlationIdOf,
	failedSendFields,
	sentRow,
	skippedRow,
	type MessageFields,
} from './outcome';
import { DEFAULT_RATE_LIMIT_WAIT_MINUTES, resolveRateLimit, SendPacer } from './pacing';
import { contactCenterApiRequest } from '../../../transport';
import { addFinalStatuses } from './finalStatus';
import {
	DEFAULT_FINAL_STATUS_TIMEOUT_SECONDS,
	DEFAULT_SEND_TIMEOUT_SECONDS,
	DEFAULT_STATUS_POLL_INTERVAL_SECONDS,
	type SendOptions,
} from './description';

export { description } from './description';

/** What the items of one run share: the pace of the sends, how they are retried, their time-out. */
interface SendRun {
	pacer: SendPacer;
	policy: RetryPolicy;
	timeoutMs: number;
}

export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	const options = this.getNodeParameter('options', 0, {}) as SendOptions;
	const run = sendRunOf(options);
	await warnAboutRecord(this);
	const results = await processItems.call(this, {
		errorContext: () => ({ operation: 'send' }),
		failedItemFields: (i, error) => failedSendFields.call(this, i, error),
		run: async (i) => await sendItem.call(this, i, run),
	});
	if (options.waitForFinalStatus) {
		await addFinalStatuses.call(this, results, {
			timeoutMs: (options.finalStatusTimeout ?? DEFAULT_FINAL_STATUS_TIMEOUT_SECONDS) * 1000,
			pollIntervalMs: (options.statusPollInterval ?? DEFAULT_STATUS_POLL_INTERVAL_SECONDS) * 1000,
		});
	}
	return results;
}

function sendRunOf(options: SendOptions): SendRun {
	const limit = resolveRateLimit(options);
	const pacer = new SendPacer(limit);
	const maxWaitMinutes = options.rateLimitMaxWaitMinutes ?? DEFAULT_RATE_LIMIT_WAIT_MINUTES;
	return {
		pacer,
		policy: {
			limit,
			intervalMs: pacer.intervalMs,
			retryAmbiguousFailures: options.retryAmbiguousFailures ?? true,
			maxRateLimitWaitMs: maxWaitMinutes * 60_000,
		},
		timeoutMs: (options.sendTimeout ?? DEFAULT_SEND_TIMEOUT_SECONDS) * 1000,
	};
}

/** One item: its fields read and checked, then its message sent (once, with Send Once). */
async function sendItem(this: IExecuteFunctions, i: number, run: SendRun): Promise<IDataObject> {
	const { body, guard } = readItem.call(this, i);
	const message: MessageFields = {
		medium: body.medium,
		channel: body.channel,
		contact: body.contact,
		messageType: readMessageAddress.call(this, i).messageType,
		...(guard ? { sendOnceKey: guard.key } : {}),
	};
	const earlier = await guard?.earlierSend();
	if (earlier) return skippedRow(message, earlier);
	const request = async () =>
		await contactCenterApiRequest.call(this, 'POST', '/proactive-messaging/', {
			body,
			timeoutMs: run.timeoutMs,
		});
	const result = await sendPaced(request, run.pacer, run.policy, {
		beforeRequest: async () => await guard?.claim(),
		afterFailure: async (uncertainAttempts) => await guard?.afterFailure(uncertainAttempts),
	});
	if (result.kind === 'skipped') return skippedRow(message, result.skip);
	const { response, attempts, uncertainAttempts, at } = result;
	const correlationId = correlationIdOf(this.getNode(), i, response, uncertainAttempts);
	const sentAt = new Date(at).toISOString();
	await guard?.markSent({ correlationId, sentAt });
	return sentRow(message, { correlationId, sentAt, attempts, uncertainAttempts });
}

/** The item's body and Send Once guard; a field the service would refuse fails the item as not sent. */
function readItem(this: IExecuteFunctions, i: number): { body: SendBody; guard?: SendOnceGuard } {
	try {
		const body = buildSendBody.call(this, i);
		return { body, guard: SendOnceGuard.of(this, i, body) };
	} catch (error) {
		const refusal = toNodeError(this.getNode(), error, i, { operation: 'send' });
		refusal.description = withNotSent(refusal.description);
		throw refusal;
	}
}
