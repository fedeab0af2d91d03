import { WebhookContext } from 'n8n-core';
import { jsonParse, UnexpectedError } from 'n8n-workflow';
import type {
	CloseFunction,
	IDataObject,
	IHttpRequestMethods,
	INodeExecutionData,
	IWebhookData,
	IWebhookFunctions,
	IWebhookResponseData,
	WebhookType,
} from 'n8n-workflow';

import { createCredentialStore } from './credential-store';
import { buildAdditionalData, buildHooks, buildWorkflow } from './workflow-setup';
import type { WorkflowSetupOptions } from './workflow-setup';

export interface WebhookRequest {
	method: IHttpRequestMethods;
	/** Header names are lower-cased, as Node's http parser does. */
	headers?: Record<string, string | string[]>;
	/**
	 * The body as n8n's body parser leaves it; defaults to `rawBody` parsed when the content type
	 * is JSON, else `{}`.
	 */
	body?: unknown;
	/**
	 * The exact bytes received, which n8n keeps on `req.rawBody` for signature checks; defaults to
	 * `body` serialized (a string or Buffer as is, anything else as JSON).
	 */
	rawBody?: Buffer;
	query?: Record<string, string | string[]>;
	params?: Record<string, string>;
	path?: string;
}

export interface RunWebhookOptions extends WorkflowSetupOptions {
	request: WebhookRequest;
	webhookName?: WebhookType;
	/** 'webhook' for a production URL (the default), 'manual' for the editor's test URL. */
	mode?: 'webhook' | 'manual';
}

export interface RunWebhookResult {
	webhookResponse?: unknown;
	workflowData?: INodeExecutionData[][];
	noWebhookResponse?: boolean;
	/**
	 * What the node wrote on the express response itself (undefined when it did not); n8n's own
	 * reply built from `webhookResponse` or the workflow's response mode is not emulated.
	 */
	responseStatus?: number;
	responseBody?: unknown;
	responseHeaders: Record<string, string | number | readonly string[]>;
	/** The workflow static data after the call (the `staticData` option when given). */
	staticData: IDataObject;
}

type Request = ReturnType<IWebhookFunctions['getRequestObject']>;
type Response = ReturnType<IWebhookFunctions['getResponseObject']>;

interface CapturedResponse {
	sent: boolean;
	status?: number;
	body?: unknown;
	headers: Record<string, string | number | readonly string[]>;
}

/** The bytes n8n would have received for a request given only its parsed body. */
function serializeBody(body: unknown): Buffer {
	if (body === undefined) return Buffer.alloc(0);
	if (Buffer.isBuffer(body)) return body;
	return Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
}

function createRequest(request: WebhookRequest): Request {
	const headers = Object.fromEntries(
		Object.entries(request.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]),
	);
	const contentType = String(headers['content-type'] ?? '')
		.split(';')[0]
		.trim();
	const rawBody = request.rawBody ?? serializeBody(request.body);
	// n8n's body parser (packages/cli/src/middlewares/body-parser.ts) parses JSON bodies and
	// leaves `{}` for content types it does not handle.
	const body =
		request.body ??
		(contentType === 'application/json' && rawBody.length > 0
			? jsonParse(rawBody.toString('utf8'))
			: {});
	const query = request.query ?? {};
	const path = request.path ?? '/webhook/harness-webhook-id';
	const search = new URLSearchParams(
		Object.entries(query).flatMap(([key, value]) =>
			(Array.isArray(value) ? value : [value]).map((entry) => [key, entry]),
		),
	).toString();
	const readHeader = (name: string) => headers[name.toLowerCase()];
	const fakeRequest = {
		method: request.method,
		headers,
		contentType,
		body,
		rawBody,
		// n8n's body parser has read the body before the webhook runs, so this has nothing left to do.
		readRawBody: async () => {},
		query,
		params: request.params ?? {},
		path,
		url: search ? `${path}?${search}` : path,
		get: readHeader,
		header: readHeader,
	};
	return fakeRequest as unknown as Request;
}

function createResponse(captured: CapturedResponse): Response {
	const fakeResponse = {
		get headersSent() {
			return captured.sent;
		},
		status(code: number) {
			captured.status = code;
			return fakeResponse;
		},
		setHeader(name: string, value: string | number | readonly string[]) {
			captured.headers[name.toLowerCase()] = value;
			return fakeResponse;
		},
		set(name: string, value: string) {
			return fakeResponse.setHeader(name, value);
		},
		header(name: string, value: string) {
			return fakeResponse.setHeader(name, value);
		},
		getHeader(name: string) {
			return captured.headers[name.toLowerCase()];
		},
		json(body: unknown) {
			captured.headers['content-type'] ??= 'application/json; charset=utf-8';
			return fakeResponse.send(body);
		},
		send(body?: unknown) {
			captured.sent = true;
			captured.status ??= 200;
			captured.body = body;
			return fakeResponse;
		},
		end(body?: unknown) {
			return fakeResponse.send(body);
		},
	};
	return fakeResponse as unknown as Response;
}

/**
 * Runs a trigger's `webhook()` inside n8n-core's real WebhookContext, set up the way n8n's
 * WebhookService.runWebhook does for a received request: `this.getRequestObject()`,
 * `getBodyData()`, `getHeaderData()`, `getQueryData()`, `getResponseObject()` and
 * `getWorkflowStaticData()` are n8n's own, backed by the given request and a capturing response.
 */
export async function runWebhook(options: RunWebhookOptions): Promise<RunWebhookResult> {
	const setup = buildWorkflow(options);
	const { workflow, node, nodeType, staticData } = setup;
	if (nodeType.webhook === undefined) {
		throw new UnexpectedError(`Node type "${node.type}" has no webhook() method`);
	}
	const webhookName = options.webhookName ?? 'default';
	const webhookDescription = nodeType.description.webhooks?.find(
		({ name }) => name === webhookName,
	);
	if (webhookDescription === undefined) {
		throw new UnexpectedError(`Node type "${node.type}" declares no "${webhookName}" webhook`);
	}

	const mode = options.mode ?? 'webhook';
	const captured: CapturedResponse = { sent: false, headers: {} };
	const credentials = options.credentials ?? createCredentialStore({});
	const additionalData = buildAdditionalData(setup, credentials, buildHooks(setup, mode));
	additionalData.httpRequest = createRequest(options.request);
	additionalData.httpResponse = createResponse(captured);

	const webhookData: IWebhookData = {
		httpMethod: options.request.method,
		node: node.name,
		path: String(webhookDescription.path),
		webhookDescription,
		workflowId: workflow.id,
		workflowExecuteAdditionalData: additionalData,
		webhookId: node.webhookId,
		isTest: mode === 'manual',
	};
	const closeFunctions: CloseFunction[] = [];
	const context = new WebhookContext(
		workflow,
		node,
		additionalData,
		mode,
		webhookData,
		closeFunctions,
		null,
	);

	const response: IWebhookResponseData = await nodeType.webhook.call(context);
	return {
		webhookResponse: response.webhookResponse,
		workflowData: response.workflowData,
		noWebhookResponse: response.noWebhookResponse,
		responseStatus: captured.status,
		responseBody: captured.body,
		responseHeaders: captured.headers,
		staticData,
	};
}
