import { createHash, randomBytes } from 'crypto';

import {
	NodeOperationError,
	sleep,
	type IDataObject,
	type IExecuteFunctions,
	type IHookFunctions,
	type IHttpRequestMethods,
	type IWebhookFunctions,
} from 'n8n-workflow';

import {
	DEFAULT_RECORD_WINDOWS,
	MAX_RECORD_RETENTION_MS,
	RECORD_COLUMNS,
	decideClaim,
	ownClaimRows,
	filterOf,
	anyIdFilter,
	anyKeyFilter,
	decideRead,
	keyFilter,
	rowKeyOf,
	rowsOf,
	type RecordFilter,
	type ReadDecision,
	type RecordRow,
	type RecordWindows,
} from './rows';
import { ScopeIndex } from './scopeIndex';
import { assertCredentialSelected } from '../credentialSelection';
import {
	NEW_KEY_STEPS,
	RUN_WARNS_WITHIN_DAYS,
	expiredMessage,
	expiresSoonMessage,
	expiredAt,
	expiresWithinDays,
	keyExpiryOf,
	type KeyExpiry,
} from './apiKey';
import { inBatch, type Gather } from './batches';
import {
	classifyRecordFailure,
	recordTiming,
	isSizeLimitFailure,
	recordFailureText,
	recordRetryDelayMs,
	textAnswerFailure,
	type HttpFailure,
	type RecordFailure,
	type RecordFailureKind,
} from './failure';

export const RECORD_CREDENTIAL = 'contactCenterRecordApi';
export const RECORD_CREDENTIAL_DISPLAY_NAME = 'Contact Center Record API';

type RecordContext = IExecuteFunctions | IWebhookFunctions | IHookFunctions;

export type ClaimResult =
	/**
	 * `claimId`: the claim's row, to pass to markDone. `abandonedAt`: an earlier claim of the key
	 * was left by a process that stopped (see decideClaim).
	 */
	| { state: 'claimed'; claimId: number; abandonedAt?: number }
	| { state: 'done'; at: number; detail: string }
	| { state: 'running'; since?: number };

export type CheckResult =
	| { state: 'done'; at: number; detail: string }
	/** `since`: when the claim that holds the key was taken. */
	| { state: 'running'; since: number }
	| { state: 'free' };

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
function recordError(
	context: RecordContext,
	message: string,
	status = 0,
	kind?: RecordFailureKind,
	description = descriptionOf(kind, message),
): NodeOperationError {
	const error = new NodeOperationError(context.getNode(), message, { description });
	error.context.status = status;
	if (kind !== undefined) error.context.failureKind = kind;
	return error;
}

/** Said where n8n shows only an error's message (a failed activation, the service's 503 answer, the log), so it carries the fix. */
const keyExpiredError = (context: RecordContext, at: number) =>
	recordError(
		context,
		`${expiredMessage(at)}: create a new key in n8n (Settings -> n8n API -> Create an API key, Expiration "No expiration") and paste it into the credential`,
		401,
		'credential',
		NEW_KEY_STEPS,
	);

const statusOfRecordError = (error: unknown) =>
	error instanceof NodeOperationError ? Number(error.context.status ?? 0) : 0;

const kindOfRecordError = (error: unknown) =>
	error instanceof NodeOperationError
		? (error.context.failureKind as RecordFailureKind | undefined)
		: undefined;

/**
 * How long a claim waits between inserting its row and reading its key's rows. An insert takes
 * its row id before it commits; this lets a concurrent insert with a lower id commit first, so
 * that every process sees the same oldest claim.
 */
const CLAIM_SETTLE_MS = 50;

/**
 * Table ids by API URL, table name and API key (each n8n user has tables of their own): only a
 * cache, looked up again when a call gets 403 or 404.
 */
const tableIds = new Map<string, string>();

/** When this process last removed rows past the retention, per table. */
const lastPruned = new Map<string, number>();
const PRUNE_EVERY_MS = 60 * 60 * 1000;

interface RecordTarget {
	baseUrl: string;
	tableName: string;
	apiKey: string;
	expiry: KeyExpiry;
	/** API URL, table name and a fingerprint of the key: nothing cached is shared by two keys. */
	cacheKey: string;
	/** When the credential was read (ms since the epoch). */
	readAt: number;
	credentialId?: string;
}

