/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/require-node-api-error -- test code: an HTTP server with timers, run in jest, never inside n8n */
/**
 * An in-memory stand-in of n8n's public REST API for data tables (`/api/v1/data-tables…`), a real
 * HTTP server on 127.0.0.1, with fault injection: so that the record's calls, made through
 * n8n-core's real `helpers.httpRequest` (axios), meet real status codes, headers, connection resets,
 * refused connections and time-outs, in milliseconds instead of a real n8n's minutes.
 *
 *   const api = await startDataTableApi();
 *   const alice = api.addUser('alice');               // a member; { userId, apiKey, projectId, … }
 *   // credential: { baseUrl: api.baseUrl, apiKey: alice.apiKey, dataTableName: 'contact_center_record' }
 *   api.setFaults(({ n }) => (n % 3 === 0 ? { status: 429, retryAfterSeconds: 1 } : undefined));
 *   void api.outage(2000);                             // refused connections for 2 s
 *   api.setFaults(({ operation }) => (operation === 'insertRows' ? { commitAfterMs: 500 } : undefined));
 *   api.rowsOf('contact_center_record', alice.apiKey); // what the table holds
 *   await api.stop();
 *
 * Modelled on n8n 2.41.1's own code (the ground truth; paths under node_modules/n8n/dist/):
 * - routes, query and body schemas: public-api/v1/openapi.yml; request checks run in n8n's order
 *   (public-api/index.js, express-openapi-validator): unknown path 404 `not found`, wrong method 405,
 *   then the key (401), then the request's schema (400: unknown query parameter, `limit` over 250,
 *   a table id that is not a 16-character nanoid, …), then the key's scopes (403), then the table's
 *   project (403 / 404, shared/middlewares/global.middleware.js `projectScope`,
 *   permissions.ee/check-access.js), the cursor, then the handler's DTO
 *   (handlers/data-tables/data-tables*.handler.js, @n8n/api-types dto/data-table/*).
 * - answers and semantics: modules/data-table/data-table.service.js, data-table-rows.repository.js
 *   (filters, sorting, insert `returnType`, update/delete `returnData`), data-table.repository.js
 *   (the table list: name filter as a case-insensitive LIKE `%name%`, newest `updatedAt` first),
 *   data-table-aggregate.service.js (who lists which tables), utils/sql-utils.js `normalizeRows`.
 * - offset cursors: shared/services/pagination.service.js.
 * - error bodies `{ message }`: errors/http-error-serializers.js (`Internal server error` for a 500).
 * - keys: services/api-key-auth.strategy.js and services/public-api-key.service.js (JWTs with
 *   `sub` = the user id, `iss: 'n8n'`, `aud: 'public-api'`; unknown, expired or revoked: 401
 *   `unauthorized`); key scopes per role: @n8n/permissions public-api-permissions.ee.js.
 * Where SQL engines differ, SQLite's behaviour (n8n's default database) is taken: NULL sorts
 * first ascending; LIKE matches case-sensitively with `%` as the only wildcard.
 *
 * Users: a member lists and reaches only the tables of their personal project (another's table:
 * 403 `Forbidden`; an unknown id: 404); owners and admins list and reach every table, as in n8n
 * (their global data table scopes). So a member's key sent to an owner's table id gets 403.
 *
 * The 429 of n8n 2.47+'s per-key rate limits could not be read in code (2.41.1 is what is
 * installed): its body `{ message: 'Too many requests' }` is n8n's rate limiter's
 * (services/rate-limit.service.js); its headers follow n8n's documentation (`Retry-After`,
 * `X-RateLimit-Limit/Remaining/Reset`) plus express-rate-limit's draft-6 `RateLimit-*` (the library
 * n8n's limiter uses), the limit's kind (`read` or `write`) as `RateLimit-Policy`'s `name`. A
 * fault's `headers` add to or replace them.
 */
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { createServer, STATUS_CODES } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export type Role = 'global:owner' | 'global:admin' | 'global:member';

export type ColumnType = 'string' | 'number' | 'boolean' | 'date';

/** The operations of n8n's public API the stand-in answers. */
export type Operation =
	| 'listTables'
	| 'createTable'
	| 'getTable'
	| 'updateTable'
	| 'deleteTable'
	| 'listColumns'
	| 'getRows'
	| 'insertRows'
	| 'updateRows'
	| 'upsertRow'
	| 'deleteRows'
	| 'clearRows'
	| 'getUser'
	/** A path or method n8n does not serve (answered 404 or 405), or a column edit (501 here). */
	| 'other';

/** A call as the fault rule sees it, before anything is done with it. */
export interface ApiCall {
	/** 1-based count of calls to `/data-tables` paths since start (or reset); 0 for other paths. */
	n: number;
	method: string;
	/** The path below the base URL, e.g. `/data-tables/Ab12…/rows`. */
	path: string;
	query: Record<string, string>;
	operation: Operation;
	/**
	 * Counted against a write limit: any method but GET (n8n 2.47+'s per-key rate limits: reads are
	 * GET, writes POST, PUT, PATCH and DELETE).
	 */
	isWrite: boolean;
	/** The user of the call's key, when the key is known. */
	userId?: string;
	/** The call's key, as sent. */
	apiKey?: string;
}

export interface CallRecord extends ApiCall {
	/** The request body as parsed (JSON), if any. */
	body?: unknown;
	/** The HTTP status answered; 0 when no answer was sent (reset, outage, stop); undefined while in flight. */
	status?: number;
	/** The fault applied, e.g. `429`, `500 after execute`, `reset`, `delay 300 ms`, `outage`. */
	fault?: string;
	/** Whether the call was carried out (its changes, if any, are in the tables). */
	executed: boolean;
	/** When the call arrived (ms since the epoch). */
	at: number;
}

/**
 * A fault the rule puts on one call. `delayMs` (on its own: answer normally, that much later; the
 * call is carried out after the delay, even if the client gave up meanwhile, as a real server does).
 * `afterExecute`: carry the call out first, then replace its answer (a status) or lose it (reset):
 * the client does not learn that its write happened. `commitAfterMs` (inserts): a transaction that
 * commits late, as PostgreSQL's may under load: the new rows take their ids at once, but every
 * call sees them, and the insert is answered, only `commitAfterMs` later (never, should an outage
 * or stop come first).
 */
export type Fault =
	| { delayMs: number }
	| StatusFault
	| { reset: true; afterExecute?: boolean; delayMs?: number }
	| { commitAfterMs: number; delayMs?: number };

export interface StatusFault {
	/** 429 (n8n 2.47+'s per-key rate limit), 500, 502, 503, or any other status. */
	status: number;
	/** 429 only: the `Retry-After` seconds (default 1). */
	retryAfterSeconds?: number;
	/** 429 only: which of the key's limits was hit; default `write` for writes, `read` for reads. */
	limit?: 'read' | 'write';
	/** Default `{ message }`: n8n's `Too many requests` for 429, `Internal server error` for 500. A string is sent as text/plain. */
	body?: unknown;
	/** Added to (or replacing) the default headers. */
	headers?: Record<string, string>;
	afterExecute?: boolean;
	delayMs?: number;
}

export type FaultRule = (call: ApiCall) => Fault | undefined;

export interface ApiUser {
	userId: string;
	name: string;
	email: string;
	role: Role;
	/** The user's personal project, where the tables the user creates live. */
	projectId: string;
	/** A key made with the user (no expiry, the role's full key scopes). */
	apiKey: string;
}

export interface KeyOptions {
	/** When the key expires (ms since the epoch); n8n answers 401 from then on. */
	expiresAt?: number;
	/**
	 * The key's scopes (n8n's "Create API key" dialog with scopes, e.g. `dataTableRow:read`);
	 * default: every scope the role's keys may have (members: no `user:read`).
	 */
	scopes?: string[];
}

export interface ColumnSpec {
	name: string;
	type: ColumnType;
}

