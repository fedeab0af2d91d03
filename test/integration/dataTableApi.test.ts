/* eslint-disable @n8n/community-nodes/no-restricted-globals -- test code: timers to watch delays, run in jest, never inside n8n */
/**
 * Conformance of the data table API stand-in (test/harness/data-table-api.ts) with n8n 2.41.1's
 * public API, every call made through n8n-core's real `helpers.httpRequest` inside an
 * ExecuteContext (axios underneath), as the record's calls are: the answer shapes and semantics
 * read in n8n's code, per-user isolation, 401s, and each injected fault arriving as the real thing.
 */
import { NodeConnectionTypes } from 'n8n-workflow';
import type {
	ICredentialTestFunctions,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';

import { ContactCenterRecordApi } from '../../credentials/ContactCenterRecordApi.credentials';
import { RECORD_COLUMNS, once } from '../../nodes/shared/once';
import { testRecordCredential } from '../../nodes/shared/recordApi';
import { createCredentialStore, runNode } from '../harness';
import { startDataTableApi } from '../harness/data-table-api';
import type { ApiRow, ApiUser, DataTableApi } from '../harness/data-table-api';

/** What n8n-core's httpRequest threw: an AxiosError, its answer (if any) under `response`. */
interface HttpFailure {
	code?: string;
	message: string;
	response?: { status: number; data: unknown; headers: Record<string, string> };
}

interface Outcome {
	body?: unknown;
	error?: HttpFailure;
	/** How long the request took. */
	ms: number;
}

const probeDescription: INodeTypeDescription = {
	displayName: 'HTTP Probe',
	name: 'httpProbe',
	group: ['transform'],
	version: 1,
	description: 'Conformance test node',
	defaults: { name: 'HTTP Probe' },
	inputs: [NodeConnectionTypes.Main],
	outputs: [NodeConnectionTypes.Main],
	properties: [],
};

/** Sends one request with the execution context's own `helpers.httpRequest`, as the record does. */
async function viaN8n(request: IHttpRequestOptions): Promise<Outcome> {
	let outcome: Outcome | undefined;
	const probe: INodeType = {
		description: probeDescription,
		async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
			const started = Date.now();
			try {
				outcome = { body: await this.helpers.httpRequest(request), ms: Date.now() - started };
			} catch (error) {
				outcome = { error: error as HttpFailure, ms: Date.now() - started };
			}
			return [[{ json: {} }]];
		},
	};
	const { error } = await runNode({ nodeType: probe, parameters: {} });
	if (error !== undefined || outcome === undefined)
		throw error ?? new Error('The probe did not run');
	return outcome;
}

const sleep = async (ms: number) => await new Promise((resolve) => setTimeout(resolve, ms));

const RECORD_TABLE = 'contact_center_record';