/** How long a record credential read is reused without reading it again. */
const CREDENTIAL_REUSE_MS = 60_000;

/**
 * Record credentials by credential id. Reading a credential costs n8n an expression isolate (its
 * CredentialsHelper resolves the credential's defaults in a throw-away workflow), and so does
 * n8n's generic authentication for each request: with three record calls per write back that was
 * most of a delivery's cost in queue mode. Only a cache: a 401 reads the credential afresh and
 * retries once, so a replaced key counts at once.
 */
const recordCredentials = new Map<string, RecordTarget>();

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
	const target: RecordTarget = {
		baseUrl,
		tableName,
		apiKey,
		expiry: keyExpiryOf(apiKey),
		cacheKey: `${baseUrl} ${tableName} ${createHash('sha256').update(apiKey).digest('hex').slice(0, 16)}`,
		readAt: Date.now(),
		credentialId,
	};
	if (credentialId !== undefined) recordCredentials.set(credentialId, target);
	return target;
}

async function targetOf(context: RecordContext, fresh = false): Promise<RecordTarget> {
	const credentialId = context.getNode().credentials?.[RECORD_CREDENTIAL]?.id ?? undefined;
	const cached = credentialId === undefined ? undefined : recordCredentials.get(credentialId);
	if (!fresh && cached !== undefined && Date.now() - cached.readAt < CREDENTIAL_REUSE_MS)
		return cached;
	return await readTarget(context, credentialId);
}

/**
 * One call to n8n's public API with the record credential's key (read by targetOf, see
 * recordCredentials for why not httpRequestWithAuthentication, which reads the credential per call).
 */
async function send(
	context: RecordContext,
	target: RecordTarget,
	method: IHttpRequestMethods,
	path: string,
	options: { qs?: IDataObject; body?: IDataObject },
): Promise<unknown> {
	return await context.helpers.httpRequest({
		method,
		url: `${target.baseUrl}${path}`,
		headers: { 'X-N8N-API-KEY': target.apiKey },
		json: true,
		timeout: recordTiming.attemptTimeoutMs,
		...(options.qs ? { qs: options.qs } : {}),
		...(options.body ? { body: options.body } : {}),
	});
}

/**
 * The records (by cacheKey) whose last call failed: a check answers from an index of such a
 * record no longer, but reads, so that a record that cannot be used (a revoked or expired key,
 * the API switched off) refuses deliveries before their run, as without the index.
 */
const failingRecords = new Set<string>();

async function api(
	context: RecordContext,
	target: RecordTarget,
	method: IHttpRequestMethods,
	path: string,
	options: { qs?: IDataObject; body?: IDataObject } = {},
): Promise<unknown> {
	let answered = false;
	try {
		const answer = await callApi(context, target, method, path, options);
		answered = true;
		return answer;
	} finally {
		if (answered) failingRecords.delete(target.cacheKey);
		else failingRecords.add(target.cacheKey);
	}
}

/**
 * Makes the call, riding out what passes: a 429 waits as long as its Retry-After asks, a 5xx or a
 * call n8n did not answer is tried again with back-off, for up to recordTiming.retryBudgetMs
 * (see recordRetryDelayMs). A refused or expired key is read afresh once: the user may have pasted a
 * new one. Whatever still fails throws a node error that names the real cause.
 */
async function callApi(
	context: RecordContext,
	target: RecordTarget,
	method: IHttpRequestMethods,
	path: string,
	options: { qs?: IDataObject; body?: IDataObject },
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
			startedAt + recordTiming.retryBudgetMs - Date.now(),
		);
		if (delay === undefined) break;
		retries++;
		context.logger.debug(
			`Contact Center record: ${method} ${path} failed (${failure.status || 'no answer'}: ${failure.message}), trying again in ${delay} ms`,
		);
		await sleep(delay);
	}
	const text = recordFailureText(failure, { method, path }, Date.now() - startedAt);
	throw recordError(
		context,
		failure.kind === 'rateLimited' || failure.kind === 'unavailable'
			? `The record (n8n data table "${target.tableName}" at ${target.baseUrl}) could not be used: ${text}`
			: `The record (n8n data table "${target.tableName}" at ${target.baseUrl}) answered ${failure.status}: ${failure.message}`,
		failure.status,
		failure.kind,
	);
}

