import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { ContactCenterSigningSecretApi } from '../../credentials/ContactCenterSigningSecretApi.credentials';
import { ContactCenterTrigger } from '../../nodes/ContactCenterTrigger/ContactCenterTrigger.node';
import {
	DEDUP_STATIC_KEY,
	fingerprintOf,
	PERSISTED_RECORD_LENGTH,
} from '../../nodes/ContactCenterTrigger/helpers/dedup';
import { createCredentialStore, runWebhook } from '../harness';
import type { CredentialStore, RunWebhookResult } from '../harness';
import { buildWorkflow } from '../harness/workflow-setup';
import { DEFAULT_SIGNING_SECRET, signBody } from '../simulator';

const CREDENTIAL = 'contactCenterSigningSecretApi';

function credentialsWith(secret: string): CredentialStore {
	return createCredentialStore(
		{ [CREDENTIAL]: { secret } },
		{ credentialTypes: [new ContactCenterSigningSecretApi()] },
	);
}

const credentials = credentialsWith(DEFAULT_SIGNING_SECRET);

interface CallOptions {
	parameters: INodeParameters;
	/** The exact body bytes; objects are sent as compact JSON. */
	body: IDataObject | string | Buffer;
	/** Overrides the computed signature; null sends no header. */
	signature?: string | string[] | null;
	staticData?: IDataObject;
	credentialStore?: CredentialStore;
	/** Defaults to one workflow per test: the trigger keeps idempotency keys per workflow in memory. */
	workflowId?: string;
}

let testWorkflowId = '';
let testCount = 0;
beforeEach(() => {
	testWorkflowId = `trigger-test-workflow-${++testCount}`;
});

async function call(options: CallOptions): Promise<RunWebhookResult> {
	const rawBody = Buffer.isBuffer(options.body)
		? options.body
		: Buffer.from(typeof options.body === 'string' ? options.body : JSON.stringify(options.body));
	const headers: Record<string, string | string[]> = {
		'content-type': 'application/json',
		accept: 'application/json',
	};
	if (options.signature !== null) {
		headers['x-service-signature'] = options.signature ?? signBody(DEFAULT_SIGNING_SECRET, rawBody);
	}
	return await runWebhook({
		nodeType: new ContactCenterTrigger(),
		typeVersion: 1,
		parameters: options.parameters,
		credentials: options.credentialStore ?? credentials,
		staticData: options.staticData,
		workflowId: options.workflowId ?? testWorkflowId,
		// With `options.binaryData` n8n leaves the body unparsed: the trigger reads only the raw bytes.
		request: { method: 'POST', headers, rawBody, body: {}, query: {} },
	});
}

/** Evaluates the webhook description as n8n's webhook handler does for the given parameters. */
function webhookSettings(parameters: INodeParameters) {
	const nodeType = new ContactCenterTrigger();
	const { workflow, node } = buildWorkflow({ nodeType, parameters, typeVersion: 1 });
	const [webhook] = nodeType.description.webhooks ?? [];
	const evaluate = (value: unknown) =>
		workflow.expression.getSimpleParameterValue(node, value as string, 'webhook', {});
	return {
		path: evaluate(webhook.path),
		httpMethod: webhook.httpMethod,
		responseMode: evaluate(webhook.responseMode),
		responseCode: evaluate(webhook.responseCode),
		responseData: webhook.responseData,
		// n8n's parseRequestBody skips body parsing for version 1 nodes when this is true.
		binaryData: workflow.expression.getSimpleParameterValue(
			node,
			'={{$parameter["options"]["binaryData"]}}',
			'webhook',
			{},
		),
	};
}

const lookupBody = { email: 'ana@example.com' };

function writeBack(overrides: IDataObject = {}): IDataObject {
	return {
		type: 'CONVERSATION_RESOLVED',
		version: 1,
		idempotencyKey: 'idem-1',
		data: {
			medium: { id: 'whatsapp' },
			channel: { id: 'ch-1', name: 'Support' },
			contactProfile: { id: 'cp-1', primaryIdentifier: '+3212345678' },
			conversation: { id: 'conv-1', previousStatus: 'new', currentStatus: 'resolved' },
			agent: { id: 'ag-1', firstName: 'Bo', lastName: 'Lee', email: 'bo@example.com' },
			messages: [{ id: 'm1', direction: 'INBOUND', text: 'Hello' }],
		},
		...overrides,
	};
}

