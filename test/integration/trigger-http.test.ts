/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code runs in jest, never inside n8n */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';
import { request } from 'undici';

import { ContactCenterSigningSecretApi } from '../../credentials/ContactCenterSigningSecretApi.credentials';
import { ContactCenter } from '../../nodes/ContactCenter/ContactCenter.node';
import { ContactCenterTrigger } from '../../nodes/ContactCenterTrigger/ContactCenterTrigger.node';
import { createCredentialStore, runNode, runWebhook } from '../harness';
import { buildWorkflow } from '../harness/workflow-setup';
import { DEFAULT_SIGNING_SECRET, signBody } from '../simulator';

/**
 * A real HTTP server that hosts the trigger the way n8n 2.41 does (packages/cli/src/middlewares/
 * body-parser.ts and webhooks/webhook-helpers.ts): the body bytes are read raw and left unparsed
 * (the trigger sets `options.binaryData`), webhook() runs in n8n-core's WebhookContext, and then
 * the answer follows the webhook's evaluated responseMode / responseCode:
 * - the node wrote a response itself (401/400): that is the answer, nothing runs;
 * - no workflowData: `webhookResponse` with responseCode, nothing runs;
 * - onReceived: responseCode with no body (responseData "noData"), the run goes on;
 * - lastNode: after the run, responseCode, or 500 {"message":"Error in workflow"} when it failed;
 * - responseNode: the first response a node sent through sendResponse, else responseCode.
 */

type Downstream = (items: INodeExecutionData[]) => Promise<{ sent?: IDataObject }>;

interface Route {
	parameters: INodeParameters;
	staticData: IDataObject;
	workflowId: string;
	downstream: Downstream;
	runs: INodeExecutionData[][];
}

const credentials = createCredentialStore(
	{ contactCenterSigningSecretApi: { secret: DEFAULT_SIGNING_SECRET } },
	{ credentialTypes: [new ContactCenterSigningSecretApi()] },
);

function settingsOf(parameters: INodeParameters) {
	const nodeType = new ContactCenterTrigger();
	const { workflow, node } = buildWorkflow({ nodeType, parameters, typeVersion: 1 });
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
	const result = await runWebhook({
		nodeType: new ContactCenterTrigger(),
		typeVersion: 1,
		parameters: route.parameters,
		credentials,
		staticData: route.staticData,
		workflowId: route.workflowId,
		request: {
			method: 'POST',
			headers: req.headers as Record<string, string | string[]>,
			rawBody,
			body: {},
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
	});
	if (error) throw error;
	return { sent: sentResponses[0] as IDataObject };
};

let failNextWriteBack = false;
const recordingWorkflow: Downstream = async () => ({});
const crmWriteWorkflow: Downstream = async () => {
	if (failNextWriteBack) {
		failNextWriteBack = false;
		throw new Error('CRM unavailable');
	}
	return {};
};

const routes = new Map<string, Route>();
function addRoute(webhookId: string, parameters: INodeParameters, downstream: Downstream): string {
	const url = `/webhook/${webhookId}/${settingsOf(parameters).path}`;
	routes.set(url, { parameters, staticData: {}, workflowId: webhookId, downstream, runs: [] });
	return url;
}

const paths = {
	lookup: addRoute('lookup-id', { endpoint: 'lookup' }, lookupWorkflow),
	writeBack: addRoute(
		'wb-id',
		{ endpoint: 'writeBack', events: ['CONVERSATION_RESOLVED'] },
		recordingWorkflow,
	),
	writeBackFinish: addRoute(
		'wbf-id',
		{ endpoint: 'writeBack', responseTiming: 'whenFinished' },
		crmWriteWorkflow,
	),
	notification: addRoute('notify-id', { endpoint: 'notification' }, recordingWorkflow),
};
const runsOf = (path: string) => routes.get(path)?.runs ?? [];

let host: { server: Server; url: string };
beforeAll(async () => {
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
}

/** Posts like the service: the exact JSON bytes, signed over those bytes. */
async function deliver(
	path: string,
	{ body, signature, secret = DEFAULT_SIGNING_SECRET }: Delivery,
) {
	const raw = Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
	const headers: Record<string, string | string[]> = {
		'content-type': 'application/json',
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
			['unsigned non-JSON', { body: '{oops', signature: null }, 401, /missing/],
			['signed non-JSON', { body: '{oops' }, 400, /not valid JSON/],
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

	it('runs a write back once: the redelivery of its idempotency key is answered 200 and runs nothing', async () => {
		const event = { type: 'CONVERSATION_RESOLVED', version: 1, idempotencyKey: 'http-1', data: {} };
		const first = await deliver(paths.writeBack, { body: event });
		const again = await deliver(paths.writeBack, { body: event });
		expect([first.status, again.status]).toEqual([200, 200]);
		expect(again.json).toEqual({ received: true, duplicate: true, idempotencyKey: 'http-1' });
		expect(runsOf(paths.writeBack)).toEqual([[{ json: event }]]);
	});

	it('answers an unselected write back type 200 and runs nothing', async () => {
		const before = runsOf(paths.writeBack).length;
		const event = {
			type: 'CONVERSATION_SET_TO_PENDING',
			version: 1,
			idempotencyKey: 'http-2',
			data: {},
		};
		const response = await deliver(paths.writeBack, { body: event });
		expect(response.status).toBe(200);
		expect(runsOf(paths.writeBack)).toHaveLength(before);
	});

	it('"when the workflow finishes": a failed run answers 500, the retry runs again and answers 200', async () => {
		const event = { type: 'CONVERSATION_RESOLVED', version: 1, idempotencyKey: 'http-3', data: {} };
		failNextWriteBack = true;
		const failed = await deliver(paths.writeBackFinish, { body: event });
		expect(failed.status).toBe(500);
		const retried = await deliver(paths.writeBackFinish, { body: event });
		expect(retried.status).toBe(200);
		expect(runsOf(paths.writeBackFinish)).toHaveLength(2);
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