async function findTable(
	context: RecordContext,
	target: RecordTarget,
): Promise<string | undefined> {
	const found = (await api(context, target, 'GET', '/data-tables', {
		qs: { filter: JSON.stringify({ name: target.tableName }), limit: 10 },
	})) as { data?: Array<{ id?: unknown; name?: unknown }> };
	const table = (found?.data ?? []).find((entry) => entry.name === target.tableName);
	return table?.id === undefined ? undefined : String(table.id);
}

/** The record's data table id, created with its columns when it does not exist yet. */
async function tableIdOf(context: RecordContext, target: RecordTarget): Promise<string> {
	const cached = tableIds.get(target.cacheKey);
	if (cached !== undefined) return cached;
	let id = await findTable(context, target);
	if (id === undefined) {
		try {
			const created = (await api(context, target, 'POST', '/data-tables', {
				body: { name: target.tableName, columns: RECORD_COLUMNS.map((column) => ({ ...column })) },
			})) as { id?: unknown };
			id = created?.id === undefined ? undefined : String(created.id);
		} catch (error) {
			// Another process created it at the same moment.
			id = await findTable(context, target);
			if (id === undefined) {
				throw recordError(
					context,
					`The record's data table "${target.tableName}" could not be created: ${(error as Error).message}`,
					statusOfRecordError(error),
					kindOfRecordError(error),
				);
			}
		}
	}
	if (id === undefined) {
		throw recordError(
			context,
			`n8n did not return an id for the record's data table "${target.tableName}"`,
		);
	}
	tableIds.set(target.cacheKey, id);
	return id;
}

/**
 * Calls the record's table. A 404 (the table was deleted meanwhile) or a 403 (a cached table of
 * another user, or a key switched since) reads the credential afresh and looks the table up or
 * creates it again, once.
 */
async function onTable<T>(
	context: RecordContext,
	call: (tableId: string, target: RecordTarget) => Promise<T>,
): Promise<T> {
	const target = await targetOf(context);
	const tableId = await tableIdOf(context, target);
	const first = await call(tableId, target).then(
		(value) => ({ ok: true as const, value }),
		(error: unknown) => ({ ok: false as const, error }),
	);
	if (first.ok) return first.value;
	const status = statusOfRecordError(first.error);
	const kind = kindOfRecordError(first.error);
	if (!(kind === 'notFound' || (kind === 'credential' && status === 403))) {
		if (first.error instanceof NodeOperationError) throw first.error;
		throw recordError(context, (first.error as Error).message, status);
	}
	tableIds.delete(target.cacheKey);
	const fresh = await targetOf(context, target.credentialId !== undefined);
	tableIds.delete(fresh.cacheKey);
	return await call(await tableIdOf(context, fresh), fresh);
}

const rowsPath = (tableId: string) => `/data-tables/${encodeURIComponent(tableId)}/rows`;

/**
 * This process's indexes of scopes whose every row it writes itself (see check's `fromIndex`), by
 * scope, API URL and table id. Only a cache of the record: built from it by reading it, dropped at
 * each activation of the scope's trigger, never needed after a restart.
 */
const scopeIndexes = new Map<string, ScopeIndex>();

/** When a failed index load may be tried again, by index key. */
const indexRetryAt = new Map<string, number>();
const INDEX_RETRY_MS = 60_000;

/** n8n's public API returns at most this many rows per page (MAX_ITEMS_PER_PAGE, @n8n/api-types). */
const PAGE_ROWS = 250;

const indexKeyOf = (scope: string, target: RecordTarget, tableId: string) =>
	`${scope} ${target.baseUrl} ${tableId}`;

/** The indexes that must learn of a write into this table (row ids are unique per table). */
function indexesOfTable(target: RecordTarget, tableId: string): ScopeIndex[] {
	const suffix = ` ${target.baseUrl} ${tableId}`;
	return [...scopeIndexes].filter(([key]) => key.endsWith(suffix)).map(([, index]) => index);
}

/**
 * Reads the scope's rows after the index's last read row id into it, 250 a call (n8n indexes the
 * id, so a call neither scans the table nor re-reads the rows before); rows past the longest
 * retention are left out. Returns the number of calls.
 */
