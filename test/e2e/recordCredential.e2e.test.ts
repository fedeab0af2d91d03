/* eslint-disable @typescript-eslint/no-explicit-any -- test code: JSON read from n8n, untyped */
/**
 * The Contact Center Record API credential in a real n8n (the packed package installed as users
 * install it, the simulator as the service): the key is confined to the package's record calls,
 * its expiry is read and acted on, and what each kind of key can do is measured.
 */
import { randomUUID } from 'node:crypto';

import * as runtimeModule from '../../scripts/lib/n8n-runtime';
import * as localModule from '../../scripts/lib/local-setup';
import * as helpersModule from './helpers';

type Json = Record<string, any>;
const rt: Json = runtimeModule;
const local: Json = localModule;
const {
	freshStateDir,
	postSigned,
	triggerReportOf,
	report,
	startEchoServer,
	waitFor,
	writeBackPayload,
}: Json = helpersModule;

const DAY_S = 24 * 60 * 60;
const WRITE_BACK_SECRET = {
	id: 'ccExampleWriteBackSecret',
	name: 'Contact Center write back secret',
};

let stack: Json;
let echo: { url: string; requests: Array<Record<string, string>>; close: () => Promise<void> };
const instance = () => stack.instance as Json;
const nowS = () => Math.floor(Date.now() / 1000);

/** An API key of the signed-in user (`cookie`); `expiresAt` in seconds since the epoch, or null. */
const createKey = async (cookie: string, expiresAt: number | null, scopes?: string[]) =>
	(await rt.createApiKey(instance(), cookie, { labelPrefix: 'record', expiresAt, scopes }))
		.rawApiKey as string;

/**
 * What the credential dialog's Test answers, through the REST call the editor makes (n8n tests a
 * saved credential: it reads the stored one by id).
 */
async function testCredential(apiKey: string) {
	const data = {
		baseUrl: `${instance().baseUrl}/api/v1`,
		apiKey,
		dataTableName: 'contact_center_record',
	};
	const saved = await rt.publicApi(instance(), 'POST', '/credentials', {
		name: `record test ${Date.now()}`,
		type: 'contactCenterRecordApi',
		data,
	});
	const answer = await rt.restCall(instance(), 'POST', '/credentials/test', {
		cookie: instance().cookie,
		body: { credentials: { id: saved.id, name: saved.name, type: 'contactCenterRecordApi', data } },
	});
	return (answer.json?.data ?? answer.json) as { status: string; message: string };
}

