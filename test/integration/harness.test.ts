import { createHmac, timingSafeEqual } from 'crypto';
import { NodeApiError, NodeConnectionTypes } from 'n8n-workflow';
import type {
	ICredentialType,
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';

import { createCredentialStore, runNode, runWebhook } from '../harness';
import type { CredentialStore } from '../harness';
import { DEFAULT_SIGNING_SECRET, startSimulator } from '../simulator';

type Simulator = Awaited<ReturnType<typeof startSimulator>>;

/** Reads one real-time metric per input item through n8n's OAuth2 request helper. */
class MetricProbe implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Metric Probe',
		name: 'metricProbe',
		group: ['transform'],
		version: 1,
		description: 'Harness test node',
		defaults: { name: 'Metric Probe' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		usableAsTool: true,
		credentials: [{ name: 'contactCenterOAuth2Api', required: true }],
		properties: [
			{
				displayName: 'Metric Path',
				name: 'metricPath',
				type: 'string',
				default: '/reporting-metrics/agent-availability',
			},
			{ displayName: 'Presence', name: 'presence', type: 'string', default: 'available' },
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const { baseUrl } = await this.getCredentials<{ baseUrl: string }>('contactCenterOAuth2Api');
		const items = this.getInputData();
		const results: INodeExecutionData[] = [];
		for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
			try {
				const response = (await this.helpers.httpRequestWithAuthentication.call(
					this,
					'contactCenterOAuth2Api',
					{
						method: 'GET',
						url: `${baseUrl.replace(/\/+$/, '')}${this.getNodeParameter('metricPath', itemIndex) as string}`,
						qs: { userPresenceStatus: this.getNodeParameter('presence', itemIndex) },
						json: true,
					},
				)) as { dataPoint: { value: number } };
				results.push({
					json: { value: response.dataPoint.value },
					pairedItem: { item: itemIndex },
				});
			} catch (error) {
				if (!this.continueOnFail())
					throw new NodeApiError(this.getNode(), error as never, { itemIndex });
				results.push({
					json: { error: (error as Error).message },
					pairedItem: { item: itemIndex },
				});
			}
		}
		return [results];
	}
}

/** Answers the webhook that started the workflow and counts its runs in global static data. */
class RespondingCounter implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Responding Counter',
		name: 'respondingCounter',
		group: ['transform'],
		version: 1,
		description: 'Harness test node',
		defaults: { name: 'Responding Counter' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		properties: [],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const counter = this.getWorkflowStaticData('global') as { runs?: number };
		counter.runs = (counter.runs ?? 0) + 1;
		await this.sendResponse({ body: { runs: counter.runs }, headers: {}, statusCode: 202 });
		const items = this.helpers.returnJsonArray({ runs: counter.runs });
		return [this.helpers.constructExecutionMetaData(items, { itemData: { item: 0 } })];
	}
}

describe('test harness: runNode through n8n-core', () => {
	let sim: Simulator;
	let credentials: CredentialStore;

	beforeAll(async () => {
		sim = await startSimulator({});
		credentials = createCredentialStore({
			contactCenterOAuth2Api: {
				baseUrl: `${sim.url}/`,
				clientId: 'sim-client-id',
				clientSecret: 'sim-client-secret',
			},
		});
	});

	afterAll(async () => {
		await sim.stop();
	});

	it('resolves the credential with the oAuth2Api defaults and the token URL expression', async () => {
		const { output, error } = await runNode({
			nodeType: new MetricProbe(),
			parameters: {},
			credentials,
		});

		expect(error).toBeUndefined();
		expect(output?.[0][0].json).toEqual({ value: expect.any(Number) });
		expect(sim.counters.tokenRequests).toBe(1);
		expect(credentials.get('contactCenterOAuth2Api')?.oauthTokenData).toMatchObject({
			access_token: expect.any(String),
			token_type: 'bearer',
		});
	});

	it('reuses the stored token across runs sharing the store', async () => {
		const before = sim.counters.tokenRequests;
		for (let run = 0; run < 3; run++) {
			const { error } = await runNode({ nodeType: new MetricProbe(), parameters: {}, credentials });
			expect(error).toBeUndefined();
		}
		expect(sim.counters.tokenRequests - before).toBe(0);
	});

	it('lets n8n-core fetch a new token and replay the request after a 401', async () => {
		const before = sim.counters.tokenRequests;
		const unauthorizedBefore = sim.counters.unauthorized;
		const oldToken = credentials.get('contactCenterOAuth2Api')?.oauthTokenData;
		sim.expireAllTokens();

		const { output, error } = await runNode({
			nodeType: new MetricProbe(),
			parameters: {},
			credentials,
		});

		expect(error).toBeUndefined();
		expect(output?.[0]).toHaveLength(1);
		expect(sim.counters.unauthorized - unauthorizedBefore).toBe(1);
		expect(sim.counters.tokenRequests - before).toBe(1);
		expect(credentials.get('contactCenterOAuth2Api')?.oauthTokenData).not.toEqual(oldToken);
	});

	it('resolves parameter expressions against the input items', async () => {
		const { output, error } = await runNode({
			nodeType: new MetricProbe(),
			parameters: { presence: '={{ $json.presence }}' },
			inputItems: [{ json: { presence: 'available' } }, { json: { presence: 'away' } }],
			credentials,
		});

		expect(error).toBeUndefined();
		expect(output?.[0]).toHaveLength(2);
		const presences = sim.requests
			.filter((request) => request.path === '/reporting-metrics/agent-availability')
			.slice(-2)
			.map((request) => request.query.userPresenceStatus);
		expect(presences).toEqual(['available', 'away']);
	});

	it('returns the error when the node throws and continueOnFail is off', async () => {
		const { output, error } = await runNode({
			nodeType: new MetricProbe(),
			parameters: { metricPath: '/reporting-metrics/no-such-metric' },
			credentials,
		});

		expect(output).toBeNull();
		expect(error).toBeInstanceOf(NodeApiError);
	});

	it('wires continueOnFail into this.continueOnFail()', async () => {
		const { output, error } = await runNode({
			nodeType: new MetricProbe(),
			parameters: { metricPath: '/reporting-metrics/no-such-metric' },
			credentials,
			continueOnFail: true,
		});

		expect(error).toBeUndefined();
		expect(output?.[0][0].json.error).toEqual(expect.stringContaining('could not be found'));
	});

	it('captures sendResponse and keeps global static data across runs', async () => {
		const staticData: IDataObject = {};
		await runNode({ nodeType: new RespondingCounter(), parameters: {}, staticData });
		const { output, sentResponses } = await runNode({
			nodeType: new RespondingCounter(),
			parameters: {},
			staticData,
		});

		expect(output).toEqual([[{ json: { runs: 2 }, pairedItem: { item: 0 } }]]);
		expect(sentResponses).toEqual([{ body: { runs: 2 }, headers: {}, statusCode: 202 }]);
		expect(staticData.global).toEqual({ runs: 2 });
	});
});