export interface TableSummary {
	id: string;
	name: string;
	projectId: string;
	/** The user whose personal project holds the table. */
	userId: string;
	columns: ColumnSpec[];
	rowCount: number;
}

/** A row as n8n's API answers it: its columns, then `id`, `createdAt`, `updatedAt` (ISO strings). */
export type ApiRow = Record<string, unknown> & { id: number; createdAt: string; updatedAt: string };

export interface DataTableApi {
	/** `http://127.0.0.1:<port>/api/v1`, what the record credential's "n8n API URL" holds. */
	readonly baseUrl: string;
	readonly port: number;
	/** Every call received, oldest first (data table calls and the others). */
	readonly calls: readonly CallRecord[];
	/** Adds a user (a member unless `role` says otherwise) with a personal project and one key. */
	addUser(name: string, options?: { role?: Role }): ApiUser;
	/** Another key of the user. */
	addKey(userId: string, options?: KeyOptions): string;
	/** Deletes a key (Settings -> n8n API -> Delete): n8n answers 401 to it from then on. */
	revokeKey(apiKey: string): void;
	/** Sets the fault rule (undefined: none). Applies to calls that arrive from now on. */
	setFaults(rule?: FaultRule): void;
	/**
	 * Stops accepting connections (refused: ECONNREFUSED), resets every open connection and drops the
	 * calls in flight (not carried out), for `ms`; then listens again on the same port. Resolves then.
	 */
	outage(ms: number): Promise<void>;
	/** Every call is answered `ms` later (0: at once), on top of a fault's `delayMs`. */
	slow(ms: number): void;
	/**
	 * N8N_DATA_TABLES_MAX_SIZE_BYTES (undefined: no limit): inserts and updates are refused with
	 * n8n's 400 "Data table size limit exceeded" once all tables together reach it.
	 */
	setMaxSize(bytes: number | undefined): void;
	/** All tables together, as n8n's size check counts them. */
	totalSize(): number;
	/** The tables (all, or those in the key's user's project). */
	tables(apiKey?: string): TableSummary[];
	/**
	 * The rows of the table of that name in the key's user's project (without a key: the only table
	 * of that name), oldest id first. Throws when there is none (or, without a key, several).
	 */
	rowsOf(tableName: string, apiKey?: string): ApiRow[];
	/** Creates a table in the key's user's project, as n8n's create call does. */
	createTable(name: string, columns: ColumnSpec[], apiKey: string): TableSummary;
	/** Inserts rows by hand (checked against the columns as n8n checks an insert); returns them. */
	addRows(tableName: string, rows: Array<Record<string, unknown>>, apiKey?: string): ApiRow[];
	/** Deletes a table and its rows (as a user deleting it in n8n's UI). */
	deleteTable(tableName: string, apiKey?: string): void;
	/**
	 * Forgets the tables and rows, the fault rule, the slowness, the call log and its count; keeps
	 * the users and their keys (credentials made from them stay valid).
	 */
	reset(): void;
	stop(): Promise<void>;
}

const API_PREFIX = '/api/v1';

/** @n8n/api-types MAX_ITEMS_PER_PAGE, and the openapi `limit` maximum. */
const MAX_LIMIT = 250;
const DEFAULT_LIMIT = 100;

/** The per-key limits a 429 names in its headers (n8n 2.47's defaults could not be read here). */
const RATE_LIMITS = { read: 100, write: 50 } as const;
const RATE_LIMIT_WINDOW_SECONDS = 60;

const COLUMN_NAME_REGEX = /^[a-zA-Z][a-zA-Z0-9_]*$/;
const COLUMN_NAME_ERROR =
	'Only alphabetical characters and non-leading numbers and underscores are allowed for column names, and the maximum length is 63 characters.';
const SYSTEM_COLUMNS = { id: 'number', createdAt: 'date', updatedAt: 'date' } as const;
const CONDITIONS = [
	'eq',
	'neq',
	'like',
	'ilike',
	'gt',
	'gte',
	'lt',
	'lte',
	'isEmpty',
	'isNotEmpty',
];
const UPDATE_CONDITIONS = ['eq', 'neq', 'like', 'ilike', 'gt', 'gte', 'lt', 'lte'];
const TABLE_SORTS = [
	'name:asc',
	'name:desc',
	'createdAt:asc',
	'createdAt:desc',
	'updatedAt:asc',
	'updatedAt:desc',
	'size:asc',
	'size:desc',
];

/** @n8n/permissions: the data table scopes every role's keys get; owners and admins also the user scopes. */
const DATA_TABLE_KEY_SCOPES = [
	'dataTable:create',
	'dataTable:read',
	'dataTable:update',
	'dataTable:delete',
	'dataTable:list',
	'dataTableRow:create',
	'dataTableRow:read',
	'dataTableRow:update',
	'dataTableRow:delete',
	'dataTableRow:upsert',
	'dataTableColumn:create',
	'dataTableColumn:read',
	'dataTableColumn:update',
	'dataTableColumn:delete',
];
const OWNER_ONLY_KEY_SCOPES = [
	'user:read',
	'user:list',
	'user:create',
	'user:changeRole',
	'user:delete',
];

/** The key scope each endpoint asks for (openapi.yml `x-required-scope`). */
const SCOPE_OF: Record<Exclude<Operation, 'other'>, string> = {
	listTables: 'dataTable:list',
	createTable: 'dataTable:create',
	getTable: 'dataTable:read',
	updateTable: 'dataTable:update',
	deleteTable: 'dataTable:delete',
	listColumns: 'dataTableColumn:read',
	getRows: 'dataTableRow:read',
	insertRows: 'dataTableRow:create',
	updateRows: 'dataTableRow:update',
	upsertRow: 'dataTableRow:upsert',
	deleteRows: 'dataTableRow:delete',
	clearRows: 'dataTableRow:delete',
	getUser: 'user:read',
};

type Cell = string | number | boolean | null;

interface Column extends ColumnSpec {
	id: string;
	index: number;
	createdAt: Date;
	updatedAt: Date;
}

interface StoredRow {
	id: number;
	values: Record<string, Cell>;
	createdAt: Date;
	updatedAt: Date;
}

interface Table {
	id: string;
	name: string;
	projectId: string;
	columns: Column[];
	rows: StoredRow[];
	nextRowId: number;
	createdAt: Date;
	updatedAt: Date;
}

interface User {
	id: string;
	name: string;
	email: string;
	role: Role;
	projectId: string;
	createdAt: Date;
}

interface Key {
	userId: string;
	scopes: Set<string>;
	expiresAt?: number;
}

type Condition =
	| 'eq'
	| 'neq'
	| 'like'
	| 'ilike'
	| 'gt'
	| 'gte'
	| 'lt'
	| 'lte'
	| 'isEmpty'
	| 'isNotEmpty';

interface Filter {
	type: 'and' | 'or';
	filters: Array<{ columnName: string; condition: Condition; value: Cell }>;
}

interface Answer {
	status: number;
	body?: unknown;
	headers?: Record<string, string>;
}

/** An answer other than 2xx, thrown from deep inside a handler. */
class ApiError extends Error {
	constructor(
		readonly status: number,
		message: string,
	) {
		super(message);
	}
}

const nanoid = () => {
	const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
	return [...randomBytes(16)].map((byte) => alphabet[byte % alphabet.length]).join('');
};

const base64Url = (value: string | Buffer) => Buffer.from(value).toString('base64url');

const isObject = (value: unknown): value is Record<string, unknown> =>
	typeof value === 'object' && value !== null && !Array.isArray(value);

const isCell = (value: unknown): value is Cell =>
	value === null || ['string', 'number', 'boolean'].includes(typeof value);

/** SQL LIKE with `%` as the only wildcard (n8n escapes `_` for row filters). */
function likeMatches(
	text: string,
	pattern: string,
	ignoreCase: boolean,
	underscoreIsWildcard = false,
) {
	const escaped = [...pattern]
		.map((char) => {
			if (char === '%') return '.*';
			if (char === '_' && underscoreIsWildcard) return '.';
			return char.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
		})
		.join('');
	return new RegExp(`^${escaped}$`, ignoreCase ? 'is' : 's').test(text);
}

