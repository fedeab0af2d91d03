import { NodeApiError, NodeConnectionTypes } from 'n8n-workflow';
import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';

import { createCredentialStore, runNode } from '../harness';
import type { CredentialStore } from '../harness';
import { startSimulator } from '../simulator';

type Simulator = Awaited<ReturnType<typeof startSimulator>>;

/** Reads one real-time metric per input item through n8n's OAuth2 request helper. */
class MetricProbe implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Metric Probe',
		name: 'metricProbe',
		group: ['transform'],
		version: [1, 2],
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
					json: { value: response.dataPoint.value, typeVersion: this.getNode().typeVersion },
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
		expect(output?.[0][0].json).toEqual({ value: expect.any(Number), typeVersion: 2 });
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
			typeVersion: 1,
			parameters: { presence: '={{ $json.presence }}' },
			inputItems: [{ json: { presence: 'available' } }, { json: { presence: 'away' } }],
			credentials,
		});

		expect(error).toBeUndefined();
		expect(output?.[0].map(({ json }) => json.typeVersion)).toEqual([1, 1]);
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
});
