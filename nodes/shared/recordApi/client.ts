import { createHash } from 'crypto';

import {
	NodeOperationError,
	sleep,
	type IDataObject,
	type IExecuteFunctions,
	type IHookFunctions,
	type IHttpRequestMethods,
	type IWebhookFunctions,
} from 'n8n-workflow';

import { assertCredentialSelected } from '../credentialSelection';
import { operationError } from '../operationError';
import {
	RECORD_CREDENTIAL_DISPLAY_NAME as DISPLAY_NAME,
	RECORD_KEY_STEPS,
	baseUrlOf,
	expiredAt,
	expiredMessage,
	keyExpiryOf,
	runWarningOf,
} from './apiKey';
import {
	classifyRecordFailure,
	isTransient,
	isSizeLimitFailure,
	recordFailureText,
	recordRetryDelayMs,
	textAnswerFailure,
	type HttpFailure,
	type RecordFailure,
	type RecordFailureKind,
} from './failure';
import { memoryOfKey, state, type RecordTarget } from './state';

export type { RecordTarget } from './state';
export type RecordContext = IExecuteFunctions | IWebhookFunctions | IHookFunctions;
export const RECORD_CREDENTIAL = 'contactCenterRecordApi';

const SIZE_LIMIT_DESCRIPTION =
	"n8n refuses data table writes once all data tables of this n8n together reach N8N_DATA_TABLES_MAX_SIZE_BYTES (200 MB by default). Delete rows you no longer need from your own data tables, or raise that limit; the record's rows expire by themselves after 72 hours.";
const DESCRIPTIONS: Partial<Record<RecordFailureKind, string>> = {
	rateLimited:
		"The API key is fine: an owner or admin of this n8n limits how many calls each API key may make (n8n 2.47 and later, reads and writes apart). Raise the limit of the record credential's key, or give the record a key that nothing else uses.",
	unavailable:
		"The credential is not the problem: n8n's main instance (the credential's n8n API URL) did not answer in time. It may be restarting (a deploy or upgrade), overloaded, or its database may be failing; in queue mode every process's record calls go to the main instance.",
};
const FIX_DESCRIPTION = `Check the "${DISPLAY_NAME}" credential: the n8n API URL must reach this n8n (from every process in queue mode), the API key must be valid and allowed to use data tables, and n8n's public API must be enabled.`;

/** The record could not be read or written; nothing was decided. Status 0: no answer. */
export function recordError(
	context: RecordContext,
	message: string,
	status = 0,
	kind?: RecordFailureKind,
	description = isSizeLimitFailure(message)
		? SIZE_LIMIT_DESCRIPTION
		: ((kind && DESCRIPTIONS[kind]) ?? FIX_DESCRIPTION),
): NodeOperationError {
	const error = operationError(context.getNode(), message, { description });
	error.context.status = status;
	if (kind !== undefined) error.context.failureKind = kind;
	return error;
}

/** A failure as this caller's record error (its node), keeping its status, kind and flags. */
export function recordErrorFor(
	context: RecordContext,
	error: unknown,
	message = (error as Error).message,
): NodeOperationError {
	if (!(error instanceof NodeOperationError)) return recordError(context, message);
	const made = recordError(context, message, 0, undefined, error.description ?? undefined);
	Object.assign(made.context, error.context);
	return made;
}

// Its message carries the fix: a failed activation and the service's 503 answer show only that.
const keyExpiredError = (context: RecordContext, at: number) => {
	const fix = `create a new key in n8n (Settings -> n8n API -> Create API key, Expiration "Never") and paste it into the credential`;
	const error = recordError(
		context,
		`${expiredMessage(at)}: ${fix}`,
		401,
		'credential',
		RECORD_KEY_STEPS,
	);
	error.context.keyExpired = true;
	return error;
};
export const isKeyExpiredError = (error: NodeOperationError) => error.context.keyExpired === true;

export const statusOfRecordError = (error: unknown) =>
	error instanceof NodeOperationError ? Number(error.context.status ?? 0) : 0;