/** n8n's offset cursor: base64 JSON `{ limit, offset }` of the next page, null after the last. */
const nextCursorOf = (offset: number, limit: number, total: number): string | null =>
	total > offset + limit
		? Buffer.from(JSON.stringify({ limit, offset: offset + limit })).toString('base64')
		: null;

interface QuerySpec {
	[name: string]: {
		type: 'number' | 'string' | 'boolean' | 'jsonString';
		required?: boolean;
		max?: number;
	};
}

const PAGED_QUERY: QuerySpec = {
	limit: { type: 'number', max: MAX_LIMIT },
	cursor: { type: 'string' },
	filter: { type: 'jsonString' },
	sortBy: { type: 'string' },
};

const QUERY_OF: Partial<Record<Operation, QuerySpec>> = {
	listTables: PAGED_QUERY,
	getRows: { ...PAGED_QUERY, search: { type: 'string' } },
	deleteRows: {
		filter: { type: 'jsonString', required: true },
		returnData: { type: 'boolean' },
		dryRun: { type: 'boolean' },
	},
	getUser: { includeRole: { type: 'boolean' } },
};

/** express-openapi-validator's checks of the query string, with its messages. */
function checkQuery(operation: Operation, query: Record<string, string>) {
	const spec = QUERY_OF[operation] ?? {};
	for (const [name, value] of Object.entries(query)) {
		const param = spec[name];
		if (param === undefined) throw new ApiError(400, `Unknown query parameter '${name}'`);
		if (value === '') throw new ApiError(400, `Empty value found for query parameter '${name}'`);
		if (param.type === 'number') {
			const number = Number(value);
			if (!Number.isFinite(number)) throw new ApiError(400, `request/query/${name} must be number`);
			if (param.max !== undefined && number > param.max)
				throw new ApiError(400, `request/query/${name} must be <= ${param.max}`);
		}
		if (param.type === 'boolean' && value !== 'true' && value !== 'false')
			throw new ApiError(400, `request/query/${name} must be boolean`);
		if (param.type === 'jsonString') {
			try {
				JSON.parse(value);
			} catch {
				throw new ApiError(400, `request/query/${name} must match format "jsonString"`);
			}
		}
	}
	for (const [name, param] of Object.entries(spec)) {
		if (param.required && query[name] === undefined)
			throw new ApiError(400, `request/query must have required property '${name}'`);
	}
}

/** The data table filter schema of @n8n/api-types (data-table-filter.schema.js), or undefined. */
function parseFilter(value: unknown): Filter | undefined {
	if (!isObject(value)) return undefined;
	const type = value.type ?? 'and';
	if (type !== 'and' && type !== 'or') return undefined;
	const filters = value.filters ?? [];
	if (!Array.isArray(filters)) return undefined;
	const parsed: Filter['filters'] = [];
	for (const entry of filters) {
		if (!isObject(entry)) return undefined;
		const { columnName, condition = 'eq', value: filterValue } = entry;
		if (typeof columnName !== 'string') return undefined;
		const name = columnName.trim();
		if (name.length === 0 || name.length > 63 || !COLUMN_NAME_REGEX.test(name)) return undefined;
		if (typeof condition !== 'string' || !CONDITIONS.includes(condition)) return undefined;
		if (!isCell(filterValue)) return undefined;
		parsed.push({ columnName: name, condition: condition as Condition, value: filterValue });
	}
	return { type, filters: parsed };
}

/** A body value check in express-openapi-validator's words. */
function bodyError(path: string, message: string): never {
	throw new ApiError(400, `request/body${path} ${message}`);
}

function requireProps(body: Record<string, unknown>, path: string, names: string[]) {
	for (const name of names) {
		if (body[name] === undefined) bodyError(path, `must have required property '${name}'`);
	}
}

function checkEnum(value: unknown, path: string, allowed: string[]) {
	if (value !== undefined && (typeof value !== 'string' || !allowed.includes(value)))
		bodyError(path, `must be equal to one of the allowed values: ${allowed.join(', ')}`);
}

function checkBoolean(value: unknown, path: string) {
	if (value !== undefined && typeof value !== 'boolean') bodyError(path, 'must be boolean');
}

/** openapi.yml updateRowsRequest / upsertRowRequest. */
function checkFilterAndDataBody(body: Record<string, unknown>) {
	requireProps(body, '', ['filter', 'data']);
	const { filter, data } = body;
	if (!isObject(filter)) bodyError('/filter', 'must be object');
	requireProps(filter, '/filter', ['filters']);
	checkEnum(filter.type, '/filter/type', ['and', 'or']);
	if (!Array.isArray(filter.filters)) bodyError('/filter/filters', 'must be array');
	if (filter.filters.length < 1) bodyError('/filter/filters', 'must NOT have fewer than 1 items');
	filter.filters.forEach((entry: unknown, index: number) => {
		const path = `/filter/filters/${index}`;
		if (!isObject(entry)) bodyError(path, 'must be object');
		requireProps(entry, path, ['columnName', 'condition', 'value']);
		if (typeof entry.columnName !== 'string') bodyError(`${path}/columnName`, 'must be string');
		checkEnum(entry.condition, `${path}/condition`, UPDATE_CONDITIONS);
	});
	if (!isObject(data)) bodyError('/data', 'must be object');
	checkBoolean(body.returnData, '/returnData');
	checkBoolean(body.dryRun, '/dryRun');
}

/** The openapi request body checks, run before the key's scopes are looked at. */
function checkBody(operation: Operation, body: unknown) {
	const needsBody = ['createTable', 'updateTable', 'insertRows', 'updateRows', 'upsertRow'];
	if (!needsBody.includes(operation)) return;
	if (!isObject(body)) bodyError('', 'must be object');
	if (operation === 'createTable') {
		requireProps(body, '', ['name', 'columns']);
		if (typeof body.name !== 'string') bodyError('/name', 'must be string');
		if (body.name.length < 1) bodyError('/name', 'must NOT have fewer than 1 characters');
		if (body.name.length > 128) bodyError('/name', 'must NOT have more than 128 characters');
		if (!Array.isArray(body.columns)) bodyError('/columns', 'must be array');
		body.columns.forEach((column: unknown, index: number) => {
			const path = `/columns/${index}`;
			if (!isObject(column)) bodyError(path, 'must be object');
			requireProps(column, path, ['name', 'type']);
			if (typeof column.name !== 'string') bodyError(`${path}/name`, 'must be string');
			checkEnum(column.type, `${path}/type`, ['string', 'number', 'boolean', 'date', 'json']);
		});
	}
	if (operation === 'updateTable') {
		requireProps(body, '', ['name']);
		if (typeof body.name !== 'string') bodyError('/name', 'must be string');
	}
	if (operation === 'insertRows') {
		requireProps(body, '', ['data']);
		if (!Array.isArray(body.data)) bodyError('/data', 'must be array');
		if (body.data.length < 1) bodyError('/data', 'must NOT have fewer than 1 items');
		body.data.forEach((row: unknown, index: number) => {
			if (!isObject(row)) bodyError(`/data/${index}`, 'must be object');
		});
		checkEnum(body.returnType, '/returnType', ['count', 'id', 'all']);
	}
	if (operation === 'updateRows' || operation === 'upsertRow') checkFilterAndDataBody(body);
}