describe('the data table API stand-in, through n8n-core httpRequest', () => {
	let api: DataTableApi;
	let owner: ApiUser;
	let alice: ApiUser;
	let bob: ApiUser;

	/** One call as the record makes it: the key in X-N8N-API-KEY, JSON both ways. */
	const call = async (
		user: ApiUser | string,
		method: IHttpRequestMethods,
		path: string,
		options: { qs?: IDataObject; body?: IDataObject; timeout?: number } = {},
	) =>
		await viaN8n({
			method,
			url: `${api.baseUrl}${path}`,
			headers: { 'X-N8N-API-KEY': typeof user === 'string' ? user : user.apiKey },
			json: true,
			...options,
		});

	const ok = async (...args: Parameters<typeof call>) => {
		const { body, error } = await call(...args);
		if (error !== undefined)
			throw new Error(
				`${args[1]} ${args[2]}: ${error.response?.status ?? error.code} ${JSON.stringify(error.response?.data)}`,
			);
		return body;
	};

	/** The status and body n8n answered (a failure expected). */
	const refused = async (...args: Parameters<typeof call>) => {
		const { error } = await call(...args);
		return { status: error?.response?.status, body: error?.response?.data };
	};

	const createRecordTable = async (user: ApiUser, name = RECORD_TABLE) =>
		(await ok(user, 'POST', '/data-tables', {
			body: { name, columns: RECORD_COLUMNS.map((column) => ({ ...column })) },
		})) as { id: string };

	const rowsPath = (tableId: string) => `/data-tables/${tableId}/rows`;

	const filterParam = (
		type: 'and' | 'or',
		...filters: Array<[columnName: string, condition: string, value: unknown]>
	) =>
		JSON.stringify({
			type,
			filters: filters.map(([columnName, condition, value]) => ({ columnName, condition, value })),
		});

	beforeAll(async () => {
		api = await startDataTableApi();
		owner = api.addUser('Olivia Owner', { role: 'global:owner' });
		alice = api.addUser('Alice');
		bob = api.addUser('Bob');
	});

	afterAll(async () => {
		await api.stop();
	});

	beforeEach(() => api.reset());

	describe('answers as n8n 2.41.1 does', () => {
		it('creates a table (201) and lists tables as { data, nextCursor }, by name as a case-insensitive LIKE', async () => {
			const created = (await call(alice, 'POST', '/data-tables', {
				body: { name: RECORD_TABLE, columns: [{ name: 'scope', type: 'string' }] },
			})) as Outcome & { body: Record<string, unknown> };
			expect(created.body).toEqual({
				id: expect.stringMatching(/^[A-Za-z0-9]{16}$/),
				name: RECORD_TABLE,
				columns: [
					{
						id: expect.any(String),
						name: 'scope',
						type: 'string',
						index: 0,
						dataTableId: created.body.id,
						createdAt: expect.any(String),
						updatedAt: expect.any(String),
					},
				],
				projectId: alice.projectId,
				createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
				updatedAt: expect.any(String),
				sizeBytes: expect.any(Number),
			});
			await createRecordTable(alice, 'contact_center_record_old');
			await createRecordTable(alice, 'other');

			const byName = (await ok(alice, 'GET', '/data-tables', {
				qs: { filter: JSON.stringify({ name: 'CONTACT_center' }), limit: 10 },
			})) as { data: Array<{ name: string }>; nextCursor: string | null };
			expect(byName.nextCursor).toBeNull();
			// Newest updatedAt first; `_` is LIKE's one-character wildcard in n8n's table name filter.
			expect(byName.data.map((table) => table.name)).toEqual([
				'contact_center_record_old',
				RECORD_TABLE,
			]);
			const wildcard = (await ok(alice, 'GET', '/data-tables', {
				qs: { filter: JSON.stringify({ name: 'contactXcenter' }) },
			})) as { data: unknown[] };
			expect(wildcard.data).toHaveLength(0);
			expect(
				(
					(await ok(alice, 'GET', '/data-tables', {
						qs: { filter: JSON.stringify({ name: 'ther' }) },
					})) as { data: Array<{ name: string }> }
				).data.map((table) => table.name),
			).toEqual(['other']);

			// One name per project: 409 with n8n's message; another user's project may have it too.
			expect(
				await refused(alice, 'POST', '/data-tables', { body: { name: RECORD_TABLE, columns: [] } }),
			).toEqual({
				status: 409,
				body: { message: `Data table with name '${RECORD_TABLE}' already exists in this project` },
			});
			await createRecordTable(bob);
			expect(api.tables().filter((table) => table.name === RECORD_TABLE)).toHaveLength(2);
			expect(
				await refused(alice, 'GET', '/data-tables', { qs: { filter: '{"title":"x"}' } }),
			).toEqual({
				status: 400,
				body: { message: 'Invalid filter fields' },
			});
		});

		it('pages tables with offset cursors, writes moving a table to the front', async () => {
			const first = await createRecordTable(alice, 'first');
			await createRecordTable(alice, 'second');
			await createRecordTable(alice, 'third');
			await sleep(5);
			await ok(alice, 'POST', rowsPath(first.id), { body: { data: [{ scope: 's' }] } });
			const page1 = (await ok(alice, 'GET', '/data-tables', { qs: { limit: 2 } })) as {
				data: Array<{ name: string }>;
				nextCursor: string;
			};
			expect(page1.data.map((table) => table.name)).toEqual(['first', 'third']);
			expect(JSON.parse(Buffer.from(page1.nextCursor, 'base64').toString())).toEqual({
				limit: 2,
				offset: 2,
			});
			const page2 = (await ok(alice, 'GET', '/data-tables', {
				qs: { cursor: page1.nextCursor },
			})) as { data: Array<{ name: string }>; nextCursor: string | null };
			expect(page2).toEqual({
				data: [expect.objectContaining({ name: 'second' })],
				nextCursor: null,
			});
		});

		it('inserts rows with returnType id, count and all; checks columns and types', async () => {
			const { id } = await createRecordTable(alice);
			const row = { scope: 's', recordKey: 's|k1', state: 'running', stateAt: 1000, detail: '' };
			expect(
				await ok(alice, 'POST', rowsPath(id), {
					body: { data: [row, { ...row, recordKey: 's|k2' }], returnType: 'id' },
				}),
			).toEqual([{ id: 1 }, { id: 2 }]);
			// data-table-rows.repository.js: `count` answers insertRowsBulk's result, not the spec's { count }.
			expect(await ok(alice, 'POST', rowsPath(id), { body: { data: [row] } })).toEqual({
				success: true,
				insertedRows: 1,
			});
			const all = (await ok(alice, 'POST', rowsPath(id), {
				body: { data: [{ recordKey: 's|k4', stateAt: '1234' }], returnType: 'all' },
			})) as ApiRow[];
			expect(all).toEqual([
				{
					scope: null,
					recordKey: 's|k4',
					state: null,
					stateAt: 1234,
					detail: null,
					id: 4,
					createdAt: expect.stringMatching(/Z$/),
					updatedAt: all[0].createdAt,
				},
			]);
			expect(Object.keys(all[0])).toEqual([
				'scope',
				'recordKey',
				'state',
				'stateAt',
				'detail',
				'id',
				'createdAt',
				'updatedAt',
			]);
			expect(await refused(alice, 'POST', rowsPath(id), { body: { data: [{ nope: 1 }] } })).toEqual(
				{
					status: 400,
					body: { message: "Validation error with data table request: unknown column name 'nope'" },
				},
			);
			expect(await refused(alice, 'POST', rowsPath(id), { body: { data: [] } })).toEqual({
				status: 400,
				body: { message: 'request/body/data must NOT have fewer than 1 items' },
			});
			expect(
				(await refused(alice, 'POST', rowsPath(id), { body: { data: [{ stateAt: 'soon' }] } }))
					.status,
			).toBe(400);
			expect(api.rowsOf(RECORD_TABLE, alice.apiKey).map((entry) => entry.id)).toEqual([1, 2, 3, 4]);
		});

		it('reads rows with and/or filters, every condition, sortBy, limit and cursors', async () => {
			const { id } = await createRecordTable(alice);
			api.addRows(
				RECORD_TABLE,
				[
					{ scope: 'a', recordKey: 'a|1', state: 'done', stateAt: 1, detail: 'Alpha' },
					{ scope: 'a', recordKey: 'a|2', state: 'running', stateAt: 2, detail: null },
					{ scope: 'b', recordKey: 'b|3', state: 'done', stateAt: 3, detail: 'alpha_2' },
					{ scope: 'a', recordKey: 'a|4', state: 'running', stateAt: 4, detail: '' },
					{ scope: 'b', recordKey: 'b|5', state: 'done', stateAt: 5, detail: 'beta' },
				],
				alice.apiKey,
			);
			const ids = async (qs: IDataObject) =>
				((await ok(alice, 'GET', rowsPath(id), { qs })) as { data: ApiRow[] }).data.map(
					(row) => row.id,
				);

			expect(await ids({})).toEqual([1, 2, 3, 4, 5]);
			expect(
				await ids({ filter: filterParam('and', ['scope', 'eq', 'a'], ['stateAt', 'gte', 2]) }),
			).toEqual([2, 4]);
			expect(
				await ids({
					filter: filterParam('or', ['recordKey', 'eq', 'a|1'], ['recordKey', 'eq', 'b|5']),
				}),
			).toEqual([1, 5]);
			expect(await ids({ filter: filterParam('and', ['id', 'gt', 3]) })).toEqual([4, 5]);
			expect(await ids({ filter: filterParam('and', ['stateAt', 'lt', 3]) })).toEqual([1, 2]);
			expect(await ids({ filter: filterParam('and', ['stateAt', 'lte', 3]) })).toEqual([1, 2, 3]);
			// neq keeps NULLs (`!= v OR IS NULL`); eq null is IS NULL.
			expect(await ids({ filter: filterParam('and', ['detail', 'neq', 'beta']) })).toEqual([
				1, 2, 3, 4,
			]);
			expect(await ids({ filter: filterParam('and', ['detail', 'eq', null]) })).toEqual([2]);
			expect(await ids({ filter: filterParam('and', ['detail', 'isEmpty', null]) })).toEqual([
				2, 4,
			]);
			// like: case-sensitive, wrapped in %…% when it has no %, `_` a plain character.
			expect(await ids({ filter: filterParam('and', ['detail', 'like', 'lpha']) })).toEqual([1, 3]);
			expect(await ids({ filter: filterParam('and', ['detail', 'like', 'A%']) })).toEqual([1]);
			expect(await ids({ filter: filterParam('and', ['detail', 'like', 'alpha_']) })).toEqual([3]);
			expect(await ids({ filter: filterParam('and', ['detail', 'ilike', 'ALPHA%']) })).toEqual([
				1, 3,
			]);
			expect(
				await ids({ filter: filterParam('and', ['createdAt', 'lte', new Date().toISOString()]) }),
			).toHaveLength(5);
			expect(await ids({ sortBy: 'stateAt:desc' })).toEqual([5, 4, 3, 2, 1]);
			expect(await ids({ sortBy: 'scope:desc' })).toEqual([3, 5, 1, 2, 4]);

			const page1 = (await ok(alice, 'GET', rowsPath(id), {
				qs: { limit: 2, sortBy: 'id:asc' },
			})) as {
				data: ApiRow[];
				nextCursor: string;
			};
			expect(page1.data.map((row) => row.id)).toEqual([1, 2]);
			const page3 = (await ok(alice, 'GET', rowsPath(id), {
				qs: { cursor: Buffer.from(JSON.stringify({ limit: 2, offset: 4 })).toString('base64') },
			})) as { data: ApiRow[]; nextCursor: string | null };
			expect(page3).toEqual({ data: [expect.objectContaining({ id: 5 })], nextCursor: null });
			expect(await ids({ cursor: page1.nextCursor })).toEqual([3, 4]);

			const bad = async (qs: IDataObject) => await refused(alice, 'GET', rowsPath(id), { qs });
			expect(await bad({ limit: 251 })).toEqual({
				status: 400,
				body: { message: 'request/query/limit must be <= 250' },
			});
			expect(await bad({ cursor: 'not-a-cursor' })).toEqual({
				status: 400,
				body: { message: 'An invalid cursor was provided' },
			});
			expect(await bad({ offset: 2 })).toEqual({
				status: 400,
				body: { message: "Unknown query parameter 'offset'" },
			});
			expect(await bad({ filter: 'scope=a' })).toEqual({
				status: 400,
				body: { message: 'request/query/filter must match format "jsonString"' },
			});
			expect(await bad({ filter: filterParam('and', ['nope', 'eq', 1]) })).toEqual({
				status: 400,
				body: { message: "Validation error with data table request: unknown column name 'nope'" },
			});
			expect(await bad({ filter: filterParam('and', ['stateAt', 'between', 1]) })).toEqual({
				status: 400,
				body: { message: 'Invalid filter fields' },
			});
			expect(await bad({ filter: filterParam('and', ['stateAt', 'gt', null]) })).toEqual({
				status: 400,
				body: {
					message:
						'Validation error with data table request: GT filter value cannot be null or undefined',
				},
			});
			expect(await bad({ sortBy: 'nope:asc' })).toEqual({
				status: 500,
				body: { message: 'Internal server error' },
			});
		});

		it('updates rows by filter (PATCH rows/update) with and without returnData', async () => {
			const { id } = await createRecordTable(alice);
			const [first] = api.addRows(
				RECORD_TABLE,
				[
					{ scope: 's', recordKey: 's|1', state: 'running', stateAt: 1 },
					{ scope: 's', recordKey: 's|2', state: 'running', stateAt: 2 },
				],
				alice.apiKey,
			);
			await sleep(5);
			const updated = (await ok(alice, 'PATCH', `${rowsPath(id)}/update`, {
				body: {
					filter: JSON.parse(filterParam('or', ['id', 'eq', 1], ['id', 'eq', 9])) as IDataObject,
					data: { state: 'done', stateAt: 10, detail: 'm-1' },
					returnData: true,
				},
			})) as ApiRow[];
			expect(updated).toEqual([
				{ ...first, state: 'done', stateAt: 10, detail: 'm-1', updatedAt: expect.any(String) },
			]);
			expect(Date.parse(updated[0].updatedAt)).toBeGreaterThan(Date.parse(first.updatedAt));
			expect(
				await ok(alice, 'PATCH', `${rowsPath(id)}/update`, {
					body: {
						filter: JSON.parse(filterParam('and', ['id', 'eq', 2])) as IDataObject,
						data: { state: 'done' },
					},
				}),
			).toBe(true);
			expect(
				await ok(alice, 'PATCH', `${rowsPath(id)}/update`, {
					body: {
						filter: JSON.parse(filterParam('and', ['id', 'eq', 7])) as IDataObject,
						data: { state: 'done' },
						returnData: true,
					},
				}),
			).toEqual([]);
			expect(api.rowsOf(RECORD_TABLE).map((row) => row.state)).toEqual(['done', 'done']);
			expect(
				await refused(alice, 'PATCH', `${rowsPath(id)}/update`, {
					body: { filter: { type: 'and', filters: [] }, data: { state: 'x' } },
				}),
			).toEqual({
				status: 400,
				body: { message: 'request/body/filter/filters must NOT have fewer than 1 items' },
			});
			expect(
				await refused(alice, 'PATCH', `${rowsPath(id)}/update`, {
					body: {
						filter: JSON.parse(filterParam('and', ['id', 'eq', 1])) as IDataObject,
						data: { id: 5 },
					},
				}),
			).toEqual({
				status: 400,
				body: { message: "Validation error with data table request: unknown column name 'id'" },
			});
		});

		it('deletes rows by filter (DELETE rows/delete?filter=…); row ids are never reused', async () => {
			const { id } = await createRecordTable(alice);
			api.addRows(RECORD_TABLE, [{ stateAt: 1 }, { stateAt: 2 }, { stateAt: 3 }], alice.apiKey);
			expect(
				await ok(alice, 'DELETE', `${rowsPath(id)}/delete`, {
					qs: { filter: filterParam('and', ['stateAt', 'lt', 2]) },
				}),
			).toBe(true);
			expect(
				await ok(alice, 'DELETE', `${rowsPath(id)}/delete`, {
					qs: { filter: filterParam('or', ['id', 'eq', 3]), returnData: true },
				}),
			).toEqual([expect.objectContaining({ id: 3, stateAt: 3 })]);
			expect(api.rowsOf(RECORD_TABLE).map((row) => row.id)).toEqual([2]);
			expect(
				await ok(alice, 'POST', rowsPath(id), {
					body: { data: [{ stateAt: 4 }], returnType: 'id' },
				}),
			).toEqual([{ id: 4 }]);
			expect(await refused(alice, 'DELETE', `${rowsPath(id)}/delete`)).toEqual({
				status: 400,
				body: { message: "request/query must have required property 'filter'" },
			});
			expect(
				await refused(alice, 'DELETE', `${rowsPath(id)}/delete`, {
					qs: { filter: '{"type":"and","filters":[]}' },
				}),
			).toEqual({
				status: 400,
				body: { message: 'At least one filter condition is required for delete operations' },
			});
		});

		it('answers 401 to no key, an unknown, an expired and a revoked key', async () => {
			const noKey = await viaN8n({ method: 'GET', url: `${api.baseUrl}/data-tables`, json: true });
			expect(noKey.error?.response).toMatchObject({
				status: 401,
				data: { message: "'X-N8N-API-KEY' header required" },
			});
			const unauthorized = { status: 401, body: { message: 'unauthorized' } };
			expect(await refused('not-a-key', 'GET', '/data-tables')).toEqual(unauthorized);
			const expired = api.addKey(alice.userId, { expiresAt: Date.now() - 1000 });
			expect(await refused(expired, 'GET', '/data-tables')).toEqual(unauthorized);
			const revoked = api.addKey(alice.userId);
			expect(await ok(revoked, 'GET', '/data-tables')).toEqual({ data: [], nextCursor: null });
			api.revokeKey(revoked);
			expect(await refused(revoked, 'GET', '/data-tables')).toEqual(unauthorized);
			// The key is a JWT of its user, as n8n's keys are (the package reads `sub` and `exp`).
			const payload = JSON.parse(
				Buffer.from(alice.apiKey.split('.')[1], 'base64url').toString(),
			) as IDataObject;
			expect(payload).toMatchObject({ sub: alice.userId, iss: 'n8n', aud: 'public-api' });
		});

		it("keeps members to their own project's tables (403 Forbidden); owners see every table", async () => {
			const { id } = await createRecordTable(alice);
			api.addRows(RECORD_TABLE, [{ recordKey: 'a|1', stateAt: 1 }], alice.apiKey);

			expect(
				await ok(bob, 'GET', '/data-tables', {
					qs: { filter: JSON.stringify({ name: RECORD_TABLE }) },
				}),
			).toEqual({
				data: [],
				nextCursor: null,
			});
			const forbidden = { status: 403, body: { message: 'Forbidden' } };
			expect(await refused(bob, 'GET', rowsPath(id))).toEqual(forbidden);
			expect(
				await refused(bob, 'POST', rowsPath(id), { body: { data: [{ stateAt: 2 }] } }),
			).toEqual(forbidden);
			expect(
				await refused(bob, 'DELETE', `${rowsPath(id)}/delete`, {
					qs: { filter: filterParam('and', ['id', 'gt', 0]) },
				}),
			).toEqual(forbidden);
			expect(api.rowsOf(RECORD_TABLE, alice.apiKey)).toHaveLength(1);

			// global.middleware.js projectScope: an owner's global scopes reach every project.
			const listed = (await ok(owner, 'GET', '/data-tables')) as { data: Array<{ id: string }> };
			expect(listed.data.map((table) => table.id)).toEqual([id]);
			expect(((await ok(owner, 'GET', rowsPath(id))) as { data: unknown[] }).data).toHaveLength(1);

			const unknownId = 'AAAAAAAAAAAAAAAA';
			expect(await refused(bob, 'GET', rowsPath(unknownId))).toEqual({
				status: 404,
				body: { message: `Data table with ID "${unknownId}" not found.` },
			});
			expect(await refused(owner, 'GET', rowsPath(unknownId))).toEqual({
				status: 404,
				body: { message: `Could not find the data table: '${unknownId}'` },
			});
			expect(await refused(alice, 'GET', rowsPath('short'))).toEqual({
				status: 400,
				body: { message: 'request/params/dataTableId must match format "nanoid"' },
			});
			const readOnly = api.addKey(alice.userId, { scopes: ['dataTableRow:read'] });
			expect(
				await refused(readOnly, 'POST', rowsPath(id), { body: { data: [{ stateAt: 2 }] } }),
			).toEqual(forbidden);
			expect(((await ok(readOnly, 'GET', rowsPath(id))) as { data: unknown[] }).data).toHaveLength(
				1,
			);
		});

		it('answers GET /users/{id} as the credential test reads it: owners with their role, members 403', async () => {
			expect(
				await ok(owner, 'GET', `/users/${owner.userId}`, { qs: { includeRole: true } }),
			).toMatchObject({
				id: owner.userId,
				email: owner.email,
				role: 'global:owner',
			});
			expect(
				await refused(alice, 'GET', `/users/${alice.userId}`, { qs: { includeRole: true } }),
			).toEqual({
				status: 403,
				body: { message: 'Forbidden' },
			});
			const ownerCheck = await testRecordCredential.call({} as ICredentialTestFunctions, {
				id: 'c1',
				name: 'record',
				type: 'contactCenterRecordApi',
				data: { baseUrl: api.baseUrl, apiKey: owner.apiKey, dataTableName: RECORD_TABLE },
			});
			expect(ownerCheck).toMatchObject({
				status: 'OK',
				message: expect.stringContaining("this n8n's owner"),
			});
			const memberCheck = await testRecordCredential.call({} as ICredentialTestFunctions, {
				id: 'c2',
				name: 'record',
				type: 'contactCenterRecordApi',
				data: { baseUrl: api.baseUrl, apiKey: alice.apiKey, dataTableName: RECORD_TABLE },
			});
			expect(memberCheck).toMatchObject({ status: 'OK' });
		});
	});

	describe('faults, as n8n-core httpRequest meets them', () => {
		let tableId: string;
		const insertRow = async (options: { timeout?: number } = {}) =>
			await call(alice, 'POST', rowsPath(tableId), {
				body: { data: [{ recordKey: 'k', stateAt: 1 }], returnType: 'id' },
				...options,
			});
		const storedRows = () => api.rowsOf(RECORD_TABLE, alice.apiKey).length;

		beforeEach(async () => {
			({ id: tableId } = await createRecordTable(alice));
		});

		it('passes each data table call to the rule with its count, method, path and kind', async () => {
			const seen: unknown[] = [];
			api.setFaults((apiCall) => {
				seen.push(apiCall);
				return undefined;
			});
			await ok(alice, 'GET', rowsPath(tableId), { qs: { limit: 1 } });
			await insertRow();
			await ok(owner, 'GET', `/users/${owner.userId}`);
			expect(seen).toEqual([
				expect.objectContaining({
					n: 2,
					method: 'GET',
					path: rowsPath(tableId),
					query: { limit: '1' },
					operation: 'getRows',
					isWrite: false,
					userId: alice.userId,
				}),
				expect.objectContaining({ n: 3, method: 'POST', operation: 'insertRows', isWrite: true }),
			]);
			// The users call is logged but not counted (n 0) nor offered to the rule.
			expect(api.calls.map(({ n, operation, status }) => [n, operation, status])).toEqual([
				[1, 'createTable', 201],
				[2, 'getRows', 200],
				[3, 'insertRows', 200],
				[0, 'getUser', 200],
			]);
		});

		it('429: Too many requests with Retry-After and rate-limit headers, read and write limits told apart, nothing done', async () => {
			api.setFaults(({ n }) =>
				n === 2 ? { status: 429, retryAfterSeconds: 2 } : n === 3 ? { status: 429 } : undefined,
			);
			const read = await call(alice, 'GET', rowsPath(tableId));
			expect(read.error?.response).toMatchObject({
				status: 429,
				data: { message: 'Too many requests' },
				headers: expect.objectContaining({
					'retry-after': '2',
					'x-ratelimit-limit': '100',
					'x-ratelimit-remaining': '0',
					'ratelimit-policy': '100;w=60;name="read"',
				}),
			});
			const write = await insertRow();
			expect(write.error?.response?.status).toBe(429);
			expect(write.error?.response?.headers).toMatchObject({
				'retry-after': '1',
				'ratelimit-policy': '50;w=60;name="write"',
			});
			expect(storedRows()).toBe(0);
			expect(
				api.calls.slice(1).map(({ status, fault, executed }) => ({ status, fault, executed })),
			).toEqual([
				{ status: 429, fault: '429', executed: false },
				{ status: 429, fault: '429', executed: false },
			]);
			expect((await insertRow()).body).toEqual([{ id: 1 }]);
		});

		it('500, 502 and 503 with n8n-like bodies, or the body given', async () => {
			api.setFaults(({ n }) =>
				n === 2
					? { status: 500 }
					: n === 3
						? { status: 503 }
						: n === 4
							? { status: 502, body: '<html>Bad Gateway</html>' }
							: undefined,
			);
			expect(await refused(alice, 'GET', rowsPath(tableId))).toEqual({
				status: 500,
				body: { message: 'Internal server error' },
			});
			expect(await refused(alice, 'GET', rowsPath(tableId))).toEqual({
				status: 503,
				body: { message: 'Service Unavailable' },
			});
			expect(await refused(alice, 'GET', rowsPath(tableId))).toEqual({
				status: 502,
				body: '<html>Bad Gateway</html>',
			});
		});

		it('reset: the connection is dropped without an answer, the call not carried out', async () => {
			api.setFaults(({ n }) => (n === 2 ? { reset: true } : undefined));
			const { error } = await insertRow();
			expect(error?.code).toBe('ECONNRESET');
			expect(error?.response).toBeUndefined();
			expect(storedRows()).toBe(0);
			expect(api.calls[1]).toMatchObject({ status: 0, fault: 'reset', executed: false });
		});

		it('afterExecute: the write is done, then its answer lost (reset) or replaced (a status)', async () => {
			api.setFaults(({ n }) =>
				n === 2
					? { reset: true, afterExecute: true }
					: n === 3
						? { status: 503, afterExecute: true }
						: undefined,
			);
			expect((await insertRow()).error?.code).toBe('ECONNRESET');
			expect(storedRows()).toBe(1);
			expect((await insertRow()).error?.response?.status).toBe(503);
			expect(storedRows()).toBe(2);
			expect(
				api.calls.slice(1).map(({ status, fault, executed }) => ({ status, fault, executed })),
			).toEqual([
				{ status: 0, fault: 'reset after execute', executed: true },
				{ status: 503, fault: '503 after execute', executed: true },
			]);
		});

		it('delayMs: answered later; a client that times out still gets its write done, as with a real server', async () => {
			api.setFaults(({ n }) =>
				n === 2 ? { delayMs: 150 } : n === 3 ? { delayMs: 300 } : undefined,
			);
			const late = await call(alice, 'GET', rowsPath(tableId));
			expect(late.body).toEqual({ data: [], nextCursor: null });
			expect(late.ms).toBeGreaterThanOrEqual(140);

			const timedOut = await insertRow({ timeout: 100 });
			expect(timedOut.error?.code).toBe('ECONNABORTED');
			expect(timedOut.error?.message).toMatch(/timeout/);
			expect(storedRows()).toBe(0);
			await sleep(300);
			expect(storedRows()).toBe(1);
			expect(api.calls[2]).toMatchObject({ executed: true, status: 200, fault: 'delay 300 ms' });
		});

		it('commitAfterMs: the insert takes its id at once, but its row is seen and the insert answered only after the commit', async () => {
			api.setFaults(({ n }) => (n === 2 ? { commitAfterMs: 300 } : undefined));
			const late = insertRow();
			await sleep(50);
			// An insert that arrives later takes the next id and commits first.
			expect((await insertRow()).body).toEqual([{ id: 2 }]);
			const rowIds = async () =>
				((await ok(alice, 'GET', rowsPath(tableId))) as { data: ApiRow[] }).data.map(
					(row) => row.id,
				);
			expect(await rowIds()).toEqual([2]);
			expect(api.rowsOf(RECORD_TABLE, alice.apiKey).map((row) => row.id)).toEqual([2]);
			const answered = await late;
			expect(answered.body).toEqual([{ id: 1 }]);
			expect(answered.ms).toBeGreaterThanOrEqual(290);
			expect(await rowIds()).toEqual([1, 2]);
			expect(api.calls[1]).toMatchObject({
				executed: true,
				status: 200,
				fault: 'commit after 300 ms',
			});
		});

		it('slow(ms): every call answered that much later', async () => {
			api.slow(120);
			const slowCall = await call(alice, 'GET', rowsPath(tableId));
			expect(slowCall.body).toEqual({ data: [], nextCursor: null });
			expect(slowCall.ms).toBeGreaterThanOrEqual(110);
			api.slow(0);
			expect((await call(alice, 'GET', rowsPath(tableId))).ms).toBeLessThan(100);
		});

		it('outage(ms): connections refused, calls in flight reset and not done, then the same URL answers again', async () => {
			api.slow(1000);
			const inFlight = insertRow();
			await sleep(50);
			const outage = api.outage(300);
			const during = await call(alice, 'GET', rowsPath(tableId));
			expect(during.error?.code).toBe('ECONNREFUSED');
			expect((await inFlight).error?.code).toBe('ECONNRESET');
			await outage;
			api.slow(0);
			expect(await ok(alice, 'GET', rowsPath(tableId))).toEqual({ data: [], nextCursor: null });
			expect(storedRows()).toBe(0);
			expect(api.calls.find((logged) => logged.operation === 'insertRows')).toMatchObject({
				status: 0,
				fault: 'outage',
				executed: false,
			});
		});
	});

	it("runs the package's record verbs: begin, finish, check", async () => {
		const credentials = createCredentialStore(
			{
				contactCenterRecordApi: {
					baseUrl: api.baseUrl,
					apiKey: alice.apiKey,
					dataTableName: RECORD_TABLE,
				},
			},
			{ credentialTypes: [new ContactCenterRecordApi()] },
		);
		const results: unknown[] = [];
		const recordProbe: INodeType = {
			description: {
				...probeDescription,
				credentials: [{ name: 'contactCenterRecordApi', required: true }],
			},
			async execute(this: IExecuteFunctions) {
				const work = { scope: 'conformance', key: 'event-1' };
				const claimed = await once.claim(this, work, 'send');
				results.push(claimed.state === 'claimed' ? claimed.ticket.claimId : claimed);
				if (claimed.state === 'claimed') await once.finish(this, claimed.ticket, 'sent', 'throw');
				results.push(await once.check(this, work));
				results.push(await once.claim(this, work, 'send'));
				return [[{ json: {} }]];
			},
		};
		const { error } = await runNode({ nodeType: recordProbe, parameters: {}, credentials });
		expect(error).toBeUndefined();
		expect(results).toEqual([
			1,
			{ state: 'done', at: expect.any(Number), detail: 'sent' },
			{ state: 'done', at: expect.any(Number), detail: 'sent' },
		]);
		// The record's background prune of old rows: let it finish before the server stops.
		for (let waited = 0; waited < 2000; waited += 10) {
			if (
				api.calls.some((logged) => logged.operation === 'deleteRows' && logged.status !== undefined)
			)
				break;
			await sleep(10);
		}
		// The done row (with its own detail) replaced the claim's row 1.
		expect(api.rowsOf(RECORD_TABLE, alice.apiKey)).toEqual([
			expect.objectContaining({
				id: 2,
				scope: 'conformance',
				recordKey: 'conformance|event-1',
				state: 'done',
				detail: 'sent',
			}),
		]);
	});
});