const notification = {
	timestamp: '2024-01-01T10:00:00.123Z',
	version: 1,
	eventType: 'DATA_IMPORT_ERROR',
	messages: ['Attribute email: value too long'],
};

/** The saved keys of the trigger's static data, oldest first, as `fingerprint state` pairs. */
function savedKeys(staticData: IDataObject): string[] {
	const saved = (staticData['node:Contact Center Trigger'] as IDataObject | undefined)?.[
		DEDUP_STATIC_KEY
	] as { records?: unknown } | undefined;
	const records = typeof saved?.records === 'string' ? saved.records : '';
	const pairs: string[] = [];
	for (let start = 0; start < records.length; start += PERSISTED_RECORD_LENGTH) {
		const record = records.slice(start, start + PERSISTED_RECORD_LENGTH);
		pairs.push(`${record.slice(0, 12)} ${record.slice(-1)}`);
	}
	return pairs;
}

const savedKey = (key: string, state: 'd' | 'p') => `${fingerprintOf(key)} ${state}`;

function expectNoRun(result: RunWebhookResult) {
	expect(result.workflowData).toBeUndefined();
}

function expectRejected(result: RunWebhookResult, status: number, message: string | RegExp) {
	expectNoRun(result);
	expect(result.noWebhookResponse).toBe(true);
	expect(result.responseStatus).toBe(status);
	expect((result.responseBody as IDataObject).message).toMatch(message);
}

describe('Contact Center Trigger v1: how n8n serves each endpoint', () => {
	it.each([
		['lookup', {}, 'lookup', 'responseNode', 404],
		[
			'lookup, 500 when no response',
			{ ifNoResponse: 'serverError' },
			'lookup',
			'responseNode',
			500,
		],
		['write back, immediately', {}, 'write-back', 'onReceived', 200],
		[
			'write back, when finished',
			{ responseTiming: 'whenFinished' },
			'write-back',
			'lastNode',
			200,
		],
		['notification', {}, 'notification', 'onReceived', 204],
	])('%s', (_label, extra, path, responseMode, responseCode) => {
		const endpoint = path === 'write-back' ? 'writeBack' : path;
		expect(webhookSettings({ endpoint, ...extra })).toEqual({
			path,
			httpMethod: 'POST',
			responseMode,
			responseCode,
			responseData: 'noData',
			binaryData: true,
		});
	});

	it('registers nothing remotely, but refuses to activate with a signing secret that cannot work', async () => {
		const methods = new ContactCenterTrigger().webhookMethods.default;
		const hookContext = (secret: string, selected = true) =>
			({
				getCredentials: async () => ({ secret }),
				getNode: () => ({
					name: 'Contact Center Trigger',
					typeVersion: 1,
					credentials: selected
						? { contactCenterSigningSecretApi: { id: '1', name: 'secret' } }
						: undefined,
				}),
				getNodeParameter: () => 'lookup',
			}) as never;
		await expect(methods.checkExists.call(hookContext(DEFAULT_SIGNING_SECRET))).resolves.toBe(true);
		await expect(methods.create.call(hookContext(DEFAULT_SIGNING_SECRET))).resolves.toBe(true);
		await expect(methods.delete.call(hookContext(DEFAULT_SIGNING_SECRET))).resolves.toBe(true);
		await expect(methods.checkExists.call(hookContext('not-hex'))).rejects.toThrow(
			/credential cannot be used: the secret contains characters other than 0-9 and a-f/,
		);
		await expect(
			methods.checkExists.call(hookContext(DEFAULT_SIGNING_SECRET, false)),
		).rejects.toThrow('No "Contact Center Signing Secret API" credential is selected in this node');
	});
});

