/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code runs in jest, never inside n8n */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';
import { request } from 'undici';

import { ContactCenter } from '../../nodes/ContactCenter/ContactCenter.node';
import { ContactCenterTrigger } from '../../nodes/ContactCenterTrigger/ContactCenterTrigger.node';
import { runNode, runWebhook } from '../harness';
import { deliver as deliverThroughN8n, type FlowOptions } from '../harness/run-trigger-flow';
import { buildWorkflow } from '../harness/workflow-setup';
import { DEFAULT_SIGNING_SECRET, signBody } from '../simulator';
import { useRecordApi, writeBackFlow } from './recordFaults';

/**
 * A real HTTP server that hosts the trigger the way n8n 2.41 does (packages/cli/src/middlewares/
 * body-parser.ts and webhooks/webhook-helpers.ts): a JSON body is parsed and its exact bytes kept
 * on rawBody, webhook() runs in n8n-core's WebhookContext, and then the answer follows the
 * webhook's evaluated responseMode / responseCode:
 * - the node wrote a response itself (401/400): that is the answer, nothing runs;
 * - no workflowData: `webhookResponse` with responseCode, nothing runs;
 * - onReceived: responseCode with no body (responseData "noData"), the run goes on;
 * - responseNode: the first response a node sent through sendResponse, else responseCode, or 500
 *   {"message":"Error in workflow"} when the run failed.
 * Write backs, which the trigger answers from its own run, go through n8n-core's webhook call and
 * run (test/harness/run-trigger-flow.ts) instead.
 */

type Downstream = (items: INodeExecutionData[]) => Promise<{ sent?: IDataObject }>;

interface Route {
	parameters: INodeParameters;
	workflowId: string;
	downstream: Downstream;
	runs: INodeExecutionData[][];
	/**
	 * Write backs: the webhook call and then the trigger's own run through n8n-core (it answers
	 * from the run and keeps the record in the data table API stand-in).
	 */
	flow?: FlowOptions;
}

/** The signing secret, and the record of write backs in the data table API stand-in. */
const record = useRecordApi();

function settingsOf(parameters: INodeParameters) {
	const nodeType = new ContactCenterTrigger();
	const { workflow, node } = buildWorkflow({ nodeType, parameters });
	const [webhook] = nodeType.description.webhooks ?? [];
	const evaluate = (value: unknown) =>
		workflow.expression.getSimpleParameterValue(node, value as string, 'webhook', {});
	return {
		path: String(evaluate(webhook.path)),
		responseMode: String(evaluate(webhook.responseMode)),
		responseCode: Number(evaluate(webhook.responseCode)),
	};
}

function send(res: ServerResponse, status: number, body?: unknown) {
	if (body === undefined) {
		res.writeHead(status).end();
		return;
	}
	res
		.writeHead(status, { 'content-type': 'application/json; charset=utf-8' })
		.end(JSON.stringify(body));
}

async function readRaw(req: IncomingMessage): Promise<Buffer> {
	const chunks: Buffer[] = [];
	for await (const chunk of req) chunks.push(chunk as Buffer);
	return Buffer.concat(chunks);
}

async function serve(routes: Map<string, Route>, req: IncomingMessage, res: ServerResponse) {
	const route = routes.get(req.url ?? '');
	if (route === undefined || req.method !== 'POST')
		return send(res, 404, { message: 'unknown webhook' });
	const rawBody = await readRaw(req);
	if (route.flow !== undefined) {
		const answer = await deliverThroughN8n(route.flow, {
			rawBody,
			headers: req.headers as Record<string, string>,
		});
		res.writeHead(answer.status ?? 500, answer.headers as Record<string, string>);
		res.end(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body ?? ''));
		return;
	}
	const result = await runWebhook({
		nodeType: new ContactCenterTrigger(),
		parameters: route.parameters,
		credentials: record.credentials,
		workflowId: route.workflowId,
		request: {
			method: 'POST',
			headers: req.headers as Record<string, string | string[]>,
			rawBody,
		},
	});
	if (result.responseStatus !== undefined)
		return send(res, result.responseStatus, result.responseBody);
	const { responseMode, responseCode } = settingsOf(route.parameters);
	if (result.workflowData === undefined) return send(res, responseCode, result.webhookResponse);

	const items = result.workflowData[0];
	route.runs.push(items);
	if (responseMode === 'onReceived') {
		send(res, responseCode);
		await route.downstream(items);
		return;
	}
	let sent: IDataObject | undefined;
	try {
		sent = (await route.downstream(items)).sent;
	} catch {
		return send(res, 500, { message: 'Error in workflow' });
	}
	if (responseMode === 'responseNode' && sent !== undefined) {
		return send(res, sent.statusCode as number, sent.body);
	}
	return send(res, responseCode);
}