export const kindOfRecordError = (error: unknown) =>
	error instanceof NodeOperationError
		? (error.context.failureKind as RecordFailureKind | undefined)
		: undefined;
export const isTransientFailure = (error: unknown) => isTransient(kindOfRecordError(error));

/** Why a record call failed, for a report in the user's words. */
export type RecordFailureCause = ReturnType<typeof recordFailureCauseOf>;
export function recordFailureCauseOf(error: unknown) {
	if (isSizeLimitFailure((error as Error)?.message ?? '')) return 'storageFull';
	const kind = kindOfRecordError(error);
	if (kind === 'credential') return 'recordKey';
	if (kind === 'unavailable') return 'apiUnavailable';
	if (kind === 'rateLimited') return 'apiRateLimited';
	return 'recordUnusable';
}

export const pendingRetryMs = () => state.timing.pendingRetryMs;
const DEFAULT_STORAGE_LIMIT_MB = 200; // @n8n/config's DataTableConfig
const CREDENTIAL_REUSE_MS = 60_000;

// The record credential, reused for a minute unless `fresh`: a read costs n8n an expression isolate,
// and httpRequestWithAuthentication would read it on every call (most of a delivery's cost in
// queue mode). A 401 reads it afresh, so a replaced key counts at once.
export async function targetOf(context: RecordContext, fresh = false): Promise<RecordTarget> {
	const credentialId = context.getNode().credentials?.[RECORD_CREDENTIAL]?.id ?? undefined;
	const cached = credentialId === undefined ? undefined : state.credentials.get(credentialId);
	if (!fresh && cached !== undefined && Date.now() - cached.readAt < CREDENTIAL_REUSE_MS)
		return cached;
	assertCredentialSelected(context.getNode(), RECORD_CREDENTIAL, DISPLAY_NAME);
	const credentials = await context.getCredentials(RECORD_CREDENTIAL);
	const baseUrl = baseUrlOf(credentials.baseUrl);
	const tableName = String(credentials.dataTableName ?? '').trim() || 'contact_center_record';
	if (!/^https?:\/\//i.test(baseUrl)) {
		const message = `The n8n API URL of the "${DISPLAY_NAME}" credential is not an http(s) URL: "${baseUrl}"`;
		throw recordError(context, message);
	}
	const apiKey = String(credentials.apiKey ?? '').trim();
	const fingerprint = createHash('sha256').update(apiKey).digest('hex').slice(0, 16);
	const limitMb =
		credentials.customStorageLimit === true ? Number(credentials.storageLimitMb ?? 0) : 0;
	const target: RecordTarget = {
		baseUrl,
		tableName,
		apiKey,
		expiry: keyExpiryOf(apiKey),
		cacheKey: `${baseUrl} ${tableName} ${fingerprint}`,
		readAt: Date.now(),
		storageLimitBytes: (limitMb > 0 ? limitMb : DEFAULT_STORAGE_LIMIT_MB) * 1024 * 1024,
		credentialId,
	};
	if (credentialId !== undefined) state.credentials.set(credentialId, target);
	return target;
}

/** Whether the key may be taken to work without a call; only then do the once indexes answer. */
export const keyUsable = (target: RecordTarget, now = Date.now()) =>
	!memoryOfKey(target).lastCallFailed && expiredAt(target.expiry, now) === undefined;

/** Throws n8n's size limit refusal of the last write, for 30 s unless a write is taken since. */
export async function refuseWhileStorageFull(context: RecordContext): Promise<void> {
	const refusal = memoryOfKey(await targetOf(context)).fullStorage;
	if (refusal !== undefined && Date.now() - refusal.at < 30_000)
		throw recordError(context, refusal.message, 400, 'refused');
}

/**
 * A call to n8n's public API, tried again (recordRetryDelayMs) within state.timing.retryBudgetMs; a
 * refused or expired key is read afresh once, as the user may have pasted a new one.
 */
