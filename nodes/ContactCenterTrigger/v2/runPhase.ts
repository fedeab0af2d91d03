import {
	sleep,
	type IExecuteFunctions,
	type IExecuteResponsePromiseData,
	type INodeExecutionData,
} from 'n8n-workflow';

import { answerFailedRun, answerWriteBack, jsonResponse, whenRunEnds } from '../helpers/runAnswer';

import { fingerprintOf, idempotencyKeyOf } from '../helpers/dedup';
import { LOOKUP_ANSWERED_FLAG, buildLookupHttpResponse } from '../../shared/lookupResponse';
import { wasReceivedHere } from '../helpers/receivedHere';
import { claimLocally, endLocalClaim, nodeKeyOf } from './localClaims';
import {
	claimItems,
	claimToken,
	type RunOutcome,
	type WriteBackStatus,
} from '../helpers/writeBackLedger';

/**
 * processed_data entries kept for claims (three per delivery: two windows and the run's token; n8n
 * rewrites them all on each claim).
 * A claim is only needed while its delivery may still be running.
 */
const MAX_CLAIM_ENTRIES = 500;

/**
 * Serialises the claims of one trigger node within this n8n process. Only a lock:
 * what must be shared by several processes or survive a restart is in n8n's database.
 */
const nodeLocks = new Map<string, Promise<unknown>>();

async function withNodeLock<T>(lockKey: string, task: () => Promise<T>): Promise<T> {
	const previous = nodeLocks.get(lockKey) ?? Promise.resolve();
	const current = previous.then(task, task);
	const settled = current.then(
		() => undefined,
		() => undefined,
	);
	nodeLocks.set(lockKey, settled);
	try {
		return await current;
	} finally {
		if (nodeLocks.get(lockKey) === settled) nodeLocks.delete(lockKey);
	}
}

type ClaimResult = 'claimed' | 'busy' | 'unavailable';

/**
 * How long a claim in processed_data waits before it checks that its own write survived. n8n's
 * processed_data helpers read a row, change it and write it back without a lock, so of two
 * processes claiming at the same moment the one that writes last removes the other's claim; this
 * is longer than such a read-change-write takes.
 */
const CLAIM_SETTLE_MS = 250;

/**
 * Claims the delivery in n8n's processed_data table, shared by every n8n process (queue mode): a
 * duplicate that arrives while the first delivery runs finds the claim and is answered "in
 * progress".
 */
async function claimInDatabase(
	context: IExecuteFunctions,
	fingerprint: string,
	now: number,
): Promise<{ result: ClaimResult; items: string[] }> {
	const items = claimItems(fingerprint, now);
	const { checkProcessedAndRecord } = context.helpers;
	if (typeof checkProcessedAndRecord !== 'function') return { result: 'unavailable', items };
	const options = { mode: 'entries' as const, maxEntries: MAX_CLAIM_ENTRIES };
	const record = async (values: string[]) => {
		try {
			return await checkProcessedAndRecord(values, 'node', options);
		} catch {
			// Two first claims of a node insert its processed_data row at once; one insert fails.
			return await checkProcessedAndRecord(values, 'node', options);
		}
	};
	const lockKey = nodeKeyOf(context);
	const token = claimToken(fingerprint, context.getExecutionId());
	const first = await withNodeLock(lockKey, async () => await record([...items, token]));
	if (first.processed.some((item) => items.includes(String(item))))
		return { result: 'busy', items };
	await sleep(CLAIM_SETTLE_MS);
	const check = await withNodeLock(lockKey, async () => await record([token]));
	// Our token is gone: another process wrote the row after us and may hold the claim.
	return { result: check.processed.length === 1 ? 'claimed' : 'busy', items };
}

/**
 * Claims the delivery where the duplicates that may run at the same time can see it: in this
 * process's memory when one n8n process does everything (localClaims.ts), else in processed_data.
 * Returns what the run must answer at once, if anything, and what to do when the run has ended.
 */
async function claimDelivery(
	context: IExecuteFunctions,
	item: INodeExecutionData,
	fingerprint: string,
): Promise<{ answer?: WriteBackStatus; release: (outcome: RunOutcome) => Promise<void> }> {
	const nodeKey = nodeKeyOf(context);
	if (wasReceivedHere(item.json)) {
		const result = claimLocally(nodeKey, fingerprint, Date.now());
		if (result !== 'claimed') {
			return {
				answer: result === 'running' ? 'inProgress' : 'duplicate',
				release: async () => {},
			};
		}
		return {
			release: async (outcome) => endLocalClaim(nodeKey, fingerprint, outcome, Date.now()),
		};
	}
	const claim = await claimInDatabase(context, fingerprint, Date.now());
	if (claim.result === 'busy') return { answer: 'inProgress', release: async () => {} };
	return {
		// A failed run is answered 500 by n8n: release the claim so that the service's redelivery
		// runs at once. Unknown is left to n8n's own answer (200 after a successful run, 500 after a
		// failed one) and to the claim's window.
		release: async (outcome) => {
			if (outcome !== 'failed' || claim.result !== 'claimed') return;
			await withNodeLock(nodeKey, async () => {
				await context.helpers.removeProcessed(claim.items, 'node', { mode: 'entries' });
			});
		},
	};
}

/**
 * The run phase of a write back (trigger version 2), as the first node of the run, in whichever
 * process runs it: claims the delivery, and answers the service only after the run succeeded
 * ("afterSuccess") or at once ("immediately"). Deliveries already processed were answered by the
 * webhook call (webhookPhase.ts) and start no run.
 */
export async function runWriteBack(
	context: IExecuteFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[][]> {
	const key = items.length > 0 ? idempotencyKeyOf(items[0].json) : undefined;
	const respond = context.getNodeParameter('respond', 0, 'afterSuccess') as string;

	let release: (outcome: RunOutcome) => Promise<void> = async () => {};
	if (key !== undefined && context.getMode() !== 'manual') {
		const claim = await claimDelivery(context, items[0], fingerprintOf(key));
		if (claim.answer !== undefined) {
			await answerWriteBack(context, claim.answer, key);
			return [[]];
		}
		release = claim.release;
	}

	if (respond === 'immediately') {
		await answerWriteBack(context, 'processed', key);
		return [items];
	}
	whenRunEnds(context, async (outcome) => {
		await release(outcome);
		if (outcome === 'succeeded') await answerWriteBack(context, 'processed', key);
		if (outcome === 'failed') await answerFailedRun(context);
	});
	return [items];
}

/**
 * The run phase of a lookup: when the run ends without a "Respond to Lookup" answer, the trigger
 * answers 404 (or 500) itself, so the answer is the same in one n8n process and in queue mode.
 */
export function runLookup(
	context: IExecuteFunctions,
	items: INodeExecutionData[],
): INodeExecutionData[][] {
	const flow = context.getContext('flow');
	const ifNoResponse = context.getNodeParameter('ifNoResponse', 0, 'notFound') as string;
	whenRunEnds(
		context,
		async (outcome) => {
			if (outcome === 'failed') return await answerFailedRun(context);
			const response =
				ifNoResponse === 'serverError'
					? jsonResponse(500, { message: 'The lookup workflow ended without an answer' })
					: buildLookupHttpResponse(undefined);
			await context.sendResponse(response as IExecuteResponsePromiseData);
		},
		() => flow[LOOKUP_ANSWERED_FLAG] === true,
	);
	return [items];
}