const signingSecretCredential: ICredentialType = {
	name: 'testSigningSecretApi',
	displayName: 'Test Signing Secret',
	properties: [
		{
			displayName: 'Secret',
			name: 'secret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
		},
	],
};

function sign(body: Buffer): string {
	return createHmac('sha256', Buffer.from(DEFAULT_SIGNING_SECRET, 'hex'))
		.update(body)
		.digest('hex');
}

/** Verifies an HMAC over the raw body, answers bad signatures itself and drops repeated event ids. */
// eslint-disable-next-line @n8n/community-nodes/webhook-lifecycle-complete -- nothing to register remotely in a test
class SignedEventTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Signed Event Trigger',
		name: 'signedEventTrigger',
		group: ['trigger'],
		version: 1,
		description: 'Harness test trigger',
		defaults: { name: 'Signed Event Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'testSigningSecretApi', required: true }],
		webhooks: [{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', path: 'events' }],
		properties: [],
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const { secret } = await this.getCredentials<{ secret: string }>('testSigningSecretApi');
		const request = this.getRequestObject();
		const expected = createHmac('sha256', Buffer.from(secret, 'hex'))
			.update(request.rawBody)
			.digest();
		const given = Buffer.from(String(this.getHeaderData()['x-signature'] ?? ''), 'hex');
		if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
			this.getResponseObject().status(401).json({ error: 'invalid signature' });
			return { noWebhookResponse: true };
		}

		const event = this.getBodyData() as { id: string };
		const staticData = this.getWorkflowStaticData('node') as { seenIds?: string[] };
		if (staticData.seenIds?.includes(event.id)) {
			return { webhookResponse: { duplicate: true } };
		}
		staticData.seenIds = [...(staticData.seenIds ?? []), event.id];
		return {
			webhookResponse: { accepted: true },
			workflowData: [this.helpers.returnJsonArray([event as IDataObject])],
		};
	}
}

describe('test harness: runWebhook through n8n-core', () => {
	const credentials = createCredentialStore(
		{ testSigningSecretApi: { secret: DEFAULT_SIGNING_SECRET } },
		{ credentialTypes: [signingSecretCredential] },
	);

	/** Only the bytes: the harness parses the JSON body from them as n8n's body parser does. */
	function signedRequest(event: IDataObject, signature?: string) {
		const rawBody = Buffer.from(JSON.stringify(event));
		return {
			method: 'POST' as const,
			headers: { 'Content-Type': 'application/json', 'X-Signature': signature ?? sign(rawBody) },
			rawBody,
		};
	}

	it('returns what webhook() returns and persists static data across calls', async () => {
		const staticData: IDataObject = {};
		const run = async (event: IDataObject) =>
			await runWebhook({
				nodeType: new SignedEventTrigger(),
				parameters: {},
				credentials,
				staticData,
				request: signedRequest(event),
			});

		const first = await run({ id: 'event-1' });
		expect(first.webhookResponse).toEqual({ accepted: true });
		expect(first.workflowData).toEqual([[{ json: { id: 'event-1' } }]]);
		expect(first.responseStatus).toBeUndefined();

		const repeated = await run({ id: 'event-1' });
		expect(repeated.webhookResponse).toEqual({ duplicate: true });
		expect(repeated.workflowData).toBeUndefined();

		const second = await run({ id: 'event-2' });
		expect(second.workflowData).toEqual([[{ json: { id: 'event-2' } }]]);
		expect(staticData['node:Signed Event Trigger']).toEqual({ seenIds: ['event-1', 'event-2'] });
	});

	it('captures what the node writes on the response object itself', async () => {
		const result = await runWebhook({
			nodeType: new SignedEventTrigger(),
			parameters: {},
			credentials,
			request: signedRequest({ id: 'event-3' }, '00'),
		});

		expect(result.noWebhookResponse).toBe(true);
		expect(result.workflowData).toBeUndefined();
		expect(result.responseStatus).toBe(401);
		expect(result.responseBody).toEqual({ error: 'invalid signature' });
		expect(result.responseHeaders['content-type']).toMatch(/^application\/json/);
	});
});