async function startHost(routes: Map<string, Route>): Promise<{ server: Server; url: string }> {
	const server = createServer((req, res) => {
		serve(routes, req, res).catch((error: Error) => send(res, 500, { message: error.message }));
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return { server, url: `http://127.0.0.1:${port}` };
}

/** A "CRM": the workflow behind the lookup finds customers by e-mail and answers through Respond to Lookup. */
const crm = [{ email: 'zoe@example.com', name: 'Zoë Ågren 🙂', phone: '', tier: 'gold' }];

const lookupWorkflow: Downstream = async (items) => {
	const email = items[0]?.json.email;
	// Like a search node: no match, no item, and the branch stops before Respond to Lookup.
	const matches = crm.filter((row) => row.email === email).map((json) => ({ json }));
	if (matches.length === 0) return {};
	const { sentResponses, error } = await runNode({
		nodeType: new ContactCenter(),
		parameters: {
			resource: 'crmLookup',
			operation: 'respond',
			respondWith: 'found',
			autoConfirm: true,
			attributes: {
				attribute: [
					{ alias: 'email', value: '={{ $json.email }}' },
					{ alias: 'name', value: '={{ $json.name }}' },
					{ alias: 'phone', value: '={{ $json.phone }}' },
					{ alias: 'tier', value: '={{ $json.tier }}' },
				],
			},
		},
		inputItems: matches,
		parents: [
			{ nodeType: new ContactCenterTrigger(), name: 'Lookup', parameters: { endpoint: 'lookup' } },
		],
	});
	if (error) throw error;
	return { sent: sentResponses[0] as IDataObject };
};

const recordingWorkflow: Downstream = async () => ({});

const routes = new Map<string, Route>();
function addRoute(webhookId: string, parameters: INodeParameters, downstream: Downstream): string {
	const url = `/webhook/${webhookId}/${settingsOf(parameters).path}`;
	routes.set(url, { parameters, workflowId: webhookId, downstream, runs: [] });
	return url;
}

const paths = {
	lookup: addRoute('lookup-id', { endpoint: 'lookup' }, lookupWorkflow),
	writeBack: addRoute('wb-id', { endpoint: 'writeBack' }, recordingWorkflow),
	notification: addRoute('notify-id', { endpoint: 'notification' }, recordingWorkflow),
};
const runsOf = (path: string) => routes.get(path)?.runs ?? [];

let writeBackFlowOfRoute: FlowOptions;

let host: { server: Server; url: string };
beforeAll(async () => {
	writeBackFlowOfRoute = {
		...writeBackFlow(record.credentials),
		parameters: { endpoint: 'writeBack', events: ['CONVERSATION_RESOLVED'] },
	};
	(routes.get(paths.writeBack) as Route).flow = writeBackFlowOfRoute;
	host = await startHost(routes);
});
afterAll(async () => {
	await new Promise((resolve) => host.server.close(resolve));
});

interface Delivery {
	body: IDataObject | string;
	/** Overrides the signature; null sends none; an array sends the header several times. */
	signature?: string | string[] | null;
	secret?: string;
	/**
	 * Default JSON. n8n 2.41 itself refuses a body sent as JSON that does not parse (422) before
	 * the trigger runs, so bodies that are not JSON are sent as text.
	 */
	contentType?: string;
}

/** Posts like the service: the exact JSON bytes, signed over those bytes. */
async function deliver(
	path: string,
	{ body, signature, secret = DEFAULT_SIGNING_SECRET, contentType = 'application/json' }: Delivery,
) {
	const raw = Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
	const headers: Record<string, string | string[]> = {
		'content-type': contentType,
		accept: 'application/json',
	};
	if (signature !== null) headers['x-service-signature'] = signature ?? signBody(secret, raw);
	const response = await request(`${host.url}${path}`, { method: 'POST', headers, body: raw });
	const text = await response.body.text();
	return {
		status: response.statusCode,
		contentType: response.headers['content-type'],
		text,
		json: text === '' ? undefined : (JSON.parse(text) as IDataObject),
	};
}

describe('Contact Center Trigger over HTTP (undici -> node:http -> webhook())', () => {
	it('answers a lookup of a known contact 200 with {autoConfirm, attributes}, unicode intact', async () => {
		const response = await deliver(paths.lookup, { body: { email: 'zoe@example.com' } });
		expect(response.status).toBe(200);
		expect(response.contentType).toMatch(/^application\/json/);
		expect(response.json).toEqual({
			autoConfirm: true,
			attributes: { email: 'zoe@example.com', name: 'Zoë Ågren 🙂', phone: null, tier: 'gold' },
		});
	});

	it('answers 404 when the search finds nobody and the run ends without a response', async () => {
		const response = await deliver(paths.lookup, { body: { email: 'nobody@example.com' } });
		expect(response.status).toBe(404);
		expect(response.text).toBe('');
	});

	it('accepts an uppercase signature over a body with multi-byte characters', async () => {
		const raw = Buffer.from(JSON.stringify({ email: 'zoe@example.com', note: 'Grüße 🙂' }));
		const signature = signBody(DEFAULT_SIGNING_SECRET, raw).toUpperCase();
		const response = await deliver(paths.lookup, { body: raw.toString('utf8'), signature });
		expect(response.status).toBe(200);
	});

	describe('refused calls start no run', () => {
		const cases: Array<[string, Delivery, number, RegExp]> = [
			['no signature', { body: { email: 'zoe@example.com' }, signature: null }, 401, /missing/],
			[
				'a wrong signature',
				{ body: { email: 'zoe@example.com' }, signature: 'f'.repeat(64) },
				401,
				/does not match/,
			],
			[
				'another secret',
				{ body: { email: 'zoe@example.com' }, secret: 'aa'.repeat(32) },
				401,
				/does not match/,
			],
			[
				'unsigned non-JSON',
				{ body: '{oops', signature: null, contentType: 'text/plain' },
				401,
				/missing/,
			],
			['signed non-JSON', { body: '{oops', contentType: 'text/plain' }, 400, /not valid JSON/],
		];

		it.each(cases)('%s', async (_label, delivery, status, message) => {
			const before = runsOf(paths.lookup).length;
			const response = await deliver(paths.lookup, delivery);
			expect(response.status).toBe(status);
			expect(response.json?.message).toMatch(message);
			expect(runsOf(paths.lookup)).toHaveLength(before);
		});

		it('a signature header sent twice (Node joins the two values)', async () => {
			const body = { email: 'zoe@example.com' };
			const good = signBody(DEFAULT_SIGNING_SECRET, Buffer.from(JSON.stringify(body)));
			const before = runsOf(paths.lookup).length;
			const response = await deliver(paths.lookup, { body, signature: [good, good] });
			expect(response.status).toBe(401);
			expect(response.json?.message).toMatch(/more than once/);
			expect(runsOf(paths.lookup)).toHaveLength(before);
		});
	});

	const processedWriteBacks = () => writeBackFlowOfRoute.database.sink.processed;

	it('runs a write back once: the redelivery of its idempotency key is answered 200 "duplicate" and runs nothing', async () => {
		const event = { type: 'CONVERSATION_RESOLVED', version: 1, idempotencyKey: 'http-1', data: {} };
		const first = await deliver(paths.writeBack, { body: event });
		const again = await deliver(paths.writeBack, { body: event });
		expect([first.status, again.status]).toEqual([200, 200]);
		expect(first.contentType).toBe('application/json; charset=utf-8');
		expect(first.json).toEqual({
			received: true,
			duplicate: false,
			idempotencyKey: 'http-1',
			status: 'processed',
		});
		expect(again.json).toEqual({
			received: true,
			duplicate: true,
			idempotencyKey: 'http-1',
			status: 'duplicate',
		});
		expect(processedWriteBacks()).toEqual([event]);
	});

	it('answers an unselected write back type 200 "ignored" and runs nothing', async () => {
		const before = processedWriteBacks().length;
		const event = {
			type: 'CONVERSATION_SET_TO_PENDING',
			version: 1,
			idempotencyKey: 'http-2',
			data: {},
		};
		const response = await deliver(paths.writeBack, { body: event });
		expect(response.status).toBe(200);
		expect(response.json).toMatchObject({ idempotencyKey: 'http-2', status: 'ignored' });
		expect(processedWriteBacks()).toHaveLength(before);
	});

	it('answers a failed write back run 500; the redelivery runs again and answers 200', async () => {
		const event = { type: 'CONVERSATION_RESOLVED', version: 1, idempotencyKey: 'http-3', data: {} };
		const before = processedWriteBacks().length;
		// The CRM the workflow writes to is down during the first delivery.
		const failed = await deliver(paths.writeBack, {
			body: { ...event, data: { failThisRun: true } },
		});
		expect(failed.status).toBe(500);
		expect(processedWriteBacks()).toHaveLength(before);
		const retried = await deliver(paths.writeBack, { body: event });
		expect(retried.status).toBe(200);
		expect(retried.json).toMatchObject({ status: 'processed' });
		expect(processedWriteBacks().slice(before)).toEqual([event]);
	});

	it('answers a notification 204 with an empty body and passes it on', async () => {
		const event = {
			timestamp: '2024-01-01T10:00:00.123Z',
			version: 1,
			eventType: 'DATA_IMPORT_ERROR',
			messages: ['x'],
		};
		const response = await deliver(paths.notification, { body: event });
		expect(response.status).toBe(204);
		expect(response.text).toBe('');
		expect(runsOf(paths.notification)).toEqual([[{ json: event }]]);
	});
});