describe('Contact Center Trigger v1: signature check on every endpoint', () => {
	const endpoints: Array<[string, IDataObject]> = [
		['lookup', lookupBody],
		['writeBack', writeBack()],
		['notification', notification],
	];

	describe.each(endpoints)('%s', (endpoint, body) => {
		const parameters = { endpoint };

		it('runs the workflow for a correctly signed call', async () => {
			const result = await call({ parameters, body });
			expect(result.workflowData).toEqual([[{ json: body }]]);
			expect(result.responseStatus).toBeUndefined();
			expect(result.noWebhookResponse).toBeUndefined();
		});

		it('accepts the signature in uppercase hex', async () => {
			const raw = Buffer.from(JSON.stringify(body));
			const result = await call({
				parameters,
				body: raw,
				signature: signBody(DEFAULT_SIGNING_SECRET, raw).toUpperCase(),
			});
			expect(result.workflowData).toEqual([[{ json: body }]]);
		});

		it('answers 401 and runs nothing without a signature header', async () => {
			expectRejected(await call({ parameters, body, signature: null }), 401, /missing/);
		});

		it('answers 401 and runs nothing for a wrong signature', async () => {
			expectRejected(
				await call({ parameters, body, signature: 'ab'.repeat(32) }),
				401,
				/does not match/,
			);
		});

		it('answers 401 for a malformed signature', async () => {
			expectRejected(
				await call({ parameters, body, signature: 'not-a-signature' }),
				401,
				/not a 64-digit/,
			);
		});

		it('answers 401 for a repeated signature header', async () => {
			const raw = Buffer.from(JSON.stringify(body));
			const good = signBody(DEFAULT_SIGNING_SECRET, raw);
			expectRejected(
				await call({ parameters, body: raw, signature: [good, good] }),
				401,
				/more than once/,
			);
		});

		it('answers 401 when the body was changed after signing', async () => {
			const raw = Buffer.from(JSON.stringify(body));
			const signature = signBody(DEFAULT_SIGNING_SECRET, raw);
			const tampered = Buffer.from(JSON.stringify({ ...body, injected: true }));
			expectRejected(await call({ parameters, body: tampered, signature }), 401, /does not match/);
		});

		it('answers 401 for a call signed with another secret', async () => {
			const raw = Buffer.from(JSON.stringify(body));
			const signature = signBody('00112233445566778899aabbccddeeff', raw);
			expectRejected(await call({ parameters, body: raw, signature }), 401, /does not match/);
		});

		it('checks the signature before parsing: unsigned non-JSON gets 401, not 400', async () => {
			expectRejected(
				await call({ parameters, body: '{not json', signature: null }),
				401,
				/missing/,
			);
		});

		it('answers 400 and runs nothing for a correctly signed body that is not JSON', async () => {
			expectRejected(await call({ parameters, body: '{not json' }), 400, /not valid JSON/);
		});

		it('answers 400 for a correctly signed JSON body that is not an object', async () => {
			expectRejected(await call({ parameters, body: '["a"]' }), 400, /not a JSON object/);
		});

		it('answers 400 for a correctly signed empty body', async () => {
			expectRejected(await call({ parameters, body: Buffer.alloc(0) }), 400, /empty/);
		});
	});

	it.each([
		['odd length', DEFAULT_SIGNING_SECRET.slice(1), /odd number of hex digits/],
		['not hex', `${DEFAULT_SIGNING_SECRET.slice(0, -2)}zz`, /other than 0-9 and a-f/],
		['empty', '  ', /empty/],
	])(
		'answers 500 naming the credential, and runs nothing, when the secret is %s',
		async (_label, secret, detail) => {
			const result = await call({
				parameters: { endpoint: 'lookup' },
				body: lookupBody,
				credentialStore: credentialsWith(secret),
			});
			expectRejected(result, 500, /"Contact Center Signing Secret API" credential cannot be used/);
			expectRejected(result, 500, detail);
			expectRejected(result, 500, /must fix the credential; the call was not processed/);
		},
	);

	it('reads a secret pasted in uppercase or with a trailing line break', async () => {
		const result = await call({
			parameters: { endpoint: 'lookup' },
			body: lookupBody,
			credentialStore: credentialsWith(`${DEFAULT_SIGNING_SECRET.toUpperCase()}\n`),
		});
		expect(result.workflowData).toEqual([[{ json: lookupBody }]]);
	});
});