/** The route of a request below /api/v1 (openapi.yml paths). */
function routeOf(
	method: string,
	path: string,
): { operation: Operation; tableId?: string; userId?: string } | ApiError {
	const segments = path.split('/').filter((segment) => segment !== '');
	const allow = (
		methods: Partial<Record<string, Operation>>,
		params: { tableId?: string; userId?: string } = {},
	) => {
		const operation = methods[method];
		return operation === undefined
			? new ApiError(405, `${method} method not allowed`)
			: { operation, ...params };
	};
	const [first, tableId, second, third, ...rest] = segments.map((segment) =>
		decodeURIComponent(segment),
	);
	if (first === 'users' && tableId !== undefined && second === undefined)
		return allow({ GET: 'getUser' }, { userId: tableId });
	if (first !== 'data-tables' || rest.length > 0) return new ApiError(404, 'not found');
	if (tableId === undefined) return allow({ GET: 'listTables', POST: 'createTable' });
	if (second === undefined)
		return allow({ GET: 'getTable', PATCH: 'updateTable', DELETE: 'deleteTable' }, { tableId });
	if (second === 'columns')
		return third === undefined
			? allow({ GET: 'listColumns', POST: 'other' }, { tableId })
			: allow({ PATCH: 'other', DELETE: 'other' }, { tableId });
	if (second !== 'rows') return new ApiError(404, 'not found');
	if (third === undefined) return allow({ GET: 'getRows', POST: 'insertRows' }, { tableId });
	const rowRoutes: Record<string, Partial<Record<string, Operation>>> = {
		update: { PATCH: 'updateRows' },
		upsert: { POST: 'upsertRow' },
		clear: { DELETE: 'clearRows' },
		delete: { DELETE: 'deleteRows' },
	};
	return rowRoutes[third] === undefined
		? new ApiError(404, 'not found')
		: allow(rowRoutes[third], { tableId });
}

/** n8n-workflow's validateFieldType for a data table cell (strict: false, parseStrings: false). */
function toCell(value: unknown, name: string, type: ColumnType | 'date'): Cell {
	if (value === null || value === undefined) return null;
	const mismatch = (): never => {
		throw new ApiError(
			400,
			`Validation error with data table request: value '${String(value)}' does not match column type '${type}': '${name}' expects a ${type === 'date' ? 'dateTime' : type} but we got '${String(value)}'`,
		);
	};
	if (type === 'string') return typeof value === 'string' ? value : String(value);
	if (type === 'number') {
		const number = Number(value);
		return Number.isNaN(number) ? mismatch() : number;
	}
	if (type === 'boolean') {
		if (typeof value === 'boolean') return value;
		if (typeof value === 'string' && ['true', 'false'].includes(value.toLowerCase()))
			return value.toLowerCase() === 'true';
		if (!(typeof value === 'string' && value.trim() === '')) {
			const number = Number(value);
			if (number === 0) return false;
			if (number === 1) return true;
		}
		return mismatch();
	}
	const time = typeof value === 'number' ? value : Date.parse(String(value));
	return Number.isNaN(time) ? mismatch() : new Date(time).toISOString();
}

const comparable = (value: Cell): number | string =>
	typeof value === 'boolean' ? Number(value) : (value as number | string);

function compareCells(left: Cell, right: Cell): number {
	const a = comparable(left);
	const b = comparable(right);
	if (typeof a === 'number' && typeof b === 'number') return a - b;
	const [x, y] = [String(a), String(b)];
	return x < y ? -1 : x > y ? 1 : 0;
}