async function readIntoIndex(
	context: RecordContext,
	target: RecordTarget,
	tableId: string,
	index: ScopeIndex,
): Promise<number> {
	const since = Date.now() - MAX_RECORD_RETENTION_MS;
	for (let calls = 1; ; calls++) {
		const answer = (await api(context, target, 'GET', rowsPath(tableId), {
			qs: {
				filter: JSON.stringify(
					filterOf([
						['scope', 'eq', index.scope],
						['id', 'gt', index.readThroughId],
						['stateAt', 'gte', since],
					]),
				),
				sortBy: 'id:asc',
				limit: PAGE_ROWS,
			},
		})) as { data?: unknown[] };
		const rows = rowsOf(answer);
		index.addRead(rows);
		if ((answer?.data?.length ?? 0) < PAGE_ROWS || rows.length === 0) return calls;
	}
}

async function loadIndex(
	context: RecordContext,
	target: RecordTarget,
	tableId: string,
	index: ScopeIndex,
): Promise<void> {
	const calls = await readIntoIndex(context, target, tableId, index);
	index.finishLoading();
	context.logger.info(
		`Contact Center record: ${index.doneKeys} done keys of ${index.scope} loaded into this process's index in ${Date.now() - index.startedAt} ms (${calls} calls)`,
	);
}

/** How long rows others add to a scope may go unseen by the scope's loaded index. */
const CATCH_UP_EVERY_MS = 60_000;

/**
 * Reads the rows added to the scope since the index last read them (by hand, or by another n8n
 * sharing the table) when that was a minute ago or more: one read by row id (which n8n indexes),
 * shared by the checks that arrive meanwhile.
 */
async function catchUpOnceAMinute(
	context: RecordContext,
	target: RecordTarget,
	tableId: string,
	index: ScopeIndex,
	now: number,
): Promise<void> {
	if (now - index.caughtUpAt < CATCH_UP_EVERY_MS) return;
	await inBatch(laneOf(`catch up ${index.scope}`, target, tableId), now, async (waiting) => {
		if (Date.now() - index.caughtUpAt >= CATCH_UP_EVERY_MS) {
			const startedAt = Date.now();
			await readIntoIndex(context, target, tableId, index);
			index.caughtUpAt = startedAt;
		}
		return waiting;
	});
}

/** The scope's index; starts loading it in the background when this process has none. */
function scopeIndexOf(
	context: RecordContext,
	target: RecordTarget,
	tableId: string,
	scope: string,
	now: number,
): ScopeIndex | undefined {
	const key = indexKeyOf(scope, target, tableId);
	const known = scopeIndexes.get(key);
	if (known !== undefined || now < (indexRetryAt.get(key) ?? 0)) return known;
	const index = new ScopeIndex(scope, now);
	scopeIndexes.set(key, index);
	void loadIndex(context, target, tableId, index).catch((error: Error) => {
		if (scopeIndexes.get(key) === index) scopeIndexes.delete(key);
		indexRetryAt.set(key, Date.now() + INDEX_RETRY_MS);
		context.logger.warn(
			`Contact Center record: loading the index of ${scope} failed (${error.message}); reading the record per delivery meanwhile`,
		);
	});
	return index;
}

/** Every row of these row keys, oldest first, following n8n's pages. */
async function readKeys(
	context: RecordContext,
	target: RecordTarget,
	tableId: string,
	rowKeys: string[],
): Promise<RecordRow[]> {
	const rows: RecordRow[] = [];
	const filter = JSON.stringify(anyKeyFilter([...new Set(rowKeys)]));
	for (let cursor: string | undefined, page = 0; page < 100; page++) {
		const answer = (await api(context, target, 'GET', rowsPath(tableId), {
			qs: { filter, sortBy: 'id:asc', limit: 250, ...(cursor ? { cursor } : {}) },
		})) as { nextCursor?: unknown };
		rows.push(...rowsOf(answer));
		cursor = typeof answer?.nextCursor === 'string' ? answer.nextCursor : undefined;
		if (cursor === undefined) break;
	}
	return rows;
}

const laneOf = (kind: string, target: RecordTarget, tableId: string) =>
	`${kind} ${target.baseUrl} ${tableId} ${target.apiKey}`;