describe('Contact Center Trigger v1: lookup', () => {
	it('outputs the lookup attributes as sent, whatever their names', async () => {
		const body = { email: 'ana@example.com', customerNumber: '42', 'phone number': '+3212345678' };
		const result = await call({ parameters: { endpoint: 'lookup' }, body });
		expect(result.workflowData).toEqual([[{ json: body }]]);
	});
});

describe('Contact Center Trigger v1: write back events', () => {
	it.each(['CONVERSATION_RESOLVED', 'CONVERSATION_SET_TO_PENDING'])(
		'runs for %s by default, passing the payload on as sent',
		async (type) => {
			const body = writeBack({ type, idempotencyKey: `k-${type}` });
			const result = await call({ parameters: { endpoint: 'writeBack' }, body });
			expect(result.workflowData).toEqual([[{ json: body }]]);
		},
	);

	it('answers 2xx and runs nothing for an unselected type', async () => {
		const result = await call({
			parameters: { endpoint: 'writeBack', events: ['CONVERSATION_RESOLVED'] },
			body: writeBack({ type: 'CONVERSATION_SET_TO_PENDING' }),
		});
		expectNoRun(result);
		// No response written by the node: n8n answers with the webhook's responseCode (200).
		expect(result.responseStatus).toBeUndefined();
		expect(result.webhookResponse).toEqual({
			received: true,
			ignored: 'Write back type "CONVERSATION_SET_TO_PENDING" is not selected',
		});
	});

	it('does not record the key of an unselected delivery', async () => {
		const staticData: IDataObject = {};
		await call({
			parameters: { endpoint: 'writeBack', events: ['CONVERSATION_RESOLVED'] },
			body: writeBack({ type: 'CONVERSATION_SET_TO_PENDING' }),
			staticData,
		});
		expect(JSON.stringify(staticData)).not.toContain('idem-1');
	});

	it('passes unknown types and versions on as sent', async () => {
		const body = {
			type: 'CONTACT_MERGED',
			version: 7,
			idempotencyKey: 'k-u',
			data: { anything: [1, 2] },
		};
		const result = await call({ parameters: { endpoint: 'writeBack' }, body });
		expect(result.workflowData).toEqual([[{ json: body }]]);
	});

	it('answers 2xx and runs nothing for unknown types when "Any Other Type" is not selected', async () => {
		const result = await call({
			parameters: {
				endpoint: 'writeBack',
				events: ['CONVERSATION_RESOLVED', 'CONVERSATION_SET_TO_PENDING'],
			},
			body: { type: 'CONTACT_MERGED', version: 1, idempotencyKey: 'k-u2', data: {} },
		});
		expectNoRun(result);
		expect(result.webhookResponse).toMatchObject({ received: true });
	});

	it('passes a payload without type (an unknown kind) on when "Any Other Type" is selected', async () => {
		const body = { version: 2, idempotencyKey: 'k-no-type', data: {} };
		const result = await call({ parameters: { endpoint: 'writeBack' }, body });
		expect(result.workflowData).toEqual([[{ json: body }]]);
	});

	it('flattens the conversation into one CRM row with Simplify', async () => {
		const result = await call({
			parameters: { endpoint: 'writeBack', simplify: true },
			body: writeBack(),
		});
		expect(result.workflowData?.[0]).toHaveLength(1);
		expect(result.workflowData?.[0][0].json).toMatchObject({
			idempotencyKey: 'idem-1',
			type: 'CONVERSATION_RESOLVED',
			version: 1,
			conversationId: 'conv-1',
			currentStatus: 'resolved',
			channelName: 'Support',
			contactPrimaryIdentifier: '+3212345678',
			agentName: 'Bo Lee',
			transcript: 'INBOUND: Hello',
		});
	});
});

