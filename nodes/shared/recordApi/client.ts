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
import { memoryOfKey, state, type RecordTarget } from './state';

export type { RecordTarget } from './state';
import { RECORD_KEY_STEPS, expiredAt, expiredMessage, keyExpiryOf } from './apiKey';
import {
	classifyRecordFailure,
	isSizeLimitFailure,
	recordFailureText,
	recordRetryDelayMs,
	textAnswerFailure,
	type HttpFailure,
	type RecordFailure,
	type RecordFailureKind,
} from './failure';

/**
 * The record's API client: the record credential (an n8n API key of this instance), one call to
 * n8n's public API with retries, and errors that name the real cause.
 */

export const RECORD_CREDENTIAL = 'contactCenterRecordApi';
const RECORD_CREDENTIAL_DISPLAY_NAME = 'Contact Center Record API';

export type RecordContext = IExecuteFunctions | IWebhookFunctions | IHookFunctions;

const recordFixDescription =
	'Check the "Contact Center Record API" credential: the n8n API URL must reach this n8n (from every process in queue mode), the API key must be valid and allowed to use data tables, and n8n\'s public API must be enabled.';

const sizeLimitDescription =
	"n8n refuses data table writes once all data tables of this n8n together reach N8N_DATA_TABLES_MAX_SIZE_BYTES (200 MB by default). Delete rows you no longer need from your own data tables, or raise that limit; the record's rows expire by themselves after 72 hours.";

const rateLimitDescription =
	"The API key is fine: an owner or admin of this n8n limits how many calls each API key may make (n8n 2.47 and later, reads and writes apart). Raise the limit of the record credential's key, or give the record a key that nothing else uses.";

const unavailableDescription =
	"The credential is not the problem: n8n's main instance (the credential's n8n API URL) did not answer in time. It may be restarting (a deploy or upgrade), overloaded, or its database may be failing; in queue mode every process's record calls go to the main instance.";

function descriptionOf(kind: RecordFailureKind | undefined, message: string): string {
	if (isSizeLimitFailure(message)) return sizeLimitDescription;
	if (kind === 'rateLimited') return rateLimitDescription;
	if (kind === 'unavailable') return unavailableDescription;
	return recordFixDescription;
}

/**
 * The record could not be read or written; nothing was decided. `context.status`: n8n API's HTTP
 * status, 0 if none; `context.failureKind`: why (see RecordFailureKind).
 */
export function recordError(
	context: RecordContext,
	message: string,
	status = 0,
	kind?: RecordFailureKind,
	description = descriptionOf(kind, message),
): NodeOperationError {
	const error = operationError(context.getNode(), message, { description });
	error.context.status = status;
	if (kind !== undefined) error.context.failureKind = kind;
	return error;
}

/** Said where n8n shows only an error's message (a failed activation, the service's 503 answer, the log), so it carries the fix. */
export const keyExpiredError = (context: RecordContext, at: number) =>
	recordError(
		context,
		`${expiredMessage(at)}: create a new key in n8n (Settings -> n8n API -> Create API key, Expiration "Never") and paste it into the credential`,
		401,
		'credential',
		RECORD_KEY_STEPS,
	);

/**
 * n8n answered 401 to a key that has not expired (an expired key is caught before the call, from its
 * `exp` claim): mistyped, cut short, deleted in n8n or made in another n8n.
 */
const keyRefusedMessage = (target: RecordTarget) =>
	`n8n at ${target.baseUrl} refused the n8n API key of the "${RECORD_CREDENTIAL_DISPLAY_NAME}" credential (HTTP 401): check the key you pasted into its n8n API Key field`;

export const statusOfRecordError = (error: unknown) =>
	error instanceof NodeOperationError ? Number(error.context.status ?? 0) : 0;

export const kindOfRecordError = (error: unknown) =>
	error instanceof NodeOperationError
		? (error.context.failureKind as RecordFailureKind | undefined)
		: undefined;

/** A failure a later try may not meet: n8n's API limited or did not answer the call. */
export const isPassingFailure = (error: unknown) => {
	const kind = kindOfRecordError(error);
	return kind === 'rateLimited' || kind === 'unavailable';
};

