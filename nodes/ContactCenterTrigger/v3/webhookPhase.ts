import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { durableRecord } from '../../shared/record';
import { rowKeyOf } from '../../shared/record/rows';
import { idempotencyKeyOf } from '../helpers/dedup';
import { writeJsonResponse, type MinimalResponse } from '../helpers/request';
import { simplifyWriteBack } from '../helpers/simplify';
import { markReceivedHere, productionRunsStayInThisProcess } from '../helpers/receivedHere';
import { answerWithoutRun, isSelectedWriteBack } from '../helpers/writeBackCall';
import { holdHere, releaseHold } from './localHolds';

/** The record's scope of a write back trigger: its webhook id, kept through renames, imports and API updates. */
export const writeBackScopeOf = (context: { getNode(): { webhookId?: string; id: string } }) =>
	`writeBack:${context.getNode().webhookId ?? context.getNode().id}`;

/**
 * Where the webhook call leaves its claim's row id on the item for the run (beside `json`, so the
 * workflow never sees it), so that the run marks that row done by its id: n8n's data tables index
 * only the id, and a row key condition scans the table.
 */
export const CLAIM_ID_FIELD = 'contactCenterClaimId';

type Claim = { state: 'claimed'; claimId?: number } | { state: 'done' } | { state: 'running' };

/**
 * Claims the key for this delivery. Where this process runs its own deliveries (one n8n process),
 * the claim is a hold in this process's memory, checked against this process's index of the
 * record (no call for a key it does not know; a read of the key's rows for one it knows, and for
 * every key until the index is loaded); else a claim row in the record, shared by every n8n
 * process.
 */
async function claimDelivery(
	context: IWebhookFunctions,
	scope: string,
	key: string,
): Promise<Claim> {
	const holdKey = rowKeyOf(scope, key);
	const heldUntilRunEnds = productionRunsStayInThisProcess();
	// Where this process writes every row of the scope, its index of them answers a new key
	// without a call.
	const check = async () =>
		await durableRecord.check(context, scope, key, undefined, { fromIndex: heldUntilRunEnds });
	if (!holdHere(holdKey, Date.now())) {
		// Another delivery of the key in this process holds it: while it claims a key done long
		// ago, this one is a duplicate too, not in progress.
		const found = await check();
		return found.state === 'done' ? found : { state: 'running' };
	}
	let claim: Claim = { state: 'running' };
	try {
		if (heldUntilRunEnds) {
			const found = await check();
			claim = found.state === 'free' ? { state: 'claimed' } : found;
		} else {
			const found = await durableRecord.claim(context, scope, key);
			claim = found.state === 'claimed' ? { state: 'claimed', claimId: found.claimId } : found;
		}
		return claim;
	} finally {
		// Kept only by a delivery claimed by its hold: its run (in this process) releases it.
		if (!(heldUntilRunEnds && claim.state === 'claimed')) releaseHold(holdKey);
	}
}

/**
 * The webhook call of a write back (version 3), in whichever n8n process received it: claims the
 * delivery's key before any run starts. A key done before is answered `duplicate`, one another
 * delivery is running is answered `inProgress` (409); neither starts a run. The run
 * (runPhase.ts) marks the key done before the 2xx answer leaves, or gives it up when it fails.
 */
export async function handleWriteBackV3(
	context: IWebhookFunctions,
	body: IDataObject,
): Promise<IWebhookResponseData> {
	const key = idempotencyKeyOf(body);
	if (!isSelectedWriteBack(context, body)) return answerWithoutRun(context, 'ignored', key);

	let claimId: number | undefined;
	// The editor's test URL keeps no record, so that tests never mark production deliveries done.
	if (key !== undefined && context.getMode() !== 'manual') {
		let claim;
		try {
			claim = await claimDelivery(context, writeBackScopeOf(context), key);
		} catch (error) {
			// Without the record a run could not be kept to once: not run, the service delivers again.
			const message = `The write back record could not be read, so the delivery was not processed: ${(error as Error).message}`;
			context.logger.error(`Contact Center Trigger: ${message}`);
			writeJsonResponse(context.getResponseObject() as unknown as MinimalResponse, 503, {
				message,
			});
			return { noWebhookResponse: true };
		}
		if (claim.state === 'done') return answerWithoutRun(context, 'duplicate', key);
		if (claim.state === 'running') return answerWithoutRun(context, 'inProgress', key);
		claimId = claim.claimId;
	}

	const simplify = context.getNodeParameter('simplify', false) as boolean;
	const items = context.helpers.returnJsonArray(simplify ? simplifyWriteBack(body) : body);
	markReceivedHere(items[0].json);
	if (claimId !== undefined) items[0][CLAIM_ID_FIELD] = claimId;
	return { workflowData: [items] };
}
