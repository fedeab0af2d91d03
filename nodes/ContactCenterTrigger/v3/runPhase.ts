import { NodeOperationError, type IExecuteFunctions, type INodeExecutionData } from 'n8n-workflow';

import { durableRecord } from '../../shared/record';
import { rowKeyOf } from '../../shared/record/rows';
import { idempotencyKeyOf } from '../helpers/dedup';
import { productionRunWasReceivedHere } from '../helpers/receivedHere';
import { answerFailedRun, answerWriteBack, whenRunEnds } from '../helpers/runAnswer';
import { heldDeliveries, holdHere, releaseHold } from './localHolds';
import { CLAIM_ID_FIELD, writeBackScopeOf } from './webhookPhase';

/**
 * How a done row waits for those of the other deliveries this process holds, to go out in one
 * insert: while they keep coming (each within 15 ms of the last), up to 60 ms in all. An insert
 * costs n8n about as much CPU for 8 rows as for 1 (bench/RESULTS.md section 4d); where deliveries
 * come further apart, a row waits 15 ms at most (section 4c (7345317)).
 */
const GATHER = { ms: 15, upToMs: 60 };

/**
 * The run phase of a write back (trigger version 3), as the first node of the run, in whichever
 * process runs it. The webhook call already claimed the key; a run that succeeded records it done
 * before the service gets 200 (or, while n8n's API does not take the row, counts it as done in this
 * process and writes the row as soon as the API takes it, its claim holding the key meanwhile), and
 * a run that fails gives the claim up (n8n answers 500 and the service's redelivery runs again).
 */
export async function runWriteBackV3(
	context: IExecuteFunctions,
	input: INodeExecutionData[],
): Promise<INodeExecutionData[][]> {
	const key = input.length > 0 ? idempotencyKeyOf(input[0].json) : undefined;
	const respond = context.getNodeParameter('respond', 0, 'afterSuccess') as string;
	const recorded = key !== undefined && context.getMode() !== 'manual';
	const scope = writeBackScopeOf(context);
	// Absent when the claim is a hold of this process, or when n8n did not carry it over.
	const claimId = Number.isInteger(input[0]?.[CLAIM_ID_FIELD])
		? (input[0][CLAIM_ID_FIELD] as number)
		: undefined;
	const receivedHere = recorded && productionRunWasReceivedHere(input[0].json);
	let held = receivedHere && claimId === undefined;
	if (recorded) await durableRecord.warnIfKeyExpiresSoon(context);
	const items = input.map((item) => {
		const copy = { ...item };
		delete copy[CLAIM_ID_FIELD];
		return copy;
	});

	if (recorded && !receivedHere && claimId === undefined) {
		// No claim came with the item: n8n started this run again at its restart (in one process
		// it runs executions enqueued before a crash, read in enqueued-execution-recovery.service.js)
		// after the process that claimed the key died. Hold the key here, so that a redelivery
		// meanwhile is answered 409, and run only if no delivery finished it in between.
		const holdKey = rowKeyOf(scope, key as string);
		if (!holdHere(holdKey, Date.now())) return skipTakenOver(context, key as string, 'is running');
		let keepHold = false;
		try {
			const found = await durableRecord.check(context, scope, key as string);
			if (found.state === 'done') return skipTakenOver(context, key as string, 'was processed');
			keepHold = true;
		} finally {
			if (!keepHold) releaseHold(holdKey);
		}
		held = true;
	}

	const releaseHeld = () => {
		if (held) releaseHold(rowKeyOf(scope, key as string));
	};
	// Held deliveries are in this process: their done rows may share one insert.
	const gather = () => (held ? { ...GATHER, until: heldDeliveries() } : undefined);

	if (respond === 'immediately') {
		if (recorded) {
			try {
				// Before the workflow's effect: a key not recorded is not answered 200 and not run.
				await durableRecord.markDone(context, scope, key as string, '', claimId, gather());
			} catch (error) {
				throw new NodeOperationError(
					context.getNode(),
					`The write back could not be recorded as processed, so it was not answered 200: ${(error as Error).message}`,
					{
						description:
							`The service delivers it again later. ${(error as NodeOperationError).description ?? ''}`.trim(),
					},
				);
			} finally {
				releaseHeld();
			}
		}
		await answerWriteBack(context, 'processed', key);
		return [items];
	}
	whenRunEnds(context, async (outcome) => {
		if (outcome === 'failed') {
			if (held) releaseHeld();
			else if (recorded) {
				await durableRecord.release(context, scope, key, claimId).catch((error: Error) => {
					context.logger.warn(
						`Contact Center Trigger: releasing write back ${key} after its failed run failed (${error.message}); a redelivery within 15 minutes is answered 409`,
					);
				});
			}
			await answerFailedRun(context);
			return;
		}
		if (outcome !== 'succeeded') return;
		if (recorded) {
			// The run succeeded: it counts as done from now on, also while n8n's API does not take
			// its row yet (see markDoneAndKeepTrying), so that no redelivery runs it again.
			try {
				await durableRecord.markDoneAndKeepTrying(
					context,
					scope,
					key as string,
					'',
					claimId,
					gather(),
				);
			} finally {
				releaseHeld();
			}
		}
		await answerWriteBack(context, 'processed', key);
	});
	return [items];
}

/** A run started again by n8n whose delivery another delivery of its key has taken over: nothing runs. */
function skipTakenOver(
	context: IExecuteFunctions,
	key: string,
	state: string,
): INodeExecutionData[][] {
	context.logger.info(
		`Contact Center Trigger: write back ${key} ${state} in another delivery, so this run that n8n started again after a restart does nothing`,
	);
	return [[]];
}