describe('Contact Center Trigger v1: deduplication by idempotency key', () => {
	/** n8n saves static data as JSON and loads it fresh for the next request. */
	const persisted = (staticData: IDataObject) =>
		JSON.parse(JSON.stringify(staticData)) as IDataObject;

	it('runs a delivery once: a redelivery of an accepted key is answered 2xx and runs nothing', async () => {
		let staticData: IDataObject = {};
		const parameters = { endpoint: 'writeBack' };
		const first = await call({ parameters, body: writeBack(), staticData });
		expect(first.workflowData).toHaveLength(1);

		staticData = persisted(staticData);
		const again = await call({ parameters, body: writeBack(), staticData });
		expectNoRun(again);
		expect(again.responseStatus).toBeUndefined();
		expect(again.webhookResponse).toEqual({
			received: true,
			duplicate: true,
			idempotencyKey: 'idem-1',
		});

		const other = await call({
			parameters,
			body: writeBack({ idempotencyKey: 'idem-2' }),
			staticData,
		});
		expect(other.workflowData).toHaveLength(1);
	});

	it('copies the keys into the static data of the trigger node, oldest first', async () => {
		const staticData: IDataObject = {};
		const parameters = { endpoint: 'writeBack' };
		await call({ parameters, body: writeBack(), staticData });
		await call({ parameters, body: writeBack({ idempotencyKey: 'idem-2' }), staticData });
		expect((staticData['node:Contact Center Trigger'] as IDataObject)[DEDUP_STATIC_KEY]).toEqual({
			records: expect.any(String),
			writtenBy: expect.any(String),
		});
		expect(savedKeys(staticData)).toEqual([savedKey('idem-1', 'd'), savedKey('idem-2', 'd')]);
	});

	it('recognises a redelivery even when n8n did not save the static data of the accepting call', async () => {
		// n8n 2.41 drops static data changed by a webhook call that starts a run (helpers/dedup.ts).
		const parameters = { endpoint: 'writeBack' };
		for (const key of ['idem-1', 'idem-2', 'idem-3']) {
			const accepted = await call({
				parameters,
				body: writeBack({ idempotencyKey: key }),
				staticData: {},
			});
			expect(accepted.workflowData).toHaveLength(1);
		}
		const saved: IDataObject = {};
		for (const key of ['idem-2', 'idem-3', 'idem-1']) {
			expectNoRun(
				await call({ parameters, body: writeBack({ idempotencyKey: key }), staticData: saved }),
			);
		}
		// The call that starts no run is saved by n8n, and it carries every key.
		expect(savedKeys(persisted(saved))).toEqual([
			savedKey('idem-2', 'd'),
			savedKey('idem-3', 'd'),
			savedKey('idem-1', 'd'),
		]);
	});

	it('recognises a redelivery after an n8n restart from the saved static data', async () => {
		const parameters = { endpoint: 'writeBack' };
		const staticData: IDataObject = {};
		await call({ parameters, body: writeBack(), staticData, workflowId: 'before-restart' });
		// A new process has no keys in memory: only the saved static data knows the key.
		const again = await call({
			parameters,
			body: writeBack(),
			staticData: persisted(staticData),
			workflowId: 'after-restart',
		});
		expectNoRun(again);
	});

	it('keeps one set of keys per workflow', async () => {
		const parameters = { endpoint: 'writeBack' };
		const first = await call({ parameters, body: writeBack(), staticData: {}, workflowId: 'wf-a' });
		const second = await call({
			parameters,
			body: writeBack(),
			staticData: {},
			workflowId: 'wf-b',
		});
		expect(first.workflowData).toHaveLength(1);
		expect(second.workflowData).toHaveLength(1);
	});

	it('runs every delivery that carries no idempotency key', async () => {
		const staticData: IDataObject = {};
		const body = writeBack({ idempotencyKey: undefined });
		for (let i = 0; i < 2; i++) {
			const result = await call({ parameters: { endpoint: 'writeBack' }, body, staticData });
			expect(result.workflowData).toHaveLength(1);
		}
	});

	it('"when the workflow finishes": a redelivery after a failed run runs again, so no event is lost', async () => {
		let staticData: IDataObject = {};
		const parameters = { endpoint: 'writeBack', responseTiming: 'whenFinished' };

		// 1st delivery: the run starts and fails; n8n answers 500 (lastNode mode), the service retries.
		const first = await call({ parameters, body: writeBack(), staticData });
		expect(first.workflowData).toHaveLength(1);
		expect(webhookSettings(parameters).responseMode).toBe('lastNode');

		// Retry an hour later, with the static data n8n saved after the failed run.
		staticData = persisted(staticData);
		const retry = await call({ parameters, body: writeBack(), staticData });
		expect(retry.workflowData).toEqual(first.workflowData);
		expect(savedKeys(staticData)).toEqual([savedKey('idem-1', 'p')]);
	});

	it('"when the workflow finishes" still skips a key that was accepted at once before', async () => {
		const staticData: IDataObject = {};
		await call({ parameters: { endpoint: 'writeBack' }, body: writeBack(), staticData });
		const later = await call({
			parameters: { endpoint: 'writeBack', responseTiming: 'whenFinished' },
			body: writeBack(),
			staticData,
		});
		expectNoRun(later);
		expect(later.webhookResponse).toMatchObject({ duplicate: true });
	});

	it('"immediately" accepts a key left pending by a failed run and then skips it', async () => {
		const staticData: IDataObject = {};
		await call({
			parameters: { endpoint: 'writeBack', responseTiming: 'whenFinished' },
			body: writeBack(),
			staticData,
		});
		const now = await call({
			parameters: { endpoint: 'writeBack' },
			body: writeBack(),
			staticData,
		});
		expect(now.workflowData).toHaveLength(1);
		const after = await call({
			parameters: { endpoint: 'writeBack' },
			body: writeBack(),
			staticData,
		});
		expectNoRun(after);
	});

	it('does not deduplicate lookups or notifications', async () => {
		const staticData: IDataObject = {};
		for (const [endpoint, body] of [
			['lookup', { ...lookupBody, idempotencyKey: 'x' }],
			['notification', { ...notification, idempotencyKey: 'x' }],
		] as Array<[string, IDataObject]>) {
			for (let i = 0; i < 2; i++) {
				const result = await call({ parameters: { endpoint }, body, staticData });
				expect(result.workflowData).toHaveLength(1);
			}
		}
		expect(staticData).toEqual({});
	});
});