/** n8n's default N8N_DATA_TABLES_MAX_SIZE_BYTES, in MB (@n8n/config's DataTableConfig). */
const DEFAULT_STORAGE_LIMIT_MB = 200;

/** How long a record credential read is reused without reading it again. */
const CREDENTIAL_REUSE_MS = 60_000;

/*
 * Record credentials are kept by credential id (state.credentials). Reading a credential
 * costs n8n an expression isolate (its CredentialsHelper resolves the credential's defaults in a
 * throw-away workflow), and so does n8n's generic authentication for each request: with three
 * record calls per write back that was most of a delivery's cost in queue mode. Only a cache: a
 * 401 reads the credential afresh and retries once, so a replaced key counts at once.
 */

async function readTarget(context: RecordContext, credentialId?: string): Promise<RecordTarget> {
	assertCredentialSelected(context.getNode(), RECORD_CREDENTIAL, RECORD_CREDENTIAL_DISPLAY_NAME);
	const credentials = await context.getCredentials(RECORD_CREDENTIAL);
	const baseUrl = String(credentials.baseUrl ?? '')
		.trim()
		.replace(/\/+$/, '');
	const tableName = String(credentials.dataTableName ?? '').trim() || 'contact_center_record';
	if (!/^https?:\/\//i.test(baseUrl)) {
		throw recordError(
			context,
			`The n8n API URL of the "Contact Center Record API" credential is not an http(s) URL: "${baseUrl}"`,
		);
	}
	const apiKey = String(credentials.apiKey ?? '').trim();
	// Storage Limit (MB) counts only when the credential says this n8n sets a limit of its own.
	const storageLimitMb =
		credentials.customStorageLimit === true
			? Number(credentials.storageLimitMb ?? DEFAULT_STORAGE_LIMIT_MB)
			: DEFAULT_STORAGE_LIMIT_MB;
	const target: RecordTarget = {
		baseUrl,
		tableName,
		apiKey,
		expiry: keyExpiryOf(apiKey),
		cacheKey: `${baseUrl} ${tableName} ${createHash('sha256').update(apiKey).digest('hex').slice(0, 16)}`,
		readAt: Date.now(),
		storageLimitBytes:
			(storageLimitMb > 0 ? storageLimitMb : DEFAULT_STORAGE_LIMIT_MB) * 1024 * 1024,
		credentialId,
	};
	if (credentialId !== undefined) state.credentials.set(credentialId, target);
	return target;
}

/** The record credential, reused for a minute unless `fresh`. */
export async function targetOf(context: RecordContext, fresh = false): Promise<RecordTarget> {
	const credentialId = context.getNode().credentials?.[RECORD_CREDENTIAL]?.id ?? undefined;
	const cached = credentialId === undefined ? undefined : state.credentials.get(credentialId);
	if (!fresh && cached !== undefined && Date.now() - cached.readAt < CREDENTIAL_REUSE_MS)
		return cached;
	return await readTarget(context, credentialId);
}

type CallOptions = { qs?: IDataObject; body?: IDataObject };

/**
 * One call to n8n's public API with the record credential's key, read by targetOf (see above why
 * not httpRequestWithAuthentication, which reads the credential per call).
 */
async function send(
	context: RecordContext,
	target: RecordTarget,
	method: IHttpRequestMethods,
	path: string,
	options: CallOptions,
): Promise<unknown> {
	return await context.helpers.httpRequest({
		method,
		url: `${target.baseUrl}${path}`,
		headers: { 'X-N8N-API-KEY': target.apiKey },
		json: true,
		timeout: state.timing.attemptTimeoutMs,
		...(options.qs ? { qs: options.qs } : {}),
		...(options.body ? { body: options.body } : {}),
	});
}

/** Whether the key's last call failed (n8n's API refused it, limited it or did not answer). */
export const lastCallFailed = (target: RecordTarget) => memoryOfKey(target).lastCallFailed;

/**
 * Whether the key may be taken to work without a call: its last call did not fail and it has not
 * expired. A cache of the record (the once module's indexes) answers only for such a key, so that
 * a record that cannot be used (a revoked or expired key, the API switched off) refuses work as
 * its calls would.
 */
export const keyUsable = (target: RecordTarget, now = Date.now()) =>
	!lastCallFailed(target) && expiredAt(target.expiry, now) === undefined;

