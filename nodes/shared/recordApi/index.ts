import { NodeOperationError, type IExecuteFunctions, type IHookFunctions } from 'n8n-workflow';

import { RUN_WARNS_WITHIN_DAYS, expiredAt, expiresSoonMessage, expiresWithinDays } from './apiKey';
import {
	keyExpiredError,
	kindOfRecordError,
	recordError,
	targetOf,
	type RecordTarget,
} from './client';
import { isSizeLimitFailure } from './failure';
import { state } from './state';

/**
 * The record's client of n8n's public API: the record credential (an n8n API key of this
 * instance), calls with retries and errors that name the real cause, the key's expiry, n8n's data
 * table storage, and the credential's Test. The once module keeps its record through it.
 */

export { RECORD_KEY_STEPS } from './apiKey';
export {
	api,
	isPassingFailure,
	keyUsable,
	kindOfRecordError,
	recordError,
	refuseWhileStorageFull,
	statusOfRecordError,
	targetOf,
	type RecordContext,
	type RecordTarget,
} from './client';
export { DEFAULT_RECORD_TIMING } from './failure';

/** How long a record write n8n's API did not take waits before it is first tried again. */
export const pendingRetryMs = () => state.timing.pendingRetryMs;
export { testRecordCredential } from './credentialTest';
export { contextWithoutExecution } from './withoutExecution';
export { warnIfStorageNearlyFull } from './storage';

/** Why a record call failed, for a report in the user's words. */
export type RecordFailureCause =
	| 'storageFull'
	| 'recordKey'
	| 'apiUnavailable'
	| 'apiRateLimited'
	| 'recordUnusable';

export function recordFailureCauseOf(error: unknown): RecordFailureCause {
	if (isSizeLimitFailure((error as Error)?.message ?? '')) return 'storageFull';
	const kind = kindOfRecordError(error);
	if (kind === 'credential') return 'recordKey';
	if (kind === 'unavailable') return 'apiUnavailable';
	if (kind === 'rateLimited') return 'apiRateLimited';
	return 'recordUnusable';
}

/**
 * The record credential read afresh, for an activation: throws a node error when it cannot be read
 * or its key has expired, and warns in n8n's log when the key expires within a week.
 */
export async function targetForActivation(context: IHookFunctions): Promise<RecordTarget> {
	const target = await targetOf(context, true).catch((error: Error) => {
		throw error instanceof NodeOperationError ? error : recordError(context, error.message);
	});
	const now = Date.now();
	const expired = expiredAt(target.expiry, now);
	if (expired !== undefined) throw keyExpiredError(context, expired);
	const expiresSoon = expiresWithinDays(target.expiry, RUN_WARNS_WITHIN_DAYS, now);
	if (expiresSoon !== undefined) {
		context.logger.warn(`Contact Center: ${expiresSoonMessage(expiresSoon, now)}`);
	}
	return target;
}

/**
 * Warns in the run (an execution hint under the node's output, and n8n's log) when the record
 * credential's key expires within a week; a key that cannot be read is left to the record calls.
 * `readAfresh`: reads the credential now rather than within the minute it is reused, so that a
 * key switched since the last run is the one this run uses.
 */
export async function warnIfKeyExpiresSoon(
	context: IExecuteFunctions,
	{ readAfresh = false }: { readAfresh?: boolean } = {},
): Promise<void> {
	// A credential that cannot be read fails the run's first record call, which names the cause.
	const target = await targetOf(context, readAfresh).catch(() => undefined);
	const now = Date.now();
	const expiresSoon =
		target === undefined ? undefined : expiresWithinDays(target.expiry, RUN_WARNS_WITHIN_DAYS, now);
	if (expiresSoon === undefined) return;
	const message = expiresSoonMessage(expiresSoon, now);
	context.addExecutionHints({ message, type: 'warning', location: 'outputPane' });
	context.logger.warn(`Contact Center: ${message}`, {
		workflowId: context.getWorkflow().id,
		node: context.getNode().name,
	});
}