describe('Contact Center Trigger v1: notification', () => {
	it('passes DATA_IMPORT_ERROR on as sent (n8n answers 204 without a body)', async () => {
		const result = await call({ parameters: { endpoint: 'notification' }, body: notification });
		expect(result.workflowData).toEqual([[{ json: notification }]]);
		expect(result.responseStatus).toBeUndefined();
		expect(webhookSettings({ endpoint: 'notification' })).toMatchObject({
			responseMode: 'onReceived',
			responseCode: 204,
			responseData: 'noData',
		});
	});

	it('passes unknown event types and versions on as sent', async () => {
		const body = {
			timestamp: '2030-01-01T00:00:00.000Z',
			version: 9,
			eventType: 'SOMETHING_NEW',
			messages: [],
		};
		const result = await call({ parameters: { endpoint: 'notification' }, body });
		expect(result.workflowData).toEqual([[{ json: body }]]);
	});
});

describe('Contact Center Trigger v1: credential test', () => {
	const test = new ContactCenterTrigger().methods.credentialTest.contactCenterSigningSecretTest;
	const run = async (secret: unknown) =>
		await test.call({} as never, {
			id: '1',
			name: 'c',
			type: CREDENTIAL,
			data: { secret } as never,
		});

	it('accepts a hex secret', async () => {
		await expect(run(DEFAULT_SIGNING_SECRET)).resolves.toMatchObject({ status: 'OK' });
	});

	it.each([
		['odd length', 'abc', /odd number/],
		['not hex', 'xyz0', /other than 0-9 and a-f/],
		['empty', '', /empty/],
	])('explains a secret that is %s, naming the credential', async (_label, secret, detail) => {
		const result = await run(secret);
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/^Contact Center Signing Secret API: /);
		expect(result.message).toMatch(detail);
	});
});