/*
 * A record whose last write n8n refused for its data table size limit (KeyMemory.fullStorage):
 * a write n8n takes clears it; without one it is believed for FULL_BELIEVED_MS.
 */
const FULL_BELIEVED_MS = 30_000;

/** The calls n8n checks against its size limit: row inserts and updates (data-table.service.js). */
const isSizeChecked = (method: IHttpRequestMethods, path: string) =>
	(method === 'POST' || method === 'PATCH') && path.includes('/rows');

/** n8n's words of its last size limit refusal of a write to this record, while believed. */
function storageFullMessage(target: RecordTarget, now = Date.now()): string | undefined {
	const refusal = memoryOfKey(target).fullStorage;
	return refusal !== undefined && now - refusal.at < FULL_BELIEVED_MS ? refusal.message : undefined;
}

/**
 * Throws n8n's size limit refusal while this process believes n8n's data table storage full
 * (see storageFullMessage): for a caller that would otherwise do its work before its first write.
 */
export async function refuseWhileStorageFull(context: RecordContext): Promise<void> {
	const full = storageFullMessage(await targetOf(context));
	if (full !== undefined) throw recordError(context, full, 400, 'refused');
}

/** A call to n8n's public API for the record; throws a node error naming the real cause. */
export async function api(
	context: RecordContext,
	target: RecordTarget,
	method: IHttpRequestMethods,
	path: string,
	options: CallOptions = {},
): Promise<unknown> {
	const memory = memoryOfKey(target);
	let answered = false;
	try {
		const answer = await callWithRetries(context, target, method, path, options);
		answered = true;
		if (isSizeChecked(method, path)) memory.fullStorage = undefined;
		return answer;
	} finally {
		memory.lastCallFailed = !answered;
	}
}

/**
 * Makes the call, riding out what passes: a 429 waits as long as its Retry-After asks, a 5xx or a
 * call n8n did not answer is tried again with back-off, for up to state.timing.retryBudgetMs
 * (see recordRetryDelayMs). A refused or expired key is read afresh once: the user may have pasted a
 * new one. Whatever still fails throws a node error that names the real cause.
 */
async function callWithRetries(
	context: RecordContext,
	target: RecordTarget,
	method: IHttpRequestMethods,
	path: string,
	options: CallOptions,
): Promise<unknown> {
	const startedAt = Date.now();
	let attempt = target;
	let readAfresh = false;
	let failure: RecordFailure | undefined;
	for (let retries = 0; ; ) {
		const expired = expiredAt(attempt.expiry, Date.now());
		if (expired !== undefined) {
			if (readAfresh || target.credentialId === undefined) throw keyExpiredError(context, expired);
			readAfresh = true;
			attempt = await targetOf(context, true);
			continue;
		}
		try {
			const answer = await send(context, attempt, method, path, options);
			failure = textAnswerFailure(answer);
			if (failure === undefined) return answer;
		} catch (thrown) {
			failure = classifyRecordFailure(thrown as HttpFailure);
		}
		if (failure.status === 401 && !readAfresh && target.credentialId !== undefined) {
			readAfresh = true;
			attempt = await targetOf(context, true);
			continue;
		}
		const delay = recordRetryDelayMs(
			failure,
			retries,
			startedAt + state.timing.retryBudgetMs - Date.now(),
		);
		if (delay === undefined) break;
		retries++;
		context.logger.debug(
			`Contact Center record: ${method} ${path} failed (${failure.status || 'no answer'}: ${failure.message}), trying again in ${delay} ms`,
		);
		await sleep(delay);
	}
	const text = recordFailureText(failure, { method, path }, Date.now() - startedAt);
	const message =
		failure.kind === 'rateLimited' || failure.kind === 'unavailable'
			? `The record (n8n data table "${target.tableName}" at ${target.baseUrl}) could not be used: ${text}`
			: failure.status === 401
				? keyRefusedMessage(target)
				: `The record (n8n data table "${target.tableName}" at ${target.baseUrl}) answered ${failure.status}: ${failure.message}`;
	if (isSizeChecked(method, path) && isSizeLimitFailure(message))
		memoryOfKey(target).fullStorage = { message, at: Date.now() };
	throw recordError(context, message, failure.status, failure.kind);
}
