import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { fingerprintOf, idempotencyKeyOf } from '../helpers/dedup';
import { type MinimalResponse } from '../helpers/request';
import { simplifyWriteBack } from '../helpers/simplify';
import {
	minuteOf,
	recordProcessed,
	wasProcessed,
	type ProcessedRecord,
} from '../helpers/writeBackLedger';
import { answerWithoutRun as answer, isSelectedWriteBack } from '../helpers/writeBackCall';
import { markReceivedHere } from '../helpers/receivedHere';
import { nodeKeyOf } from './localClaims';

/** The part of n8n's (express) response the trigger watches for the run's answer. */
interface EndableResponse extends MinimalResponse {
	statusCode: number;
	end: (...args: unknown[]) => unknown;
}

/** How long this process remembers the deliveries it answered (runs longer are unprotected). */
const RECENT_MS = 15 * 60 * 1000;
const MAX_RECENT = 2000;
/**
 * How much earlier than a call's start a delivery answered by this process may still be missing
 * from the static data the call loaded: n8n saves a call's static data right after its answer, and
 * loads the workflow for a call just before it reads the call's (small) body.
 */
const SAVE_MARGIN_MS = 2 * 1000;

interface RecentAnswer {
	at: number;
	record: ProcessedRecord;
}

/**
 * The deliveries this process answered 2xx lately, per trigger node, in the order answered. Not
 * the record itself (that is in n8n's database): n8n saves a call's static data as loaded at the
 * start of the call plus the call's own change, so of two calls answered at overlapping times the
 * later save would drop the other's record; adding to each save the deliveries answered since the
 * call started keeps them. Lost with the process, which only brings back that overlap.
 */
const recentlyProcessed = new Map<string, RecentAnswer[]>();

function recentRecords(
	storeKey: string,
	fingerprint: string,
	now: number,
	callStart: number,
): ProcessedRecord[] {
	const recent = recentlyProcessed.get(storeKey) ?? [];
	recentlyProcessed.set(storeKey, recent);
	recent.push({ at: now, record: [fingerprint, minuteOf(now)] });
	let expired = Math.max(0, recent.length - MAX_RECENT);
	while (expired < recent.length && recent[expired].at < now - RECENT_MS) expired++;
	recent.splice(0, expired);
	// Answer times only grow (within a process), so the first one since the call began is found by
	// bisection and only the deliveries after it are merged.
	const since = callStart - SAVE_MARGIN_MS;
	let low = 0;
	let high = recent.length;
	while (low < high) {
		const middle = (low + high) >>> 1;
		if (recent[middle].at < since) low = middle + 1;
		else high = middle;
	}
	return recent.slice(low).map((answer) => answer.record);
}

/**
 * The webhook call of a write back (version 2), in the n8n process that received it: answers a
 * delivery already processed from the ledger in static data, which n8n loads from its database
 * for every call, without starting a run; starts a run for any other, and records the delivery
 * in the ledger when the run's 2xx answer goes out through this process.
 */
export function handleWriteBackV2(
	context: IWebhookFunctions,
	body: IDataObject,
): IWebhookResponseData {
	const key = idempotencyKeyOf(body);
	if (!isSelectedWriteBack(context, body)) return answer(context, 'ignored', key);

	// The editor's test URL keeps no record, so that tests never mark production deliveries done.
	if (key !== undefined && context.getMode() !== 'manual') {
		const fingerprint = fingerprintOf(key);
		const staticData = context.getWorkflowStaticData('node');
		const storeKey = nodeKeyOf(context);
		const callStart = Date.now();
		const recordNow = () => {
			const now = Date.now();
			recordProcessed(staticData, recentRecords(storeKey, fingerprint, now, callStart), now);
		};
		if (wasProcessed(staticData, fingerprint, callStart)) {
			recordNow();
			return answer(context, 'duplicate', key);
		}
		// n8n saves this call's static data right after the answer is written (its response
		// callback), and only changes made after the run started count: so the delivery is recorded
		// as the answer leaves, when its status is known.
		const res = context.getResponseObject() as unknown as EndableResponse;
		const end = res.end;
		res.end = function (this: unknown, ...args: unknown[]) {
			res.end = end;
			if (res.statusCode >= 200 && res.statusCode < 300) recordNow();
			return end.apply(this, args);
		};
	}

	const simplify = context.getNodeParameter('simplify', false) as boolean;
	const item = simplify ? simplifyWriteBack(body) : body;
	markReceivedHere(item);
	return { workflowData: [context.helpers.returnJsonArray(item)] };
}
