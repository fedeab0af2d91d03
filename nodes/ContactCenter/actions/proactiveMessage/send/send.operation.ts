import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { withLocalTimes } from '../../../helpers/dateTime';
import { processItems } from '../../../helpers/items';
import { toNodeError, withNotSent } from '../../../helpers/nodeErrors';
import { sendPaced, type RetryPolicy } from './pacedSend';
import { buildSendBody, readMessageAddress, type SendBody } from './body';
import { SendOnceAhead } from './onceAhead';
import {
	SendOnceGuard,
	sendOnceStoreOf,
	sendOnceWorkOf,
	warnAboutRecord,
	type SendOnceSkip,
} from './onceGuard';
import { SendOnceInN8n } from './onceInN8n';
import type { N8nWork } from '../../../../shared/once';
import {
	correlationIdOf,
	failedSendFields,
	sentRow,
	skippedRow,
	type MessageFields,
} from './outcome';
import { DEFAULT_RATE_LIMIT_WAIT_MINUTES, resolveRateLimit, SendPacer } from './pacing';
import { contactCenterApiRequest } from '../../../transport';
import { currentStatusOf } from '../../../helpers/statusOverview';
import { getStatusOverview } from '../getStatus.operation';
import { addFinalStatuses } from './finalStatus';
import {
	DEFAULT_FINAL_STATUS_TIMEOUT_SECONDS,
	DEFAULT_SEND_TIMEOUT_SECONDS,
	DEFAULT_STATUS_POLL_INTERVAL_SECONDS,
	type SendOptions,
} from './description';

export { description } from './description';

/**
 * What the items of one run share: the pace of the sends, how they are retried, their time-out,
 * each item's fields (read once) and Send Once's record calls ahead of the sends.
 */
interface SendRun {
	/** Include Send Details: how each message was sent, and its Send Once Key. */
	includeDetails: boolean;
	pacer: SendPacer;
	policy: RetryPolicy;
	timeoutMs: number;
	itemOf: (i: number) => SendItem;
	ahead: SendOnceAhead;
	/** Send Once recorded in n8n's own store (Record Sends In: n8n), else undefined. */
	inN8n?: SendOnceInN8n;
	itemCount: number;
}

interface SendItem {
	body: SendBody;
	/** Send Once in a data table. */
	guard?: SendOnceGuard;
	/** Send Once in n8n's store: the message's key and period. */
	n8nWork?: N8nWork;
}

/** Send's time columns, each also in the workflow's zone. */
const TIMES = ['sentAt'];

export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	const options = this.getNodeParameter('options', 0, {}) as SendOptions;
	const run = sendRunOf.call(this, options);
	await warnAboutRecord(this);
	await run.inN8n?.warnBeforeSending(this.getInputData().length);
	const zone = this.getTimezone();
	let results: INodeExecutionData[];
	try {
		results = await processItems.call(this, {
			errorContext: () => ({ operation: 'send' }),
			failedItemFields: (i, error) =>
				withLocalTimes(failedSendFields.call(this, i, error, run.includeDetails), TIMES, zone),
			includeInputFields: options.includeInputFields ?? true,
			run: async (i) => withLocalTimes(await sendItem.call(this, i, run), TIMES, zone),
		});
	} finally {
		await run.ahead.close();
		await run.inN8n?.close();
	}
	if (options.waitForFinalStatus) {
		await addFinalStatuses.call(this, results, {
			timeoutMs: (options.finalStatusTimeout ?? DEFAULT_FINAL_STATUS_TIMEOUT_SECONDS) * 1000,
			pollIntervalMs: (options.statusPollInterval ?? DEFAULT_STATUS_POLL_INTERVAL_SECONDS) * 1000,
		});
	}
	return results;
}