/** Starts the stand-in on 127.0.0.1 on a free port. */
export async function startDataTableApi(): Promise<DataTableApi> {
	const keySecret = randomBytes(32);
	const users = new Map<string, User>();
	const keys = new Map<string, Key>();
	const tables = new Map<string, Table>();
	const calls: CallRecord[] = [];
	const sockets = new Set<Socket>();
	/** Calls waiting out a delay; resolved with false when an outage or stop drops them. */
	const waiting = new Set<{ timer: NodeJS.Timeout; resolve: (carryOn: boolean) => void }>();
	let dataTableCalls = 0;
	let rule: FaultRule | undefined;
	let slowMs = 0;
	let maxSize: number | undefined;
	let down = false;
	let stopped = false;
	/** While a call whose commit comes late is carried out: the rows it inserts, not in their table yet. */
	let uncommitted: Array<{ table: Table; rows: StoredRow[] }> | undefined;

	const wait = async (ms: number) =>
		await new Promise<boolean>((resolve) => {
			const entry = {
				timer: setTimeout(() => {
					waiting.delete(entry);
					resolve(true);
				}, ms),
				resolve,
			};
			waiting.add(entry);
		});

	const dropWaiting = () => {
		for (const entry of waiting) {
			clearTimeout(entry.timer);
			entry.resolve(false);
		}
		waiting.clear();
	};

	// ---- users and keys --------------------------------------------------------------------

	function makeKey(userId: string, options: KeyOptions = {}): string {
		const user = users.get(userId);
		if (user === undefined) throw new Error(`No user ${userId}`);
		const now = Math.floor(Date.now() / 1000);
		const payload = {
			sub: userId,
			iss: 'n8n',
			aud: 'public-api',
			jti: randomUUID(),
			iat: now,
			...(options.expiresAt === undefined ? {} : { exp: Math.floor(options.expiresAt / 1000) }),
		};
		const unsigned = `${base64Url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }))}.${base64Url(JSON.stringify(payload))}`;
		const apiKey = `${unsigned}.${base64Url(createHmac('sha256', keySecret).update(unsigned).digest())}`;
		const roleScopes =
			user.role === 'global:member'
				? DATA_TABLE_KEY_SCOPES
				: [...DATA_TABLE_KEY_SCOPES, ...OWNER_ONLY_KEY_SCOPES];
		keys.set(apiKey, {
			userId,
			scopes: new Set(options.scopes ?? roleScopes),
			expiresAt: options.expiresAt,
		});
		return apiKey;
	}

	/** services/api-key-auth.strategy.js: the key must exist, belong to a user and not have expired. */
	function authenticate(headerValue: string | string[] | undefined): { user: User; key: Key } {
		if (typeof headerValue !== 'string' || headerValue === '')
			throw new ApiError(401, "'X-N8N-API-KEY' header required");
		const key = keys.get(headerValue);
		const user = key && users.get(key.userId);
		if (key === undefined || user === undefined) throw new ApiError(401, 'unauthorized');
		if (key.expiresAt !== undefined && key.expiresAt <= Date.now())
			throw new ApiError(401, 'unauthorized');
		return { user, key };
	}

	const isOwnerOrAdmin = (user: User) => user.role !== 'global:member';

	const userOfKey = (apiKey: string): User => {
		const key = keys.get(apiKey);
		const user = key && users.get(key.userId);
		if (user === undefined) throw new Error('Unknown API key');
		return user;
	};

	// ---- tables ------------------------------------------------------------------------------

	const columnTypes = (table: Table): Map<string, ColumnType> =>
		new Map<string, ColumnType>([
			...(Object.entries(SYSTEM_COLUMNS) as Array<[string, ColumnType]>),
			...table.columns.map((column): [string, ColumnType] => [column.name, column.type]),
		]);

	const sizeOf = (table: Table) =>
		table.rows.reduce((size, row) => size + JSON.stringify(row.values).length + 40, 8192);

	const totalSize = () => [...tables.values()].reduce((sum, table) => sum + sizeOf(table), 0);

	/** data-table-size-validator.service.js validateSize, its MB rounded as n8n's toMb rounds them. */
	function refuseWhenFull() {
		const used = totalSize();
		if (maxSize === undefined || used < maxSize) return;
		const mb = (bytes: number) => Math.round(bytes / (1024 * 1024));
		throw new ApiError(
			400,
			`Data table size limit exceeded: ${mb(used)}MB used, limit is ${mb(maxSize)}MB`,
		);
	}

	function publicTable(table: Table, withTableId = false) {
		return {
			id: table.id,
			name: table.name,
			columns: table.columns.map((column) => ({
				id: column.id,
				name: column.name,
				type: column.type,
				index: column.index,
				...(withTableId ? { dataTableId: table.id } : {}),
				createdAt: column.createdAt.toISOString(),
				updatedAt: column.updatedAt.toISOString(),
			})),
			projectId: table.projectId,
			createdAt: table.createdAt.toISOString(),
			updatedAt: table.updatedAt.toISOString(),
			sizeBytes: sizeOf(table),
		};
	}

	/** utils/sql-utils.js normalizeRows: the columns in their order, then the system columns. */
	function publicRow(table: Table, row: StoredRow): ApiRow {
		const values: Record<string, unknown> = {};
		for (const column of table.columns) values[column.name] = row.values[column.name] ?? null;
		return {
			...values,
			id: row.id,
			createdAt: row.createdAt.toISOString(),
			updatedAt: row.updatedAt.toISOString(),
		};
	}

	function createTableIn(projectId: string, name: string, columns: ColumnSpec[]): Table {
		const trimmed = name.trim();
		if (trimmed.length < 1 || trimmed.length > 128)
			throw new ApiError(400, 'String must contain at least 1 character(s)');
		for (const column of columns) {
			if (!COLUMN_NAME_REGEX.test(column.name.trim()) || column.name.trim().length > 63)
				throw new ApiError(400, COLUMN_NAME_ERROR);
			if (!['string', 'number', 'boolean', 'date'].includes(column.type))
				throw new ApiError(
					400,
					`Invalid enum value. Expected 'string' | 'number' | 'boolean' | 'date', received '${column.type}'`,
				);
			const lower = column.name.trim().toLowerCase();
			if (Object.keys(SYSTEM_COLUMNS).some((system) => system.toLowerCase() === lower))
				throw new ApiError(
					400,
					`Column name "${column.name}" is reserved as a system column name.`,
				);
			if (lower === 'dryrunstate')
				throw new ApiError(
					400,
					`Column name "${column.name}" is reserved as a testing column name.`,
				);
		}
		if ([...tables.values()].some((t) => t.projectId === projectId && t.name === trimmed))
			throw new ApiError(409, `Data table with name '${trimmed}' already exists in this project`);
		const now = new Date();
		const table: Table = {
			id: nanoid(),
			name: trimmed,
			projectId,
			columns: columns.map((column, index) => ({
				id: nanoid(),
				name: column.name.trim(),
				type: column.type,
				index,
				createdAt: now,
				updatedAt: now,
			})),
			rows: [],
			nextRowId: 1,
			createdAt: now,
			updatedAt: now,
		};
		tables.set(table.id, table);
		return table;
	}

	/** data-table.service.js validateAndTransformRows, without the system columns. */
	function toStoredValues(table: Table, row: Record<string, unknown>, complete: boolean) {
		const types = new Map(table.columns.map((column) => [column.name, column.type]));
		const values: Record<string, Cell> = {};
		for (const [name, value] of Object.entries(row)) {
			const type = types.get(name);
			if (type === undefined)
				throw new ApiError(
					400,
					`Validation error with data table request: unknown column name '${name}'`,
				);
			values[name] = toCell(value, name, type);
		}
		if (complete) for (const column of table.columns) values[column.name] ??= null;
		return values;
	}

	function insert(table: Table, rows: Array<Record<string, unknown>>): StoredRow[] {
		const prepared = rows.map((row) => toStoredValues(table, row, true));
		const now = new Date();
		const inserted = prepared.map((values) => ({
			id: table.nextRowId++,
			values,
			createdAt: now,
			updatedAt: now,
		}));
		if (uncommitted !== undefined) uncommitted.push({ table, rows: inserted });
		else table.rows.push(...inserted);
		table.updatedAt = now;
		return inserted;
	}

	/** data-table.service.js validateAndTransformFilters. */
	function transformFilter(table: Table, filter: Filter): Filter {
		const types = columnTypes(table);
		return {
			type: filter.type,
			filters: filter.filters.map((entry) => {
				const type = types.get(entry.columnName);
				if (type === undefined)
					throw new ApiError(
						400,
						`Validation error with data table request: unknown column name '${entry.columnName}'`,
					);
				const value = toCell(entry.value, entry.columnName, type);
				const condition = entry.condition;
				if (type !== 'string' && condition === 'isEmpty')
					return { ...entry, condition: 'eq' as const, value: null };
				if (type !== 'string' && condition === 'isNotEmpty')
					return { ...entry, condition: 'neq' as const, value: null };
				if (condition === 'like' || condition === 'ilike') {
					if (value === null)
						throw new ApiError(
							400,
							`Validation error with data table request: ${condition.toUpperCase()} filter value cannot be null or undefined`,
						);
					if (typeof value !== 'string')
						throw new ApiError(
							400,
							`Validation error with data table request: ${condition.toUpperCase()} filter value must be a string`,
						);
					return { ...entry, value: value.includes('%') ? value : `%${value}%` };
				}
				if (['gt', 'gte', 'lt', 'lte'].includes(condition) && value === null)
					throw new ApiError(
						400,
						`Validation error with data table request: ${condition.toUpperCase()} filter value cannot be null or undefined`,
					);
				return { ...entry, value };
			}),
		};
	}

	/** A stored row's cell as SQL compares it (dates as ms since the epoch). */
	function cellOf(table: Table, row: StoredRow, name: string): Cell {
		if (name === 'id') return row.id;
		if (name === 'createdAt') return row.createdAt.getTime();
		if (name === 'updatedAt') return row.updatedAt.getTime();
		const value = row.values[name] ?? null;
		const column = table.columns.find((entry) => entry.name === name);
		return column?.type === 'date' && typeof value === 'string' ? Date.parse(value) : value;
	}

	/** data-table-rows.repository.js getConditionAndParams, on one row. */
	function matches(
		table: Table,
		types: Map<string, ColumnType>,
		row: StoredRow,
		filter: Filter,
	): boolean {
		const test = ({ columnName, condition, value: raw }: Filter['filters'][number]) => {
			const cell = cellOf(table, row, columnName);
			const type = types.get(columnName);
			const value = type === 'date' && typeof raw === 'string' ? Date.parse(raw) : raw;
			switch (condition) {
				case 'isEmpty':
					return cell === null || cell === '';
				case 'isNotEmpty':
					return cell !== null && cell !== '';
				case 'eq':
					return value === null ? cell === null : cell !== null && compareCells(cell, value) === 0;
				case 'neq':
					return value === null ? cell !== null : cell === null || compareCells(cell, value) !== 0;
				case 'gt':
					return cell !== null && compareCells(cell, value) > 0;
				case 'gte':
					return cell !== null && compareCells(cell, value) >= 0;
				case 'lt':
					return cell !== null && compareCells(cell, value) < 0;
				case 'lte':
					return cell !== null && compareCells(cell, value) <= 0;
				case 'like':
				case 'ilike':
					return cell !== null && likeMatches(String(cell), String(value), condition === 'ilike');
			}
			return false;
		};
		if (filter.filters.length === 0) return true;
		return filter.type === 'or' ? filter.filters.some(test) : filter.filters.every(test);
	}

	const matching = (table: Table, filter: Filter) => {
		const types = columnTypes(table);
		return table.rows.filter((row) => matches(table, types, row, filter));
	};

	function update(table: Table, filter: Filter, data: Record<string, unknown>): StoredRow[] {
		const values = toStoredValues(table, data, false);
		const rows = matching(table, transformFilter(table, filter));
		const now = new Date();
		for (const row of rows) {
			Object.assign(row.values, values);
			row.updatedAt = now;
		}
		table.updatedAt = now;
		return rows;
	}

	/** The table a test names, in the key's user's project or (without a key) the only one. */
	function tableNamed(tableName: string, apiKey?: string): Table {
		const projectId = apiKey === undefined ? undefined : userOfKey(apiKey).projectId;
		const found = [...tables.values()].filter(
			(table) =>
				table.name === tableName && (projectId === undefined || table.projectId === projectId),
		);
		if (found.length === 0) throw new Error(`No data table "${tableName}"`);
		if (found.length > 1)
			throw new Error(`${found.length} data tables are named "${tableName}": pass an API key`);
		return found[0];
	}

	const ownerOf = (table: Table) =>
		[...users.values()].find((user) => user.projectId === table.projectId);

	const summary = (table: Table): TableSummary => ({
		id: table.id,
		name: table.name,
		projectId: table.projectId,
		userId: ownerOf(table)?.id ?? '',
		columns: table.columns.map(({ name, type }) => ({ name, type })),
		rowCount: table.rows.length,
	});

	// ---- the endpoints -----------------------------------------------------------------------

	/** projectScope (global.middleware.js, check-access.js userHasScopes) for a table id. */
	function tableFor(user: User, tableId: string): Table {
		const table = tables.get(tableId);
		if (isOwnerOrAdmin(user)) {
			// Global scopes pass the middleware; the handler's lookup answers an unknown id.
			if (table === undefined)
				throw new ApiError(404, `Could not find the data table: '${tableId}'`);
			return table;
		}
		if (table === undefined) throw new ApiError(404, `Data table with ID "${tableId}" not found.`);
		if (table.projectId !== user.projectId) throw new ApiError(403, 'Forbidden');
		return table;
	}

	/** validCursor, then the DTO's offset and limit. */
	function pageOf(query: Record<string, string>): { offset: number; limit: number } {
		let limitText: string | undefined = query.limit;
		let offset = 0;
		if (query.cursor !== undefined) {
			let decoded: unknown;
			try {
				decoded = JSON.parse(Buffer.from(query.cursor, 'base64').toString());
			} catch {
				throw new ApiError(400, 'An invalid cursor was provided');
			}
			if (!isObject(decoded)) throw new ApiError(400, 'An invalid cursor was provided');
			limitText = decoded.limit === undefined ? undefined : String(decoded.limit);
			if ('offset' in decoded) offset = parseInt(String(decoded.offset), 10) || 0;
		}
		const limit = limitText ? parseInt(limitText, 10) : DEFAULT_LIMIT;
		if (Number.isNaN(limit)) throw new ApiError(400, 'Param `limit` must be a valid integer');
		if (limit < 0) throw new ApiError(400, 'Param `limit` must be a non-negative integer');
		return { offset, limit: Math.min(limit, MAX_LIMIT) };
	}

	function listTables(user: User, query: Record<string, string>): Answer {
		const { offset, limit } = pageOf(query);
		let filter: Record<string, unknown> = {};
		if (query.filter !== undefined) {
			const parsed: unknown = JSON.parse(query.filter);
			const allowed = ['id', 'name', 'projectId'];
			const stringOrList = (value: unknown) =>
				typeof value === 'string' ||
				(Array.isArray(value) && value.every((entry) => typeof entry === 'string'));
			if (
				!isObject(parsed) ||
				Object.keys(parsed).some((key) => !allowed.includes(key)) ||
				(parsed.id !== undefined && !stringOrList(parsed.id)) ||
				(parsed.name !== undefined && !stringOrList(parsed.name)) ||
				(parsed.projectId !== undefined && typeof parsed.projectId !== 'string')
			)
				throw new ApiError(400, 'Invalid filter fields');
			filter = parsed;
		}
		if (query.sortBy !== undefined && !TABLE_SORTS.includes(query.sortBy))
			throw new ApiError(400, `sortBy must be one of: ${TABLE_SORTS.join(', ')}`);
		// data-table-aggregate.service.js: owners and admins list every project's tables.
		let visible = [...tables.values()].filter(
			(table) => isOwnerOrAdmin(user) || table.projectId === user.projectId,
		);
		const ids = [filter.id ?? []].flat() as string[];
		if (ids.length > 0) visible = visible.filter((table) => ids.includes(table.id));
		if (typeof filter.projectId === 'string')
			visible = visible.filter((table) => table.projectId === filter.projectId);
		// data-table.repository.js: each name is `LOWER(name) LIKE LOWER('%name%')`, unescaped.
		for (const name of [filter.name ?? []].flat() as string[])
			visible = visible.filter((table) => likeMatches(table.name, `%${name}%`, true, true));
		const [field, direction] = (query.sortBy ?? 'updatedAt:desc').split(':');
		const key = (table: Table): number | string =>
			field === 'name'
				? table.name.toLowerCase()
				: field === 'size'
					? sizeOf(table)
					: table[field as 'createdAt' | 'updatedAt'].getTime();
		visible.sort((a, b) => {
			const [x, y] = [key(a), key(b)];
			const order = x < y ? -1 : x > y ? 1 : 0;
			return direction === 'desc' ? -order : order;
		});
		return {
			status: 200,
			body: {
				data: visible.slice(offset, limit ? offset + limit : undefined).map((t) => publicTable(t)),
				nextCursor: nextCursorOf(offset, limit, visible.length),
			},
		};
	}

	function getRows(table: Table, query: Record<string, string>): Answer {
		const { offset, limit } = pageOf(query);
		let filter: Filter = { type: 'and', filters: [] };
		if (query.filter !== undefined) {
			const parsed = parseFilter(JSON.parse(query.filter));
			if (parsed === undefined) throw new ApiError(400, 'Invalid filter fields');
			filter = transformFilter(table, parsed);
		}
		let sort: [string, 'ASC' | 'DESC'] | undefined;
		if (query.sortBy !== undefined) {
			if (!query.sortBy.includes(':'))
				throw new ApiError(400, 'Invalid sort format, expected <columnName>:<asc/desc>');
			const [column, direction] = query.sortBy.split(':');
			if (!COLUMN_NAME_REGEX.test(column.trim())) throw new ApiError(400, COLUMN_NAME_ERROR);
			const upper = direction?.toUpperCase();
			if (upper !== 'ASC' && upper !== 'DESC') throw new ApiError(400, 'Invalid sort direction');
			// An unknown column fails in the database: n8n answers its generic 500.
			if (!columnTypes(table).has(column.trim())) throw new ApiError(500, 'Internal server error');
			sort = [column.trim(), upper];
		}
		let rows = matching(table, filter);
		const search = query.search?.trim();
		if (search) {
			const pattern = query.search.includes('%') ? query.search : `%${query.search}%`;
			rows = rows.filter((row) =>
				table.columns.some((column) => {
					const value = row.values[column.name];
					return value !== null && likeMatches(String(value), pattern, true);
				}),
			);
		}
		rows = [...rows].sort((a, b) => {
			if (sort !== undefined) {
				const [x, y] = [cellOf(table, a, sort[0]), cellOf(table, b, sort[0])];
				// SQLite: NULL is the smallest value.
				const order =
					x === null || y === null ? (x === null ? (y === null ? 0 : -1) : 1) : compareCells(x, y);
				if (order !== 0) return sort[1] === 'DESC' ? -order : order;
			}
			return a.id - b.id;
		});
		return {
			status: 200,
			body: {
				data: rows
					.slice(offset, limit ? offset + limit : undefined)
					.map((row) => publicRow(table, row)),
				nextCursor: nextCursorOf(offset, limit, rows.length),
			},
		};
	}

	/** UpdateDataTableRowDto / UpsertDataTableRowDto, then data-table.service.js's own checks. */
	function filterAndData(body: Record<string, unknown>) {
		const filter = parseFilter(body.filter);
		if (filter === undefined) throw new ApiError(400, 'Invalid input');
		if (filter.filters.length === 0) throw new ApiError(400, 'filter must not be empty');
		const data = body.data as Record<string, unknown>;
		if (Object.keys(data).some((key) => !COLUMN_NAME_REGEX.test(key)))
			throw new ApiError(400, COLUMN_NAME_ERROR);
		if (Object.values(data).some((value) => !isCell(value)))
			throw new ApiError(400, 'Invalid input');
		if (Object.keys(data).length === 0) throw new ApiError(400, 'data must not be empty');
		return { filter, data };
	}

	const dryRunRows = (before: ApiRow | null, after: ApiRow | null): ApiRow[] => {
		const template = (before ?? after) as ApiRow;
		const nulls = Object.fromEntries(Object.keys(template).map((key) => [key, null])) as ApiRow;
		return [
			{ ...(before ?? nulls), dryRunState: 'before' },
			{ ...(after ?? nulls), dryRunState: 'after' },
		];
	};

	function execute(
		operation: Operation,
		params: { tableId?: string; userId?: string },
		headers: IncomingMessage['headers'],
		query: Record<string, string>,
		body: unknown,
	): Answer {
		const { user, key } = authenticate(headers['x-n8n-api-key']);
		if (operation === 'other')
			throw new ApiError(501, 'Column changes are not served by the stand-in');
		if (params.tableId !== undefined && !/^[A-Za-z0-9]{16}$/.test(params.tableId))
			throw new ApiError(400, 'request/params/dataTableId must match format "nanoid"');
		checkQuery(operation, query);
		checkBody(operation, body);
		if (!key.scopes.has(SCOPE_OF[operation])) throw new ApiError(403, 'Forbidden');

		if (operation === 'getUser') {
			const id = params.userId ?? '';
			if (!/^[0-9a-f-]{36}$/i.test(id) && !/^[^@\s]+@[^@\s]+$/.test(id))
				throw new ApiError(400, 'request/params/id must match format "identifier"');
			const found = [...users.values()].find((entry) => entry.id === id || entry.email === id);
			if (found === undefined) throw new ApiError(404, `Could not find user with id: ${id}`);
			const [firstName, ...lastNames] = found.name.split(' ');
			return {
				status: 200,
				body: {
					id: found.id,
					email: found.email,
					firstName,
					lastName: lastNames.join(' ') || null,
					createdAt: found.createdAt.toISOString(),
					updatedAt: found.createdAt.toISOString(),
					isPending: false,
					mfaEnabled: false,
					...(query.includeRole === 'true' ? { role: found.role } : {}),
				},
			};
		}
		if (operation === 'listTables') return listTables(user, query);
		const input = body as Record<string, unknown>;
		if (operation === 'createTable') {
			let projectId = user.projectId;
			if (typeof input.projectId === 'string') {
				const project = [...users.values()].find((entry) => entry.projectId === input.projectId);
				if (project === undefined)
					throw new ApiError(400, `Project with ID "${input.projectId}" not found`);
				if (project.projectId !== user.projectId && !isOwnerOrAdmin(user))
					throw new ApiError(403, 'Forbidden');
				projectId = project.projectId;
			}
			const table = createTableIn(projectId, input.name as string, input.columns as ColumnSpec[]);
			return { status: 201, body: publicTable(table, true) };
		}

		const table = tableFor(user, params.tableId as string);
		switch (operation) {
			case 'getTable':
				return { status: 200, body: publicTable(table, true) };
			case 'updateTable': {
				const name = (input.name as string).trim();
				if (name.length < 1) throw new ApiError(400, 'String must contain at least 1 character(s)');
				if ([...tables.values()].some((t) => t.projectId === table.projectId && t.name === name))
					throw new ApiError(409, `Data table with name '${name}' already exists in this project`);
				table.name = name;
				table.updatedAt = new Date();
				return { status: 200, body: publicTable(table, true) };
			}
			case 'deleteTable':
				tables.delete(table.id);
				return { status: 204 };
			case 'listColumns':
				return { status: 200, body: publicTable(table, true).columns };
			case 'getRows':
				return getRows(table, query);
			case 'insertRows': {
				refuseWhenFull();
				const rows = input.data as Array<Record<string, unknown>>;
				for (const row of rows) {
					if (Object.keys(row).some((name) => !COLUMN_NAME_REGEX.test(name)))
						throw new ApiError(400, COLUMN_NAME_ERROR);
					if (Object.values(row).some((value) => !isCell(value)))
						throw new ApiError(400, 'Invalid input');
				}
				const inserted = insert(table, rows);
				// data-table-rows.repository.js insertRows: `count` is insertRowsBulk's answer.
				const returnType = (input.returnType as string | undefined) ?? 'count';
				if (returnType === 'count')
					return { status: 200, body: { success: true, insertedRows: inserted.length } };
				if (returnType === 'id') return { status: 200, body: inserted.map(({ id }) => ({ id })) };
				return { status: 200, body: inserted.map((row) => publicRow(table, row)) };
			}
			case 'updateRows': {
				refuseWhenFull();
				const { filter, data } = filterAndData(input);
				if (input.dryRun === true) {
					const values = toStoredValues(table, data, false);
					const now = new Date();
					const pairs = matching(table, transformFilter(table, filter)).flatMap((row) =>
						dryRunRows(
							publicRow(table, row),
							publicRow(table, { ...row, values: { ...row.values, ...values }, updatedAt: now }),
						),
					);
					return { status: 200, body: pairs };
				}
				const updated = update(table, filter, data);
				return {
					status: 200,
					body: input.returnData === true ? updated.map((row) => publicRow(table, row)) : true,
				};
			}
			case 'upsertRow': {
				const { filter, data } = filterAndData(input);
				const updated = update(table, filter, data);
				const rows = updated.length > 0 ? updated : insert(table, [data]);
				return {
					status: 200,
					body: input.returnData === true ? rows.map((row) => publicRow(table, row)) : true,
				};
			}
			case 'deleteRows': {
				const parsed = parseFilter(JSON.parse(query.filter));
				if (parsed === undefined) throw new ApiError(400, 'Invalid filter fields');
				if (parsed.filters.length === 0)
					throw new ApiError(
						400,
						'At least one filter condition is required for delete operations',
					);
				const doomed = matching(table, transformFilter(table, parsed));
				if (query.dryRun === 'true')
					return {
						status: 200,
						body: doomed.flatMap((row) => dryRunRows(publicRow(table, row), null)),
					};
				const gone = new Set(doomed);
				table.rows = table.rows.filter((row) => !gone.has(row));
				table.updatedAt = new Date();
				return {
					status: 200,
					body: query.returnData === 'true' ? doomed.map((row) => publicRow(table, row)) : true,
				};
			}
			case 'clearRows': {
				const deletedCount = table.rows.length;
				table.rows = [];
				table.updatedAt = new Date();
				return { status: 200, body: { deletedCount } };
			}
		}
		throw new ApiError(500, 'Internal server error');
	}

	// ---- faults and HTTP -----------------------------------------------------------------------

	function faultAnswer(fault: StatusFault, call: ApiCall): Answer {
		const headers: Record<string, string> = {};
		let body = fault.body;
		if (fault.status === 429) {
			// n8n 2.47+ per-key limits (docs: separate read and write limits, Retry-After and the
			// X-RateLimit-* headers), with express-rate-limit's draft-6 headers (n8n's rate limiter).
			const kind = fault.limit ?? (call.isWrite ? 'write' : 'read');
			const retryAfter = fault.retryAfterSeconds ?? 1;
			const max = RATE_LIMITS[kind];
			Object.assign(headers, {
				'Retry-After': String(retryAfter),
				'X-RateLimit-Limit': String(max),
				'X-RateLimit-Remaining': '0',
				'X-RateLimit-Reset': String(Math.ceil(Date.now() / 1000) + retryAfter),
				'RateLimit-Policy': `${max};w=${RATE_LIMIT_WINDOW_SECONDS};name="${kind}"`,
				'RateLimit-Limit': String(max),
				'RateLimit-Remaining': '0',
				'RateLimit-Reset': String(retryAfter),
			});
			body ??= { message: 'Too many requests' };
		}
		body ??= {
			message:
				fault.status === 500 ? 'Internal server error' : (STATUS_CODES[fault.status] ?? 'Error'),
		};
		return { status: fault.status, body, headers: { ...headers, ...fault.headers } };
	}

	function send(res: ServerResponse, answer: Answer) {
		if (res.destroyed || res.writableEnded) return;
		const textBody = typeof answer.body === 'string';
		const payload =
			answer.status === 204 || answer.body === undefined
				? undefined
				: textBody
					? (answer.body as string)
					: JSON.stringify(answer.body);
		res.writeHead(answer.status, {
			...(payload === undefined
				? {}
				: {
						'Content-Type': textBody
							? 'text/plain; charset=utf-8'
							: 'application/json; charset=utf-8',
						'Content-Length': String(Buffer.byteLength(payload)),
					}),
			...answer.headers,
		});
		res.end(payload);
	}

	const resetSocket = (socket: Socket) => {
		if (!socket.destroyed) socket.resetAndDestroy();
	};

	async function handle(req: IncomingMessage, res: ServerResponse) {
		const chunks: Buffer[] = [];
		for await (const chunk of req) chunks.push(chunk as Buffer);
		const url = new URL(req.url ?? '/', 'http://127.0.0.1');
		const method = (req.method ?? 'GET').toUpperCase();
		const path = url.pathname.startsWith(API_PREFIX)
			? url.pathname.slice(API_PREFIX.length)
			: url.pathname;
		const query: Record<string, string> = {};
		for (const [name, value] of url.searchParams) query[name] ??= value;
		const route = url.pathname.startsWith(`${API_PREFIX}/`)
			? routeOf(method, path)
			: new ApiError(404, 'not found');
		const operation = route instanceof ApiError ? 'other' : route.operation;
		const isDataTable = path.startsWith('/data-tables') && url.pathname.startsWith(API_PREFIX);
		const keyHeader = req.headers['x-n8n-api-key'];
		const userId = typeof keyHeader === 'string' ? keys.get(keyHeader)?.userId : undefined;

		let body: unknown;
		let bodyError: ApiError | undefined;
		const text = Buffer.concat(chunks).toString('utf8');
		if (text !== '' && /json/i.test(req.headers['content-type'] ?? '')) {
			try {
				body = JSON.parse(text);
				if (typeof body !== 'object' || body === null) throw new SyntaxError('not strict');
			} catch {
				bodyError = new ApiError(400, 'Invalid JSON in request body');
			}
		}

		const call: ApiCall = {
			n: isDataTable ? ++dataTableCalls : 0,
			method,
			path,
			query,
			operation,
			isWrite: method !== 'GET',
			...(userId === undefined ? {} : { userId }),
			...(typeof keyHeader === 'string' ? { apiKey: keyHeader } : {}),
		};
		const record: CallRecord = {
			...call,
			...(body === undefined ? {} : { body }),
			executed: false,
			at: Date.now(),
		};
		calls.push(record);
		const notes: string[] = [];
		const note = (what: string) => {
			notes.push(what);
			record.fault = notes.join(', ');
		};

		let fault: Fault | undefined;
		if (isDataTable && rule !== undefined) {
			try {
				fault = rule(call);
			} catch (error) {
				fault = {
					status: 500,
					body: { message: `The fault rule threw: ${(error as Error).message}` },
				};
			}
		}
		const delay = slowMs + (fault?.delayMs ?? 0);
		if (fault?.delayMs) note(`delay ${fault.delayMs} ms`);
		if (delay > 0 && !(await wait(delay))) {
			// An outage or stop began meanwhile: the call is lost, its connection already reset.
			record.status = 0;
			note(stopped ? 'stopped' : 'outage');
			return;
		}
		const failure =
			fault !== undefined && ('status' in fault || 'reset' in fault) ? fault : undefined;
		const lose = (what: StatusFault | { reset: true }, suffix: string) => {
			if ('reset' in what) {
				note(`reset${suffix}`);
				record.status = 0;
				resetSocket(req.socket);
				return;
			}
			note(`${what.status}${suffix}`);
			const answer = faultAnswer(what, call);
			record.status = answer.status;
			send(res, answer);
		};
		if (failure !== undefined && !failure.afterExecute) return lose(failure, '');

		const commitAfterMs = fault !== undefined && 'commitAfterMs' in fault ? fault.commitAfterMs : 0;
		let answer: Answer;
		let committingLate: typeof uncommitted;
		try {
			if (route instanceof ApiError) throw route;
			if (bodyError !== undefined) throw bodyError;
			uncommitted = commitAfterMs > 0 ? [] : undefined;
			answer = execute(route.operation, route, req.headers, query, body);
		} catch (error) {
			if (!(error instanceof ApiError)) throw error;
			answer = { status: error.status, body: { message: error.message } };
		} finally {
			committingLate = uncommitted;
			uncommitted = undefined;
		}
		if (committingLate !== undefined && committingLate.length > 0) {
			note(`commit after ${commitAfterMs} ms`);
			if (!(await wait(commitAfterMs))) {
				// An outage or stop began meanwhile: the transaction never commits.
				record.status = 0;
				note(stopped ? 'stopped' : 'outage');
				return;
			}
			for (const { table, rows } of committingLate) table.rows.push(...rows);
		}
		record.executed = true;
		if (failure !== undefined) return lose(failure, ' after execute');
		record.status = answer.status;
		send(res, answer);
	}

	// ---- the server ----------------------------------------------------------------------------

	const server: Server = createServer((req, res) => {
		handle(req, res).catch((error: Error) => {
			send(res, { status: 500, body: { message: `The stand-in failed: ${error.message}` } });
		});
	});
	server.on('connection', (socket: Socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});
	const listen = async (port: number) =>
		await new Promise<number>((resolve, reject) => {
			server.once('error', reject);
			server.listen(port, '127.0.0.1', () => {
				server.off('error', reject);
				const address = server.address();
				resolve(typeof address === 'object' && address !== null ? address.port : port);
			});
		});
	/** Stops accepting at once (the caller's next connection is refused), then resets every connection. */
	const close = async () => {
		const closed = new Promise<void>((resolve) => server.close(() => resolve()));
		dropWaiting();
		for (const socket of sockets) resetSocket(socket);
		await closed;
	};
	const port = await listen(0);

	const api: DataTableApi = {
		baseUrl: `http://127.0.0.1:${port}${API_PREFIX}`,
		port,
		calls,
		addUser(name, { role = 'global:member' } = {}) {
			const user: User = {
				id: randomUUID(),
				name,
				email: `${name.toLowerCase().replace(/[^a-z0-9]+/g, '.')}@example.com`,
				role,
				projectId: nanoid(),
				createdAt: new Date(),
			};
			users.set(user.id, user);
			const { id: userId, email, projectId } = user;
			return { userId, name, email, role, projectId, apiKey: makeKey(userId) };
		},
		addKey: (userId, options) => makeKey(userId, options),
		revokeKey(apiKey) {
			keys.delete(apiKey);
		},
		setFaults(newRule) {
			rule = newRule;
		},
		async outage(ms) {
			if (down || stopped) throw new Error('The API is already down');
			down = true;
			try {
				await close();
				const outageEnd = Date.now() + ms;
				while (!stopped && Date.now() < outageEnd) await wait(outageEnd - Date.now());
				if (!stopped) await listen(port);
			} finally {
				down = false;
			}
		},
		slow(ms) {
			slowMs = ms;
		},
		setMaxSize(bytes) {
			maxSize = bytes;
		},
		totalSize,
		tables: (apiKey) =>
			[...tables.values()]
				.filter((table) => apiKey === undefined || table.projectId === userOfKey(apiKey).projectId)
				.map(summary),
		rowsOf(tableName, apiKey) {
			const table = tableNamed(tableName, apiKey);
			return [...table.rows].sort((a, b) => a.id - b.id).map((row) => publicRow(table, row));
		},
		createTable: (name, columns, apiKey) =>
			summary(createTableIn(userOfKey(apiKey).projectId, name, columns)),
		addRows(tableName, rows, apiKey) {
			const table = tableNamed(tableName, apiKey);
			return insert(table, rows).map((row) => publicRow(table, row));
		},
		deleteTable(tableName, apiKey) {
			tables.delete(tableNamed(tableName, apiKey).id);
		},
		reset() {
			tables.clear();
			calls.length = 0;
			dataTableCalls = 0;
			rule = undefined;
			slowMs = 0;
			maxSize = undefined;
		},
		async stop() {
			if (stopped) return;
			stopped = true;
			if (down) dropWaiting();
			else await close();
		},
	};
	return api;
}
