import {
	resolveWebhookDescriptionField,
	sleep,
	webhookDescriptionIsNativelyResolvable,
	type IDataObject,
	type INodeParameters,
} from 'n8n-workflow';

import { ContactCenterSigningSecretApi } from '../../credentials/ContactCenterSigningSecretApi.credentials';
import { ContactCenterTrigger } from '../../nodes/ContactCenterTrigger/ContactCenterTrigger.node';
import { startSampleCall } from '../../nodes/ContactCenterTrigger/sampleCall';
import { createCredentialStore, runWebhook } from '../harness';
import type { CredentialStore, RunWebhookResult } from '../harness';
import {
	createFlowDatabase,
	deliver,
	type Delivery,
	type FlowOptions,
} from '../harness/run-trigger-flow';
import { buildWorkflow } from '../harness/workflow-setup';
import { DEFAULT_SIGNING_SECRET, signBody } from '../simulator';
import { newKeys, recordRows, useRecordApi } from './recordFaults';

const CREDENTIAL = 'contactCenterSigningSecretApi';

function credentialsWith(secret: string): CredentialStore {
	return createCredentialStore(
		{ [CREDENTIAL]: { secret } },
		{ credentialTypes: [new ContactCenterSigningSecretApi()] },
	);
}

const credentials = credentialsWith(DEFAULT_SIGNING_SECRET);

/** The record (the stand-in of n8n's data table API) for write backs on the production URL. */
const record = useRecordApi();

interface CallOptions {
	parameters: INodeParameters;
	/** The exact body bytes; objects are sent as compact JSON. */
	body: IDataObject | string | Buffer;
	/** Overrides the computed signature; null sends no header. */
	signature?: string | string[] | null;
	/**
	 * Default JSON. n8n 2.41 itself refuses a body sent as JSON that does not parse (422) before
	 * the trigger runs, so bodies that are not JSON are sent as text.
	 */
	contentType?: string;
	credentialStore?: CredentialStore;
	/**
	 * Default: the production URL, except for write backs: the editor's test URL, which keeps no
	 * record (the production URL's record is tested with the record below).
	 */
	mode?: 'webhook' | 'manual';
}

async function call(options: CallOptions): Promise<RunWebhookResult> {
	const rawBody = Buffer.isBuffer(options.body)
		? options.body
		: Buffer.from(typeof options.body === 'string' ? options.body : JSON.stringify(options.body));
	const headers: Record<string, string | string[]> = {
		'content-type': options.contentType ?? 'application/json',
		accept: 'application/json',
	};
	if (options.signature !== null) {
		headers['x-service-signature'] = options.signature ?? signBody(DEFAULT_SIGNING_SECRET, rawBody);
	}
	return await runWebhook({
		nodeType: new ContactCenterTrigger(),
		parameters: options.parameters,
		credentials: options.credentialStore ?? credentials,
		mode: options.mode ?? (options.parameters.endpoint === 'writeBack' ? 'manual' : 'webhook'),
		// n8n parses a JSON body and keeps its exact bytes on rawBody, which the trigger checks.
		request: { method: 'POST', headers, rawBody, query: {} },
	});
}

const [webhookDescription] = new ContactCenterTrigger().description.webhooks ?? [];