/** A public API call with a given key: its status and JSON. */
async function withKey(apiKey: string, method: string, route: string, body?: unknown) {
	const res = await fetch(`${instance().baseUrl}/api/v1${route}`, {
		method,
		headers: { 'X-N8N-API-KEY': apiKey, 'content-type': 'application/json' },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const text = await res.text();
	return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

async function createRecordCredential(name: string, apiKey: string, dataTableName: string) {
	const created = await rt.publicApi(instance(), 'POST', '/credentials', {
		name,
		type: 'contactCenterRecordApi',
		data: { baseUrl: `${instance().baseUrl}/api/v1`, apiKey, dataTableName },
	});
	return { id: created.id as string, name };
}

/** A write back workflow with its own webhook, using this record credential. */
async function createWriteBackWorkflow(name: string, record: { id: string; name: string }) {
	const created = await rt.publicApi(instance(), 'POST', '/workflows', {
		name,
		nodes: [
			{
				parameters: { endpoint: 'writeBack', events: ['CONVERSATION_RESOLVED'] },
				name: 'Write back',
				type: 'n8n-nodes-contact-center.contactCenterTrigger',
				typeVersion: 1.1,
				position: [0, 0],
				webhookId: randomUUID(),
				credentials: {
					contactCenterSigningSecretApi: WRITE_BACK_SECRET,
					contactCenterRecordApi: record,
				},
			},
		],
		connections: {},
		settings: { saveDataSuccessExecution: 'all', saveDataErrorExecution: 'all' },
	});
	return created.id as string;
}

async function webhookOf(workflowId: string): Promise<string> {
	const hook = await waitFor(
		async () =>
			(await rt.registeredWebhooks(instance())).find((r: Json) => r.workflowId === workflowId),
		{ what: `the webhook of ${workflowId}` },
	);
	await rt.waitForWebhook(hook.url);
	return hook.url;
}

const deliver = async (url: string, key: string) =>
	await postSigned(url, writeBackPayload(key, `conv-${key}`), { secret: stack.secrets.writeBack });

beforeAll(async () => {
	echo = await startEchoServer();
	stack = await local.startStack({
		userFolder: freshStateDir(),
		n8nPort: 0,
		simulatorPort: 0,
		log: (line: string) => report(`[e2e record credential] ${line}`),
	});
}, 900_000);

afterAll(async () => {
	if (stack) await stack.stop();
	if (echo) await echo.close();
}, 120_000);

describe('the record credential in a real n8n', () => {
	test('an HTTP Request node with Predefined Credential Type = Contact Center Record API sends no n8n API key and cannot read /api/v1/users', async () => {
		const record = { id: 'ccExampleRecordApi', name: 'Contact Center record' };
		const httpNode = (name: string, url: string, x: number) => ({
			parameters: {
				url,
				authentication: 'predefinedCredentialType',
				nodeCredentialType: 'contactCenterRecordApi',
				options: {},
			},
			name,
			type: 'n8n-nodes-base.httpRequest',
			typeVersion: 4.2,
			position: [x, 0],
			credentials: { contactCenterRecordApi: record },
		});
		const workflow = await rt.publicApi(instance(), 'POST', '/workflows', {
			name: 'Tries to take the record key',
			nodes: [
				{
					parameters: {},
					name: 'Start',
					type: 'n8n-nodes-base.manualTrigger',
					typeVersion: 1,
					position: [-200, 0],
				},
				httpNode('Send to my server', echo.url, 0),
				httpNode('Read users', `${instance().baseUrl}/api/v1/users`, 200),
			],
			connections: {
				Start: { main: [[{ node: 'Send to my server', type: 'main', index: 0 }]] },
				'Send to my server': { main: [[{ node: 'Read users', type: 'main', index: 0 }]] },
			},
			settings: {},
		});
		const result = await rt.executeWorkflow(instance(), workflow.id);
		report(
			`[e2e record credential] headers at the echo server: ${JSON.stringify(echo.requests)}; Read users: ${JSON.stringify(result.error('Read users')?.message ?? result.output('Read users'))}`,
		);
		expect(echo.requests).toHaveLength(1);
		const sent = JSON.stringify(echo.requests[0]);
		expect(echo.requests[0]['x-n8n-api-key']).toBeUndefined();
		// The credential holds the record's key (Data tables only), not the scripts' key.
		expect(instance().recordApiKey).toEqual(expect.any(String));
		expect(sent).not.toContain(instance().recordApiKey);
		expect(sent).not.toContain(instance().apiKey);
		expect(result.output('Read users') ?? []).toHaveLength(0);
		expect(JSON.stringify(result.error('Read users'))).toMatch(
			/401|unauthorized|Authorization failed/i,
		);
	});

	test("the credential's Test passes a key that expires within 30 days and can list users, noting both", async () => {
		const inThreeDays = await createKey(instance().cookie, nowS() + 3 * DAY_S + 3600);
		const answer = await testCredential(inThreeDays);
		report(
			`[e2e record credential] Test of an owner key expiring in 3 days: ${JSON.stringify(answer)}`,
		);
		expect(answer.status).toBe('OK');
		expect(answer.message).toMatch(/^The key works/);
		expect(answer.message).toMatch(/expires on \d{4}-\d\d-\d\d \d\d:\d\d UTC \(in 3 days\)/);
		expect(answer.message).toMatch(/it is a key of this n8n's owner/);
	});

	test("a Member user's key (no key scopes) and a key with only the data table scopes: the record works, users and other people's workflows are out of reach, the Test passes", async () => {
		const invited = await rt.restCall(instance(), 'POST', '/invitations', {
			cookie: instance().cookie,
			body: [{ email: 'record@example.com', role: 'global:member' }],
		});
		expect(invited.status).toBe(200);
		const invite = (invited.json.data ?? invited.json)[0].user;
		const token = new URL(invite.inviteAcceptUrl).searchParams.get('token');
		const accepted = await rt.restCall(instance(), 'POST', '/invitations/accept', {
			body: { token, firstName: 'Record', lastName: 'Keeper', password: 'Record-keeper-1' },
		});
		expect(accepted.status).toBe(200);
		const memberKey = await createKey(accepted.cookie, null);
		const scopedKey = await createKey(instance().cookie, null, [
			'dataTable:create',
			'dataTable:list',
			'dataTableRow:create',
			'dataTableRow:read',
			'dataTableRow:update',
			'dataTableRow:delete',
		]);
		const ownerWorkflows = (await rt.publicApi(instance(), 'GET', '/workflows?limit=250'))
			.data as Json[];
		const measured: Json = {};
		for (const [kind, key] of [
			['member', memberKey],
			['dataTableScopes', scopedKey],
		] as const) {
			const users = await withKey(key, 'GET', '/users?limit=1');
			const workflows = await withKey(key, 'GET', '/workflows?limit=250');
			const ownerWorkflow = await withKey(key, 'GET', `/workflows/${ownerWorkflows[0].id}`);
			const test = await testCredential(key);
			measured[kind] = {
				users: users.status,
				workflowsListed: workflows.status === 200 ? workflows.json.data.length : workflows.status,
				ownerWorkflow: ownerWorkflow.status,
				test: test.status,
			};
			// A Member's key lists the users (the Member role has user:list); the scoped key cannot.
			if (kind === 'dataTableScopes') expect(users.status).toBe(403);
			expect(ownerWorkflow.status).not.toBe(200);
			if (workflows.status === 200) expect(workflows.json.data).toHaveLength(0);
			expect(test).toEqual({
				status: 'OK',
				message: expect.stringMatching(/reads this n8n's data tables/),
			});

			// The record itself with this key: a new key is processed once, its redelivery is a duplicate.
			const credential = await createRecordCredential(`record ${kind}`, key, `record_${kind}`);
			const workflowId = await createWriteBackWorkflow(`Write back with a ${kind} key`, credential);
			await rt.activateWorkflow(instance(), workflowId);
			const url = await webhookOf(workflowId);
			const first = await deliver(url, `least-privilege-${kind}`);
			const again = await deliver(url, `least-privilege-${kind}`);
			measured[kind].deliveries = [first, again].map((a) => `${a.status} ${a.json?.status}`);
			expect([first.status, first.json?.status]).toEqual([200, 'processed']);
			expect([again.status, again.json?.status]).toEqual([200, 'duplicate']);
			const tables = await withKey(key, 'GET', '/data-tables?limit=100');
			expect((tables.json.data as Json[]).map((t) => t.name)).toContain(`record_${kind}`);
		}
		report(`[e2e record credential] what each key could do: ${JSON.stringify(measured)}`);
	});

	test('a key about to expire: runs warn (execution hint, n8n log); once expired, deliveries are answered 503 "expired" and start no run, and a new activation is refused as expired', async () => {
		const shortLived = await createKey(instance().cookie, nowS() + 45);
		const credential = await createRecordCredential(
			'record expiring',
			shortLived,
			'record_expiring',
		);
		const workflowId = await createWriteBackWorkflow(
			'Write back with a key about to expire',
			credential,
		);
		await rt.activateWorkflow(instance(), workflowId);
		const url = await webhookOf(workflowId);
		const before = await deliver(url, 'before-expiry');
		expect([before.status, before.json?.status]).toEqual([200, 'processed']);
		const run = await waitFor(
			async () =>
				(await rt.listExecutions(instance(), { workflowId, includeData: true })).find(
					(execution: Json) => execution.status === 'success',
				),
			{ what: 'the run of the delivery before expiry' },
		);
		const hints = run.data.resultData.runData['Write back'][0].hints as Json[];
		report(
			`[e2e record credential] hints of a run whose key expires soon: ${JSON.stringify(hints)}`,
		);
		expect(hints).toEqual([
			expect.objectContaining({
				type: 'warning',
				message: expect.stringMatching(/n8n API key .* expires on .*UTC \(within the hour\)/),
			}),
		]);
		expect(rt.readLog(instance())).toMatch(/Contact Center: The n8n API key .* expires on/);

		await rt.sleep(Math.max(0, (expiryOf(shortLived) + 1) * 1000 - Date.now()));
		const answer = await deliver(url, 'after-expiry');
		report(
			`[e2e record credential] delivery after the key expired: ${answer.status} ${answer.text}`,
		);
		expect(answer.status).toBe(503);
		expect(answer.json?.message).toMatch(/n8n API key .* expired on/);

		const second = await createWriteBackWorkflow(
			'Write back activated with an expired key',
			credential,
		);
		const refused = await activationErrorOf(second);
		report(`[e2e record credential] activation with the expired key: ${refused}`);
		expect(refused).toMatch(/n8n API key .* expired on .*UTC/);
		expect((await rt.registeredWebhooks(instance())).map((r: Json) => r.workflowId)).not.toContain(
			second,
		);
		expect(await rt.listExecutions(instance(), { workflowId: second })).toHaveLength(0);
		// The refused delivery ran nothing: it is reported as a run that failed at the trigger.
		const executions = await waitFor(
			async () => {
				const list = await rt.listExecutions(instance(), { workflowId, includeData: true });
				return list.some(triggerReportOf) ? list : undefined;
			},
			{ what: 'the report of the refused delivery' },
		);
		const reports = executions.map(triggerReportOf).filter(Boolean);
		expect(executions.length - reports.length).toBe(1);
		expect(reports.map((error: Json) => error.message)).toEqual([
			expect.stringMatching(/^The record's n8n API key expired \(.*expired on/),
		]);
		expect(rt.readLog(instance())).toMatch(
			/Contact Center Trigger ".*": The record's n8n API key expired/,
		);
	});
	test('a key revoked while n8n runs (one process, index of the record loaded): the delivery running then is answered 200 after its run and counts as done in the process (its redelivery a duplicate), the next ones 503 without a run until a record call succeeds', async () => {
		const { rawApiKey, label } = await rt.createApiKey(instance(), instance().cookie, {
			labelPrefix: 'revoked',
			expiresAt: null,
		});
		const credential = await createRecordCredential('record revoked', rawApiKey, 'record_revoked');
		const workflowId = await createWriteBackWorkflow('Write back whose key is revoked', credential);
		const logFrom = rt.readLog(instance()).length;
		await rt.activateWorkflow(instance(), workflowId);
		const url = await webhookOf(workflowId);
		// The first run tells the process its runs stay in it; its next check loads the index.
		for (const key of ['revoke-before-1', 'revoke-before-2']) {
			const answer = await deliver(url, key);
			expect([answer.status, answer.json?.status]).toEqual([200, 'processed']);
		}
		await waitFor(
			async () =>
				rt.readLog(instance()).slice(logFrom).includes("loaded into this process's index"),
			{ what: 'the index of the record loaded' },
		);
		const keys = await rt.restCall(instance(), 'GET', '/api-keys', { cookie: instance().cookie });
		// n8n 2.41 lists keys as { items, counts, totals }; earlier versions as an array.
		const listed = keys.json?.data ?? keys.json;
		const revoked = ((Array.isArray(listed) ? listed : (listed?.items ?? [])) as Json[]).find(
			(k) => k.label === label,
		);
		expect(revoked).toBeDefined();
		const removed = await rt.restCall(instance(), 'DELETE', `/api-keys/${revoked?.id}`, {
			cookie: instance().cookie,
		});
		expect(removed.status).toBe(200);

		const first = await deliver(url, 'revoke-after-1');
		const second = await deliver(url, 'revoke-after-2');
		const third = await deliver(url, 'revoke-after-2');
		const firstAgain = await deliver(url, 'revoke-after-1');
		report(
			`[e2e record credential] deliveries after the key was revoked: ${[first, second, third, firstAgain].map((a) => `${a.status} ${a.text.slice(0, 160)}`).join(' | ')}`,
		);
		// Its run succeeded: it is done, its row is written once a key works again.
		expect([first.status, first.json?.status]).toEqual([200, 'processed']);
		expect(rt.readLog(instance()).slice(logFrom)).toMatch(
			/revoke-after-1 is done but could not be recorded yet \(n8n at .* refused the n8n API key of the "Contact Center Record API" credential \(HTTP 401\): check the key you pasted/,
		);
		expect([firstAgain.status, firstAgain.json?.status]).toEqual([200, 'duplicate']);
		for (const answer of [second, third]) {
			expect(answer.status).toBe(503);
			expect(answer.json?.message).toMatch(/could not be read.*401/);
		}
		// Two reports: the first delivery's run asked for its own (kept only in memory), and the
		// refused calls made one; each run may be listed a moment after its call was answered.
		const executions = await waitFor(
			async () => {
				const list = await rt.listExecutions(instance(), { workflowId, includeData: true });
				return list.filter(triggerReportOf).length >= 2 ? list : undefined;
			},
			{ what: 'the reports of the kept and the refused deliveries' },
		);
		const reports = executions.map(triggerReportOf).filter(Boolean);
		const refusedReport = reports.find((error: Json) => / refused \(503\)/.test(error.message));
		expect(reports.map((error: Json) => error.message).sort()).toEqual([
			expect.stringMatching(
				/^1 write back was processed and answered 200, but n8n's API did not take its record row/,
			),
			expect.stringMatching(
				/^The record's n8n API key was refused by n8n .*: 1 call to the write back URL refused \(503\)/,
			),
		]);
		expect(refusedReport.description).toMatch(
			/1 processed write back is kept as done only in this n8n process's memory/,
		);
		const runs = executions.filter((execution: Json) => !triggerReportOf(execution));
		const ranKeys = runs.map(
			(execution: Json) =>
				execution.data?.resultData?.runData?.['Write back']?.[0]?.data?.main?.[0]?.[0]?.json
					?.idempotencyKey,
		);
		expect(ranKeys.sort()).toEqual(['revoke-after-1', 'revoke-before-1', 'revoke-before-2']);
	});
});

/**
 * Why n8n did not activate the workflow's trigger: the activation call's error, or, where n8n
 * publishes in the background (2.41's workflow publication service, on by default), the failed
 * trigger's message in the publication status that the editor shows.
 */
async function activationErrorOf(workflowId: string): Promise<string | undefined> {
	const thrown = await rt.activateWorkflow(instance(), workflowId).then(
		() => undefined,
		(error: Error) => error.message,
	);
	if (thrown !== undefined) return thrown;
	const failed = await waitFor(
		async () => {
			const status = await rt.restCall(
				instance(),
				'GET',
				`/workflows/${workflowId}/publication-status`,
				{
					cookie: instance().cookie,
				},
			);
			const triggers = ((status.json?.data ?? status.json)?.triggers ?? []) as Json[];
			return triggers.find((trigger) => trigger.status === 'failed');
		},
		{ what: `the publication status of ${workflowId}`, timeoutMs: 90_000 },
	);
	return failed.errorMessage as string;
}

/** The key's expiry (seconds since the epoch), from its JWT payload. */
function expiryOf(apiKey: string): number {
	return JSON.parse(Buffer.from(apiKey.split('.')[1], 'base64url').toString()).exp as number;
}