export async function api(
	context: RecordContext,
	target: RecordTarget,
	method: IHttpRequestMethods,
	path: string,
	{ qs, body }: { qs?: IDataObject; body?: IDataObject } = {},
): Promise<unknown> {
	const memory = memoryOfKey(target);
	// n8n checks row inserts and updates against its size limit (data-table.service.js).
	const sizeChecked = (method === 'POST' || method === 'PATCH') && path.includes('/rows');
	const startedAt = Date.now();
	let attempt = target;
	let readAfresh = false;
	let failure: RecordFailure | undefined;
	let answered = false;
	try {
		for (let retries = 0; ; ) {
			const expired = expiredAt(attempt.expiry, Date.now());
			if (expired !== undefined) {
				if (readAfresh || target.credentialId === undefined)
					throw keyExpiredError(context, expired);
				readAfresh = true;
				attempt = await targetOf(context, true);
				continue;
			}
			try {
				const answer = await context.helpers.httpRequest({
					method,
					url: `${attempt.baseUrl}${path}`,
					headers: { 'X-N8N-API-KEY': attempt.apiKey },
					json: true,
					timeout: state.timing.attemptTimeoutMs,
					...(qs ? { qs } : {}),
					...(body ? { body } : {}),
				});
				failure = textAnswerFailure(answer);
				if (failure === undefined) {
					answered = true;
					if (sizeChecked) memory.fullStorage = undefined;
					return answer;
				}
			} catch (thrown) {
				failure = classifyRecordFailure(thrown as HttpFailure);
			}
			if (failure.status === 401 && !readAfresh && target.credentialId !== undefined) {
				readAfresh = true;
				attempt = await targetOf(context, true);
				continue;
			}
			const remainingMs = startedAt + state.timing.retryBudgetMs - Date.now();
			const delay = recordRetryDelayMs(failure, retries++, remainingMs);
			if (delay === undefined) break;
			context.logger.debug(
				`Contact Center record: ${method} ${path} failed (${failure.status || 'no answer'}: ${failure.message}), trying again in ${delay} ms`,
			);
			await sleep(delay);
		}
		const where = `The record (n8n data table "${target.tableName}" at ${target.baseUrl})`;
		const message = isTransient(failure.kind)
			? `${where} could not be used: ${recordFailureText(failure, { method, path }, Date.now() - startedAt)}`
			: failure.status === 401
				? `n8n at ${target.baseUrl} refused the n8n API key of the "${DISPLAY_NAME}" credential (HTTP 401): check the key you pasted into its n8n API Key field`
				: `${where} answered ${failure.status}: ${failure.message}`;
		if (sizeChecked && isSizeLimitFailure(message))
			memory.fullStorage = { message, at: Date.now() };
		throw recordError(context, message, failure.status, failure.kind);
	} finally {
		memory.lastCallFailed = !answered;
	}
}

/** The credential read afresh at activation: throws if its key expired, logs if it soon will. */
export async function targetForActivation(context: IHookFunctions): Promise<RecordTarget> {
	const target = await targetOf(context, true).catch((error: Error) => {
		throw error instanceof NodeOperationError ? error : recordError(context, error.message);
	});
	const now = Date.now();
	const expired = expiredAt(target.expiry, now);
	if (expired !== undefined) throw keyExpiredError(context, expired);
	const warning = runWarningOf(target.expiry, now);
	if (warning !== undefined) context.logger.warn(`Contact Center: ${warning}`);
	return target;
}

/** Warns in the run and n8n's log of a key expiring within a week; `readAfresh`: a switched key. */
export async function warnIfKeyExpiresSoon(
	context: IExecuteFunctions,
	{ readAfresh = false }: { readAfresh?: boolean } = {},
): Promise<void> {
	// A credential that cannot be read fails the run's first record call, which names the cause.
	const target = await targetOf(context, readAfresh).catch((error: Error) => {
		context.logger.debug(
			`Contact Center: the record credential could not be read to check its key's expiry (${error.message}); the run's first record call reports it`,
		);
		return undefined;
	});
	const message = target && runWarningOf(target.expiry);
	if (message === undefined) return;
	context.addExecutionHints({ message, type: 'warning', location: 'outputPane' });
	const meta = { workflowId: context.getWorkflow().id, node: context.getNode().name };
	context.logger.warn(`Contact Center: ${message}`, meta);
}