function sendRunOf(this: IExecuteFunctions, options: SendOptions): SendRun {
	const limit = resolveRateLimit(options);
	const pacer = new SendPacer(limit);
	const maxWaitMinutes = options.rateLimitMaxWaitMinutes ?? DEFAULT_RATE_LIMIT_WAIT_MINUTES;
	const items = new Map<number, SendItem>();
	const inN8n = sendOnceStoreOf(this) === 'n8n' ? new SendOnceInN8n(this) : undefined;
	const itemOf = (i: number): SendItem => {
		const read = items.get(i) ?? readItem.call(this, i, inN8n !== undefined);
		items.set(i, read);
		return read;
	};
	const guardAhead = (i: number) => {
		try {
			return itemOf(i).guard;
		} catch {
			// Safe to ignore: the item reads its fields again when its turn comes, and fails there.
			return undefined;
		}
	};
	return {
		includeDetails: options.includeSendDetails ?? false,
		itemOf,
		inN8n,
		itemCount: this.getInputData().length,
		ahead: new SendOnceAhead(this.getInputData().length, pacer.intervalMs, guardAhead),
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
	const { body, guard, n8nWork } = run.itemOf(i);
	const sendOnceKey = guard?.key ?? n8nWork?.key;
	const message: MessageFields = {
		medium: body.medium,
		channel: body.channel,
		contact: body.contact,
		messageType: readMessageAddress.call(this, i).messageType,
		...(sendOnceKey === undefined ? {} : { sendOnceKey }),
	};
	if (n8nWork && run.inN8n) return await sendInN8n.call(this, i, run, run.inN8n, n8nWork, message);
	if (guard) await run.ahead.turnOf(i, guard);
	const earlier = await guard?.earlierSend();
	if (earlier) return skippedRow(message, earlier, run.includeDetails);
	const request = async () =>
		await contactCenterApiRequest.call(this, 'POST', '/proactive-messaging/', {
			body,
			timeoutMs: run.timeoutMs,
		});
	const result = await sendPaced(request, run.pacer, run.policy, {
		slotReserved: (at) => run.ahead.slotReserved(i, at),
		beforeRequest: async () => {
			if (!guard) return undefined;
			await run.ahead.beforeClaimAtSlot();
			return await guard.claim();
		},
		afterFailure: async (uncertainAttempts) => await guard?.afterFailure(uncertainAttempts),
	});
	if (result.kind === 'skipped') return skippedRow(message, result.skip, run.includeDetails);
	const { response, attempts, uncertainAttempts, at } = result;
	const correlationId = correlationIdOf(this.getNode(), i, response, uncertainAttempts);
	const sentAt = new Date(at).toISOString();
	if (guard) run.ahead.finishing(guard, guard.markSent({ correlationId, sentAt }));
	return sentRow(
		message,
		{ correlationId, sentAt, attempts, uncertainAttempts, sentAgainAfter: guard?.sentAgainAfter },
		run.includeDetails,
	);
}

/**
 * One item's message with Send Once in n8n's store: claimed before its send slot (a message sent
 * earlier is skipped without waiting for one), its sent mark written with the next claim.
 */
async function sendInN8n(
	this: IExecuteFunctions,
	i: number,
	run: SendRun,
	inN8n: SendOnceInN8n,
	work: N8nWork,
	message: MessageFields,
): Promise<IDataObject> {
	const keepAhead = claimsPerCall(run.pacer.intervalMs) - 1;
	const upcoming = (count: number) => upcomingN8nWork(run, i, count);
	const skip = await inN8n.claimAtTurn(work, upcoming, keepAhead);
	if (skip) return skippedRow(message, skip, run.includeDetails);
	const { body } = run.itemOf(i);
	const request = async () =>
		await contactCenterApiRequest.call(this, 'POST', '/proactive-messaging/', {
			body,
			timeoutMs: run.timeoutMs,
		});
	let uncertain = 0;
	const result = await sendPaced<SendOnceSkip>(request, run.pacer, run.policy, {
		beforeRequest: async () => undefined,
		afterFailure: async (uncertainAttempts) => {
			uncertain = uncertainAttempts;
		},
	}).catch(async (error: unknown) => {
		await inN8n.afterFailure(work, uncertain);
		throw error;
	});
	if (result.kind === 'skipped') return skippedRow(message, result.skip, run.includeDetails);
	const { response, attempts, uncertainAttempts, at } = result;
	inN8n.sent(work);
	const correlationId = correlationIdOf(this.getNode(), i, response, uncertainAttempts);
	const sentAt = new Date(at).toISOString();
	return sentRow(
		message,
		{ correlationId, sentAt, attempts, uncertainAttempts },
		run.includeDetails,
	);
}

/**
 * How many messages one call to n8n's store claims: those due within CLAIM_WINDOW_MS, at least one
 * and at most MAX_CLAIMS_PER_CALL. Each call reads and writes the node's whole store, so at fast
 * rates one call a message would slow the sends; a crash leaves up to one call's claims without
 * their sent mark (one at 6 per second or slower, five at 50 per second).
 */
function claimsPerCall(intervalMs: number): number {
	if (intervalMs <= 0) return MAX_CLAIMS_PER_CALL;
	return Math.min(MAX_CLAIMS_PER_CALL, Math.max(1, Math.floor(CLAIM_WINDOW_MS / intervalMs)));
}
const CLAIM_WINDOW_MS = 150;
const MAX_CLAIMS_PER_CALL = 5;

/** The keys and periods of the `count` items after item `i`, leaving out those with none or wrong fields. */
function upcomingN8nWork(run: SendRun, i: number, count: number): N8nWork[] {
	const works: N8nWork[] = [];
	for (let item = i + 1; item < Math.min(run.itemCount, i + 1 + count); item++) {
		try {
			const { n8nWork } = run.itemOf(item);
			if (n8nWork) works.push(n8nWork);
		} catch {
			// Safe to ignore: the item reads its fields again when its turn comes, and fails there.
		}
	}
	return works;
}

/** The item's body and Send Once guard; a field the service would refuse fails the item as not sent. */
function readItem(this: IExecuteFunctions, i: number, inN8n: boolean): SendItem {
	try {
		const body = buildSendBody.call(this, i);
		if (inN8n) {
			const work = sendOnceWorkOf(this, i, body);
			return {
				body,
				...(work ? { n8nWork: { key: work.key, periodMs: work.retentionMs } } : {}),
			};
		}
		const statusOf = async (correlationId: string) =>
			currentStatusOf(await getStatusOverview.call(this, correlationId));
		return { body, guard: SendOnceGuard.of(this, i, body, statusOf) };
	} catch (error) {
		const refusal = toNodeError(this.getNode(), error, i, { operation: 'send' });
		refusal.description = withNotSent(refusal.description);
		throw refusal;
	}
}