/** The webhook settings n8n serves for the parameters, by its expression engine and by its native resolvers. */
function webhookSettings(parameters: INodeParameters) {
	const { workflow, node } = buildWorkflow({ nodeType: new ContactCenterTrigger(), parameters });
	const fields = ['path', 'responseMode', 'responseCode'] as const;
	const evaluated = Object.fromEntries(
		fields.map((field) => [
			field,
			workflow.expression.getSimpleParameterValue(
				node,
				webhookDescription[field] as string,
				'webhook',
				{},
			),
		]),
	);
	const native = Object.fromEntries(
		fields.map((field) => {
			return [field, resolveWebhookDescriptionField(node, webhookDescription, field)];
		}),
	);
	return {
		evaluated: {
			...evaluated,
			httpMethod: webhookDescription.httpMethod,
			responseData: webhookDescription.responseData,
		},
		native,
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

/**
 * None of the workflow's nodes run: no workflow data, or only the report of the refusal (its run
 * fails at the trigger: trigger.reports.test.ts), which carries nothing of the call's body.
 */
function expectNoRun(result: RunWebhookResult) {
	const items = result.workflowData?.flat() ?? [];
	expect(items.length).toBeLessThanOrEqual(1);
	for (const item of items) {
		expect(item.contactCenterReport).toBe(1);
		expect(Object.keys(item.json).sort()).toEqual(
			['cause', 'description', 'message', 'refusedCalls', 'since', 'status'].sort(),
		);
	}
}

function expectRejected(result: RunWebhookResult, status: number, message: string | RegExp) {
	expectNoRun(result);
	expect(result.noWebhookResponse).toBe(true);
	expect(result.responseStatus).toBe(status);
	expect((result.responseBody as IDataObject).message).toMatch(message);
}

/** The run's first item of a write back as the webhook call hands it on: the trigger's own URL beside `json`. */
const WRITE_BACK_URL = 'http://localhost:5678/webhook/harness-webhook-id/write-back';
const handedOn = (endpoint: string, json: IDataObject) =>
	endpoint === 'writeBack' ? { json, contactCenterReportUrl: WRITE_BACK_URL } : { json };

describe('Contact Center Trigger: how n8n serves each endpoint', () => {
	it('resolves the webhook without the expression engine', () => {
		expect(webhookDescriptionIsNativelyResolvable(webhookDescription)).toBe(true);
	});

	it.each([
		['lookup', { endpoint: 'lookup' }, 'lookup', 'responseNode', 404],
		[
			'lookup, 500 when no response',
			{ endpoint: 'lookup', ifNoResponse: 'serverError' },
			'lookup',
			'responseNode',
			500,
		],
		['write back', { endpoint: 'writeBack' }, 'write-back', 'responseNode', 200],
		[
			'write back, answered immediately',
			{ endpoint: 'writeBack', respond: 'immediately' },
			'write-back',
			'responseNode',
			200,
		],
		['notification', { endpoint: 'notification' }, 'notification', 'onReceived', 204],
	])(
		'%s: the native resolvers and the editor templates agree',
		(_label, parameters, path, responseMode, responseCode) => {
			const { evaluated, native } = webhookSettings(parameters);
			expect(evaluated).toEqual({
				path,
				httpMethod: 'POST',
				responseMode,
				responseCode,
				responseData: 'noData',
			});
			expect(native).toEqual({
				path: { resolved: true, value: path },
				responseMode: { resolved: true, value: responseMode },
				responseCode: { resolved: true, value: responseCode },
			});
		},
	);

	it('registers nothing remotely, but refuses to activate with a signing secret that cannot work', async () => {
		const methods = new ContactCenterTrigger().webhookMethods.default;
		const hookContext = (secret: string, selected = true) =>
			({
				getCredentials: async () => ({ secret }),
				getNode: () => ({
					name: 'Contact Center Trigger',
					typeVersion: 1.1,
					credentials: selected
						? { contactCenterSigningSecretApi: { id: '1', name: 'secret' } }
						: undefined,
				}),
				getNodeParameter: () => 'lookup',
				getActivationMode: () => 'activate',
			}) as never;
		await expect(methods.checkExists.call(hookContext(DEFAULT_SIGNING_SECRET))).resolves.toBe(true);
		await expect(methods.create.call(hookContext(DEFAULT_SIGNING_SECRET))).resolves.toBe(true);
		await expect(methods.delete.call(hookContext(DEFAULT_SIGNING_SECRET))).resolves.toBe(true);
		await expect(methods.checkExists.call(hookContext('not-hex'))).rejects.toThrow(
			/credential \(Contact Center Signing Secret API\) cannot be used: the secret contains characters other than 0-9 and a-f/,
		);
		await expect(
			methods.checkExists.call(hookContext(DEFAULT_SIGNING_SECRET, false)),
		).rejects.toThrow('No "Contact Center Signing Secret API" credential is selected in this node');
	});
});

describe('Contact Center Trigger: Test Event Signed Sample Call', () => {
	/** The hook context of a test run (or an activation) starting to listen, with the calls it makes. */
	function listening(endpoint: string, testEvent: string, activationMode = 'manual') {
		const made: IDataObject[] = [];
		const logged: string[] = [];
		const context = {
			getCredentials: async () => ({ secret: DEFAULT_SIGNING_SECRET }),
			getNode: () => ({
				name: 'Contact Center Trigger',
				typeVersion: 1.1,
				credentials: { contactCenterSigningSecretApi: { id: '1', name: 'secret' } },
			}),
			getNodeParameter: (name: string) => ({ endpoint, testEvent })[name],
			getActivationMode: () => activationMode,
			getNodeWebhookUrl: () => 'http://localhost:5678/webhook-test/harness-webhook-id/lookup',
			helpers: {
				httpRequest: async (options: IDataObject) => {
					made.push(options);
					return { statusCode: 404, body: '{"message":"No lookup found"}' };
				},
			},
			logger: {
				info: (line: string) => logged.push(line),
				warn: (line: string) => logged.push(line),
			},
		};
		return { context: context as never, made, logged };
	}

	it.each(['lookup', 'writeBack', 'notification'])(
		'%s: a test run gets a sample call signed with the credential, which runs the workflow',
		async (endpoint) => {
			const { context, made, logged } = listening(endpoint, 'sample');
			await startSampleCall(context, endpoint as never);
			expect(made).toHaveLength(0);
			await sleep(1800);
			expect(made).toHaveLength(1);
			const [sample] = made as Array<{ url: string; body: string; headers: IDataObject }>;
			expect(sample.url).toBe('http://localhost:5678/webhook-test/harness-webhook-id/lookup');
			const result = await call({
				parameters: { endpoint },
				body: sample.body,
				signature: sample.headers['x-service-signature'] as string,
				mode: 'manual',
			});
			expect(result.workflowData).toEqual([[handedOn(endpoint, JSON.parse(sample.body))]]);
			expect(logged).toEqual([
				`Contact Center Trigger: the signed sample ${endpoint} call to ${sample.url} was answered 404: {"message":"No lookup found"}`,
			]);
		},
	);

	it("makes no call for The Service's Call, nor when the workflow is published", async () => {
		const atDefault = listening('lookup', 'service');
		const published = listening('lookup', 'sample', 'activate');
		await startSampleCall(atDefault.context, 'lookup');
		await startSampleCall(published.context, 'lookup');
		await sleep(1800);
		expect([...atDefault.made, ...published.made]).toEqual([]);
	});

	it('says in the log why no sample call is made: no Test URL, or a secret that cannot be used', async () => {
		const noUrl = listening('lookup', 'sample');
		(noUrl.context as { getNodeWebhookUrl: () => undefined }).getNodeWebhookUrl = () => undefined;
		const badSecret = listening('writeBack', 'sample');
		(badSecret.context as { getCredentials: () => Promise<IDataObject> }).getCredentials =
			async () => ({ secret: 'not hex' });
		await startSampleCall(noUrl.context, 'lookup');
		await startSampleCall(badSecret.context, 'writeBack');
		expect([...noUrl.made, ...badSecret.made]).toEqual([]);
		expect(noUrl.logged).toEqual([
			"Contact Center Trigger: no signed sample lookup call was made: n8n gave this test run no Test URL; call the trigger's Test URL as the service would instead",
		]);
		expect(badSecret.logged).toHaveLength(1);
		expect(badSecret.logged[0]).toMatch(
			/^Contact Center Trigger: no signed sample writeBack call was made: The "secret" credential \(Contact Center Signing Secret API\) cannot be used: /,
		);
	});
});

describe('Contact Center Trigger: signature check on every endpoint', () => {
	const endpoints: Array<[string, IDataObject]> = [
		['lookup', lookupBody],
		['writeBack', writeBack()],
		['notification', notification],
	];

	describe.each(endpoints)('%s', (endpoint, body) => {
		const parameters = { endpoint };

		it('runs the workflow for a correctly signed call', async () => {
			const result = await call({ parameters, body });
			expect(result.workflowData).toEqual([[handedOn(endpoint, body)]]);
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
			expect(result.workflowData).toEqual([[handedOn(endpoint, body)]]);
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
				await call({ parameters, body: '{not json', contentType: 'text/plain', signature: null }),
				401,
				/missing/,
			);
		});

		it('answers 400 and runs nothing for a correctly signed body that is not JSON', async () => {
			expectRejected(
				await call({ parameters, body: '{not json', contentType: 'text/plain' }),
				400,
				/not valid JSON/,
			);
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
			expectRejected(
				result,
				500,
				/"contactCenterSigningSecretApi credential" credential \(Contact Center Signing Secret API\) cannot be used/,
			);
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

describe('Contact Center Trigger: lookup', () => {
	it('outputs the lookup attributes as sent, whatever their names', async () => {
		const body = { email: 'ana@example.com', customerNumber: '42', 'phone number': '+3212345678' };
		const result = await call({ parameters: { endpoint: 'lookup' }, body });
		expect(result.workflowData).toEqual([[{ json: body }]]);
	});
});

describe('Contact Center Trigger: write back events', () => {
	it.each(['CONVERSATION_RESOLVED', 'CONVERSATION_SET_TO_PENDING'])(
		'runs for %s by default, passing the payload on as sent',
		async (type) => {
			const body = writeBack({ type, idempotencyKey: `k-${type}` });
			const result = await call({ parameters: { endpoint: 'writeBack' }, body });
			expect(result.workflowData).toEqual([[handedOn('writeBack', body)]]);
		},
	);

	it('answers 200 "ignored" and runs nothing for an unselected type, without a call to the record', async () => {
		const [key] = newKeys('unselected', 1);
		const callsBefore = record.api.calls.length;
		const result = await call({
			parameters: { endpoint: 'writeBack', events: ['CONVERSATION_RESOLVED'] },
			body: writeBack({ type: 'CONVERSATION_SET_TO_PENDING', idempotencyKey: key }),
			credentialStore: record.credentials,
			mode: 'webhook',
		});
		expectNoRun(result);
		expect(result.noWebhookResponse).toBe(true);
		expect(result.responseStatus).toBe(200);
		expect(result.responseBody).toEqual({
			received: true,
			duplicate: false,
			idempotencyKey: key,
			status: 'ignored',
		});
		expect(record.api.calls.length).toBe(callsBefore);
	});

	it('passes unknown types and versions on as sent', async () => {
		const body = {
			type: 'CONTACT_MERGED',
			version: 7,
			idempotencyKey: 'k-u',
			data: { anything: [1, 2] },
		};
		const result = await call({ parameters: { endpoint: 'writeBack' }, body });
		expect(result.workflowData).toEqual([[handedOn('writeBack', body)]]);
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
		expect(result.responseStatus).toBe(200);
		expect(result.responseBody).toMatchObject({ received: true, status: 'ignored' });
	});

	it('passes a payload without type (an unknown kind) on when "Any Other Type" is selected', async () => {
		const body = { version: 2, idempotencyKey: 'k-no-type', data: {} };
		const result = await call({ parameters: { endpoint: 'writeBack' }, body });
		expect(result.workflowData).toEqual([[handedOn('writeBack', body)]]);
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

describe('Contact Center Trigger: the record of write backs on the production URL', () => {
	const production = (body: IDataObject, extra: Partial<CallOptions> = {}) =>
		call({
			parameters: { endpoint: 'writeBack' },
			body,
			credentialStore: record.credentials,
			mode: 'webhook',
			...extra,
		});
	const rowsOf = (key: string) =>
		recordRows(record.api, record.apiKey).filter((row) =>
			String(row.recordKey).endsWith(`|${key}`),
		);

	it("takes a signed delivery's key in the record before its run; a redelivery meanwhile is answered 409 and runs nothing", async () => {
		const [key] = newKeys('taken', 1);
		const first = await production(writeBack({ idempotencyKey: key }));
		const [claim] = rowsOf(key);
		expect(rowsOf(key).map((row) => row.state)).toEqual(['running']);
		// The claim's row id goes to the run beside the item's json, which the workflow never sees.
		expect(first.workflowData).toEqual([
			[
				{
					...handedOn('writeBack', writeBack({ idempotencyKey: key })),
					contactCenterClaimId: claim.id,
				},
			],
		]);
		const again = await production(writeBack({ idempotencyKey: key }));
		expectNoRun(again);
		expect(again.responseStatus).toBe(409);
		expect(again.responseBody).toEqual({
			received: false,
			duplicate: true,
			idempotencyKey: key,
			status: 'running',
		});
	});

	it('checks the signature before the record: a refused delivery makes no call to it', async () => {
		const [key] = newKeys('unsigned', 1);
		const callsBefore = record.api.calls.length;
		expectRejected(
			await production(writeBack({ idempotencyKey: key }), { signature: null }),
			401,
			/missing/,
		);
		expect(record.api.calls.length).toBe(callsBefore);
	});

	it('keeps no record for calls to the test URL', async () => {
		const [key] = newKeys('test-url', 1);
		const callsBefore = record.api.calls.length;
		for (let i = 0; i < 2; i++) {
			const result = await production(writeBack({ idempotencyKey: key }), { mode: 'manual' });
			expect(result.workflowData).toHaveLength(1);
		}
		expect(record.api.calls.length).toBe(callsBefore);
	});

	it('runs every delivery that carries no idempotency key, without a call to the record', async () => {
		const callsBefore = record.api.calls.length;
		const body = writeBack({ idempotencyKey: undefined });
		for (let i = 0; i < 2; i++) expect((await production(body)).workflowData).toHaveLength(1);
		expect(record.api.calls.length).toBe(callsBefore);
	});

	it('does not deduplicate lookups or notifications', async () => {
		const callsBefore = record.api.calls.length;
		for (const [endpoint, body] of [
			['lookup', { ...lookupBody, idempotencyKey: 'x' }],
			['notification', { ...notification, idempotencyKey: 'x' }],
		] as Array<[string, IDataObject]>) {
			for (let i = 0; i < 2; i++) {
				const result = await call({
					parameters: { endpoint },
					body,
					credentialStore: record.credentials,
				});
				expect(result.workflowData).toHaveLength(1);
			}
		}
		expect(record.api.calls.length).toBe(callsBefore);
	});
});

describe('Contact Center Trigger: notification', () => {
	it('passes DATA_IMPORT_ERROR on as sent (n8n answers 204 without a body)', async () => {
		const result = await call({ parameters: { endpoint: 'notification' }, body: notification });
		expect(result.workflowData).toEqual([[{ json: notification }]]);
		expect(result.responseStatus).toBeUndefined();
		expect(webhookSettings({ endpoint: 'notification' }).evaluated).toMatchObject({
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

describe('Contact Center Trigger: credential test', () => {
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

/** The trigger's webhook call and then its run through n8n-core, as n8n serves a production call. */
function flowFor(
	parameters: IDataObject,
	credentialStore: CredentialStore = credentials,
): FlowOptions {
	return {
		database: createFlowDatabase(),
		triggerType: new ContactCenterTrigger(),
		typeVersion: 1.1,
		parameters,
		credentials: credentialStore,
		workflowId: 'trigger-flow',
	};
}

function signedWith(secret: string, body: IDataObject): Delivery {
	const rawBody = Buffer.from(JSON.stringify(body));
	return {
		rawBody,
		headers: {
			'content-type': 'application/json',
			'x-service-signature': signBody(secret, rawBody),
		},
	};
}

describe('Contact Center Trigger: lookup answered by the trigger when no Respond to Lookup did', () => {
	it('answers 404 with an empty body and no JSON content type after a run that found nobody', async () => {
		const result = await deliver(
			flowFor({ endpoint: 'lookup' }),
			signedWith(DEFAULT_SIGNING_SECRET, { email: 'x@example.com' }),
		);
		expect(result.status).toBe(404);
		expect(result.body).toBe('');
		expect(result.headers).toEqual({});
	});

	it('answers 500 when "If No Response Is Sent" says so', async () => {
		const result = await deliver(
			flowFor({ endpoint: 'lookup', ifNoResponse: 'serverError' }),
			signedWith(DEFAULT_SIGNING_SECRET, { email: 'x@example.com' }),
		);
		expect(result.status).toBe(500);
	});

	it('answers a failed lookup run 500 itself (n8n 2.33 to 2.37 would answer 200 first), not 404', async () => {
		const result = await deliver(
			flowFor({ endpoint: 'lookup' }),
			signedWith(DEFAULT_SIGNING_SECRET, { failThisRun: true }),
		);
		expect(result.status).toBe(500);
		const body = typeof result.body === 'string' ? JSON.parse(result.body) : result.body;
		expect(body).toEqual({ message: 'The workflow run failed; the call was not processed' });
	});
});

describe('Contact Center Trigger: signing key reuse', () => {
	const OTHER_SECRET = 'a1'.repeat(32);

	afterEach(() => jest.restoreAllMocks());

	it('reads the credential once a minute, takes a new secret at once, and keeps accepting the replaced one for at most a minute', async () => {
		const store = credentialsWith(DEFAULT_SIGNING_SECRET);
		const reads = jest.spyOn(store, 'getDecrypted');
		const notificationFlow = flowFor({ endpoint: 'notification' }, store);
		const start = Date.now();
		const clock = jest.spyOn(Date, 'now').mockReturnValue(start);
		const body = { eventType: 'DATA_IMPORT_ERROR', messages: [] };
		const statusOf = async (secret: string) =>
			(await deliver(notificationFlow, signedWith(secret, body))).status;

		for (let i = 0; i < 3; i++) expect(await statusOf(DEFAULT_SIGNING_SECRET)).toBe(200);
		expect(reads).toHaveBeenCalledTimes(1);

		store.set(CREDENTIAL, { secret: OTHER_SECRET });
		expect(await statusOf(OTHER_SECRET)).toBe(200);
		expect(reads).toHaveBeenCalledTimes(2);

		store.set(CREDENTIAL, { secret: DEFAULT_SIGNING_SECRET });
		// Signed with the replaced secret, within the minute: still accepted.
		expect(await statusOf(OTHER_SECRET)).toBe(200);
		clock.mockReturnValue(start + 61_000);
		expect(await statusOf(OTHER_SECRET)).toBe(401);
		expect(await statusOf(DEFAULT_SIGNING_SECRET)).toBe(200);
	});
});