/** Inserts rows (batched with the process's concurrent inserts); resolves with the row's id. */
async function insertRow(
	context: RecordContext,
	target: RecordTarget,
	tableId: string,
	row: Omit<RecordRow, 'id'>,
	gather?: Gather,
): Promise<number> {
	return await inBatch(
		laneOf('insert', target, tableId),
		row,
		async (rows) => {
			const inserted = await api(context, target, 'POST', rowsPath(tableId), {
				body: { data: rows as unknown as IDataObject[], returnType: 'id' },
			});
			const ids = (Array.isArray(inserted) ? inserted : []).map((entry) =>
				Number((entry as { id?: unknown })?.id),
			);
			if (ids.length !== rows.length || !ids.every(Number.isFinite)) {
				throw recordError(
					context,
					`n8n did not return the ids of the new rows in the record: ${JSON.stringify(inserted)}`,
				);
			}
			for (const index of indexesOfTable(target, tableId))
				rows.forEach((written, i) => index.inserted({ ...written, id: ids[i] }));
			return ids;
		},
		gather,
	);
}

/** The rows of one row key (read together with the process's concurrent reads). */
async function rowsOfKey(
	context: RecordContext,
	target: RecordTarget,
	tableId: string,
	rowKey: string,
): Promise<RecordRow[]> {
	return await inBatch(laneOf('read', target, tableId), rowKey, async (rowKeys) => {
		const rows = (await readKeys(context, target, tableId, rowKeys)).filter(
			(row) => !pendingRelease.has(releaseKeyOf(tableId, row.id)),
		);
		return rowKeys.map((key) => rows.filter((row) => row.recordKey === key));
	});
}

/** Deletes rows by id (together with the process's concurrent deletes). */
async function deleteRow(
	context: RecordContext,
	target: RecordTarget,
	tableId: string,
	id: number,
) {
	await inBatch(laneOf('delete', target, tableId), id, async (ids) => {
		await deleteRows(context, target, tableId, anyIdFilter(ids));
		for (const index of indexesOfTable(target, tableId)) index.deleted(ids);
		return ids.map(() => undefined);
	});
}

async function deleteRows(
	context: RecordContext,
	target: RecordTarget,
	tableId: string,
	filter: RecordFilter,
) {
	await api(context, target, 'DELETE', `${rowsPath(tableId)}/delete`, {
		qs: { filter: JSON.stringify(filter) },
	});
}

/**
 * Deletes the rows of a claim that failed before it was decided (found by its token, as an insert
 * whose answer was lost leaves a row nobody knows the id of). When n8n's API does not take that
 * either, this process leaves the claim's row (`insertedId`, when known) out of its decisions and
 * keeps deleting the rows in the background; the claim's own failure is what its caller reports.
 */
async function dropClaimRows(
	context: RecordContext,
	target: RecordTarget,
	tableId: string,
	rowKey: string,
	token: string,
	insertedId?: number,
) {
	const drop = async () =>
		await deleteRows(
			context,
			target,
			tableId,
			filterOf([
				['recordKey', 'eq', rowKey],
				['detail', 'eq', token],
			]),
		);
	const failure = await drop().then(
		() => undefined,
		(error: unknown) => error as Error,
	);
	if (failure === undefined) return;
	context.logger.warn(
		`Contact Center record: a claim of ${rowKey} failed and its row could not be deleted yet (${failure.message}); this process ignores it and keeps deleting it`,
	);
	const releaseKey = insertedId === undefined ? undefined : releaseKeyOf(tableId, insertedId);
	if (releaseKey !== undefined) pendingRelease.add(releaseKey);
	void keepTrying(context, `failed claim of ${rowKey} deleted`, drop).finally(() => {
		if (releaseKey !== undefined) pendingRelease.delete(releaseKey);
	});
}

/** Removes rows past the longest retention any user of the table may ask for. */
function pruneNowAndThen(context: RecordContext, now: number) {
	void onTable(context, async (tableId, target) => {
		if (now - (lastPruned.get(tableId) ?? 0) < PRUNE_EVERY_MS) return;
		lastPruned.set(tableId, now);
		await deleteRows(
			context,
			target,
			tableId,
			filterOf([['stateAt', 'lt', now - MAX_RECORD_RETENTION_MS]]),
		);
	}).catch((error: Error) => {
		context.logger.warn(`Contact Center record: removing expired rows failed: ${error.message}`);
	});
}

/**
 * Work done in this process whose `done` row n8n's API has not taken yet, by row key: counted as
 * done by check and claim until its row is written (see markDoneAndKeepTrying). Lost with the
 * process: in queue mode the claim's `running` row keeps holding the key meanwhile.
 */
const pendingDone = new Map<string, { at: number; detail: string }>();

/**
 * Claim rows this process gave up (see release) whose delete n8n's API has not taken yet, by
 * table id and row id: left out of this process's decisions at once, deleted in the background.
 */
const pendingRelease = new Set<string>();

const releaseKeyOf = (tableId: string, id: number) => `${tableId} ${id}`;

/**
 * Tries a record write again in the background until n8n's API takes it, waiting longer each
 * time (recordTiming.pendingRetryMs, doubling, up to a minute), for at most the record's longest
 * retention. Resolves once written or given up.
 */
async function keepTrying(
	context: RecordContext,
	what: string,
	write: () => Promise<unknown>,
): Promise<void> {
	const since = Date.now();
	for (let tries = 0; Date.now() - since < MAX_RECORD_RETENTION_MS; tries++) {
		await sleep(Math.min(60_000, recordTiming.pendingRetryMs * 2 ** tries));
		try {
			await write();
			context.logger.info(`Contact Center record: ${what} after ${tries + 1} more tries`);
			return;
		} catch (error) {
			context.logger.debug(
				`Contact Center record: ${what} failed again: ${(error as Error).message}`,
			);
		}
	}
}

/**
 * The durable record of work done, shared by every n8n process: one small store with a few verbs.
 * `scope` separates users of one table (a trigger's webhook id, a send's workflow); `recordKey`
 * names the piece of work (an idempotency key, a message's send once key).
 */
export const durableRecord = {
	/** Checks that the record can be used, creating its data table; throws a node error if not. */
	async ensureReady(context: IHookFunctions): Promise<void> {
		try {
			const target = await targetOf(context, true);
			const now = Date.now();
			const expired = expiredAt(target.expiry, now);
			if (expired !== undefined) throw keyExpiredError(context, expired);
			const expiresSoon = expiresWithinDays(target.expiry, RUN_WARNS_WITHIN_DAYS, now);
			if (expiresSoon !== undefined) {
				context.logger.warn(`Contact Center: ${expiresSoonMessage(expiresSoon, now)}`);
			}
			tableIds.delete(target.cacheKey);
			const tableId = await tableIdOf(context, target);
			await api(context, target, 'GET', rowsPath(tableId), { qs: { limit: 1 } });
		} catch (error) {
			const cause = error as NodeOperationError;
			throw new NodeOperationError(
				context.getNode(),
				`The write back record cannot be used: ${cause.message}`,
				{ description: cause.description ?? recordFixDescription },
			);
		}
	},

	/**
	 * Drops this process's index of the scope (see check's `fromIndex`), so that the next check
	 * loads it from the record again: rows written or deleted by hand or by another process count
	 * from then on.
	 */
	forgetIndex(scope: string): void {
		for (const key of [...scopeIndexes.keys()]) {
			if (key.startsWith(`${scope} `)) {
				scopeIndexes.delete(key);
				indexRetryAt.delete(key);
			}
		}
	},

	/**
	 * Warns in the run (an execution hint under the node's output, and n8n's log) when the record
	 * credential's key expires within a week; a key that cannot be read is left to the record calls.
	 * `readAfresh`: reads the credential now rather than within the minute it is reused, so that a
	 * key switched since the last run is the one this run uses.
	 */
	async warnIfKeyExpiresSoon(
		context: IExecuteFunctions,
		{ readAfresh = false }: { readAfresh?: boolean } = {},
	): Promise<void> {
		const target = await targetOf(context, readAfresh).catch(() => undefined);
		const now = Date.now();
		const expiresSoon =
			target === undefined
				? undefined
				: expiresWithinDays(target.expiry, RUN_WARNS_WITHIN_DAYS, now);
		if (expiresSoon === undefined) return;
		const message = expiresSoonMessage(expiresSoon, now);
		context.addExecutionHints({ message, type: 'warning', location: 'outputPane' });
		context.logger.warn(`Contact Center: ${message}`, {
			workflowId: context.getWorkflow().id,
			node: context.getNode().name,
		});
	},

	/**
	 * Takes the key for this process, unless it was done within the retention or another live
	 * claim holds it. Each claim is one inserted row; the oldest live one wins. A claim that fails
	 * on its way deletes the rows it inserted, so that no claim stays behind without a run.
	 */
	async claim(
		context: RecordContext,
		scope: string,
		key: string,
		windows: RecordWindows = DEFAULT_RECORD_WINDOWS,
	): Promise<ClaimResult> {
		const rowKey = rowKeyOf(scope, key);
		const pending = pendingDone.get(rowKey);
		if (pending !== undefined) return { state: 'done', at: pending.at, detail: pending.detail };
		return await onTable(context, async (tableId, target) => {
			for (let attempt = 0; attempt < 3; attempt++) {
				// Names this claim's rows: an insert whose answer was lost and was sent again adds
				// a second row that is ours as well.
				const token = `claim:${randomBytes(12).toString('hex')}`;
				let decided = false;
				let insertedId: number | undefined;
				try {
					insertedId = await insertRow(context, target, tableId, {
						scope,
						recordKey: rowKey,
						state: 'running',
						stateAt: Date.now(),
						detail: token,
					});
					await sleep(CLAIM_SETTLE_MS);
					const now = Date.now();
					const { ownId, otherOwnIds, rows } = ownClaimRows(
						await rowsOfKey(context, target, tableId, rowKey),
						insertedId,
						token,
					);
					for (const id of otherOwnIds) await deleteRow(context, target, tableId, id);
					const decision = decideClaim(rows, ownId, now, windows);
					decided = true;
					if (decision.state === 'lost') continue;
					if (decision.state !== 'claimed') await deleteRow(context, target, tableId, ownId);
					pruneNowAndThen(context, now);
					if (decision.state === 'done')
						return { state: 'done', at: decision.row.stateAt, detail: decision.row.detail };
					if (decision.state === 'claimed') return { ...decision, claimId: ownId };
					return decision;
				} finally {
					// A claim that failed before it was decided leaves no row behind.
					if (!decided) await dropClaimRows(context, target, tableId, rowKey, token, insertedId);
				}
			}
			return { state: 'running' };
		});
	},

	/**
	 * What the record says of the key, a read only: done within the retention, held by a live
	 * claim, or free. For a caller that claims without a row of its own (the trigger in one n8n
	 * process) or that only asks whether the work was done before.
	 *
	 * `fromIndex`: only for a caller through which alone the scope's rows are written (the trigger
	 * in one n8n process): once this process's index of the scope (scopeIndex.ts) is loaded, a key
	 * it does not know is free without a call; a key it knows is read as without the index (so a
	 * row deleted by hand counts at once), and so is every key while the record's key has expired
	 * or its last call failed (failingRecords). The first such check starts loading the index in the
	 * background, and keys are read until it is loaded. Rows others add to the scope count from a
	 * minute after (catchUpOnceAMinute).
	 */
	async check(
		context: RecordContext,
		scope: string,
		key: string,
		windows: RecordWindows = DEFAULT_RECORD_WINDOWS,
		{ fromIndex = false }: { fromIndex?: boolean } = {},
	): Promise<CheckResult> {
		const rowKey = rowKeyOf(scope, key);
		const pending = pendingDone.get(rowKey);
		if (pending !== undefined) return { state: 'done', at: pending.at, detail: pending.detail };
		const now = Date.now();
		const decision = await onTable(context, async (tableId, target): Promise<ReadDecision> => {
			const index = fromIndex ? scopeIndexOf(context, target, tableId, scope, now) : undefined;
			const usable =
				!failingRecords.has(target.cacheKey) && expiredAt(target.expiry, now) === undefined;
			if (index?.isLoaded && usable) {
				await catchUpOnceAMinute(context, target, tableId, index, now);
				const known = index.decide(rowKey, now, windows);
				if (known?.state === 'free') return known;
				// Read again: a row deleted by hand (to allow a rerun) counts at once.
				const readStart = index.readStarts();
				const rows = await rowsOfKey(context, target, tableId, rowKey);
				index.replaceKey(rowKey, rows, readStart);
				return decideRead(rows, now, windows);
			}
			return decideRead(await rowsOfKey(context, target, tableId, rowKey), now, windows);
		});
		pruneNowAndThen(context, now);
		if (decision.state === 'done')
			return { state: 'done', at: decision.row.stateAt, detail: decision.row.detail };
		return decision;
	},

	/**
	 * Marks the key done: its claim's row (`claimId`, from claim) becomes `done` (one update by
	 * row id for the process's concurrent calls with the same detail); without a claim row to
	 * update, a `done` row is added (a `done` row outweighs any `running` row of its key).
	 * `gather`: a caller that knows of other calls on their way lets that insert wait for them
	 * (see Gather).
	 */
	async markDone(
		context: RecordContext,
		scope: string,
		key: string,
		detail = '',
		claimId?: number,
		gather?: Gather,
	): Promise<void> {
		await onTable(context, async (tableId, target) => {
			if (claimId !== undefined) {
				const updated = await inBatch(
					laneOf(`done ${detail}`, target, tableId),
					claimId,
					async (ids) => {
						const rows = rowsOf(
							await api(context, target, 'PATCH', `${rowsPath(tableId)}/update`, {
								body: {
									filter: anyIdFilter([...new Set(ids)]),
									data: { state: 'done', stateAt: Date.now(), detail },
									returnData: true,
								},
							}),
						);
						for (const index of indexesOfTable(target, tableId)) index.updated(rows);
						return ids.map((id) => rows.some((row) => row.id === id));
					},
				);
				if (updated) return;
			}
			await insertRow(
				context,
				target,
				tableId,
				{
					scope,
					recordKey: rowKeyOf(scope, key),
					state: 'done',
					stateAt: Date.now(),
					detail,
				},
				gather,
			);
		});
	},

	/**
	 * Marks the key done as markDone does; when n8n's API does not take the write now (after the
	 * retries of every record call), the key counts as done in this process at once (check and
	 * claim answer `done`) and its row is written in the background as soon as the API takes it.
	 * For work that has happened: it must never be done again because its row came late. Never
	 * throws; says whether the row is in the record or still to be written.
	 */
	async markDoneAndKeepTrying(
		context: RecordContext,
		scope: string,
		key: string,
		detail = '',
		claimId?: number,
		gather?: Gather,
	): Promise<'recorded' | 'pending'> {
		try {
			await durableRecord.markDone(context, scope, key, detail, claimId, gather);
			return 'recorded';
		} catch (error) {
			const rowKey = rowKeyOf(scope, key);
			pendingDone.set(rowKey, { at: Date.now(), detail });
			context.logger.warn(
				`Contact Center record: ${rowKey} is done but could not be recorded yet (${(error as Error).message}); this process counts it as done and keeps writing its row`,
			);
			void keepTrying(context, `${rowKey} recorded done`, async () => {
				await durableRecord.markDone(context, scope, key, detail, claimId);
			}).finally(() => pendingDone.delete(rowKey));
			return 'pending';
		}
	},

	/**
	 * Gives the key up (the work failed): its claim's row (`claimId`) is deleted, or without one
	 * every `running` row of the key, so the next attempt may run it at once. When n8n's API does
	 * not take the delete of a claim's row, this process leaves the row out of its decisions at
	 * once and deletes it in the background (another process sees the claim until then).
	 */
	async release(
		context: RecordContext,
		scope: string,
		key: string,
		claimId?: number,
	): Promise<void> {
		await onTable(context, async (tableId, target) => {
			if (claimId !== undefined) {
				const deleteClaim = async () => await deleteRow(context, target, tableId, claimId);
				const failure = await deleteClaim().then(
					() => undefined,
					(error: unknown) => error,
				);
				if (failure === undefined) return;
				const kind = kindOfRecordError(failure);
				if (kind !== 'rateLimited' && kind !== 'unavailable') {
					throw recordError(
						context,
						(failure as Error).message,
						statusOfRecordError(failure),
						kind,
					);
				}
				const releaseKey = releaseKeyOf(tableId, claimId);
				pendingRelease.add(releaseKey);
				context.logger.warn(
					`Contact Center record: the claim of ${rowKeyOf(scope, key)} could not be given up yet (${(failure as Error).message}); this process ignores it and keeps deleting it`,
				);
				void keepTrying(context, `claim of ${rowKeyOf(scope, key)} given up`, deleteClaim).finally(
					() => pendingRelease.delete(releaseKey),
				);
				return;
			}
			const rowKey = rowKeyOf(scope, key);
			await deleteRows(context, target, tableId, keyFilter(rowKey, 'running'));
			for (const index of indexesOfTable(target, tableId)) index.deletedRunning(rowKey);
		});
	},
};
