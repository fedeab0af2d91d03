import { ExecutionLifecycleHooks, WebhookContext, WorkflowExecute } from 'n8n-core';
import {
	createRunExecutionData,
	deepCopy,
	NodeConnectionTypes,
	NodeHelpers,
	UnexpectedError,
	Workflow,
} from 'n8n-workflow';
import type {
	IDataObject,
	IExecuteFunctions,
	IExecuteResponsePromiseData,
	INode,
	INodeExecutionData,
	INodeType,
	INodeTypes,
	IRunExecutionData,
	IVersionedNodeType,
	IWebhookData,
	IWorkflowBase,
} from 'n8n-workflow';

import type { CredentialStore } from './credential-store';
import { buildAdditionalData } from './workflow-setup';

/** What the downstream node of the test workflow saw, shared by every run of one database. */
export interface SinkLog {
	/** Items the sink processed in runs that went on past it. */
	processed: IDataObject[];
}

const SINK_TYPE = 'harness.sink';

/**
 * The node after the trigger: records its items (the workflow's effect), and fails the run when an
 * item says `failThisRun` (a CRM that is down).
 */
function sinkNodeType(log: SinkLog): INodeType {
	return {
		description: {
			displayName: 'Sink',
			name: 'sink',
			group: ['transform'],
			version: 1,
			description: 'Records the items it gets',
			defaults: { name: 'Sink' },
			inputs: [NodeConnectionTypes.Main],
			outputs: [NodeConnectionTypes.Main],
			properties: [],
		},
		async execute(this: IExecuteFunctions) {
			const items = this.getInputData();
			for (const item of items) {
				const data = item.json.data as IDataObject | undefined;
				if (item.json.failThisRun === true || data?.failThisRun === true) {
					throw new UnexpectedError('The CRM is down');
				}
			}
			log.processed.push(...items.map((item) => deepCopy(item.json)));
			return [items];
		},
	};
}

/** The state n8n keeps in its database: shared by every process, kept across restarts. */
export interface FlowDatabase {
	/** Saved executions by id; a crashed one keeps the data it was created with. */
	executions: Map<string, IRunExecutionData>;
	nextExecutionId: number;
	sink: SinkLog;
}

export function createFlowDatabase(): FlowDatabase {
	return { executions: new Map(), nextExecutionId: 1, sink: { processed: [] } };
}

export interface FlowOptions {
	database: FlowDatabase;
	triggerType: INodeType | IVersionedNodeType;
	typeVersion: number;
	parameters: IDataObject;
	credentials: CredentialStore;
	workflowId: string;
	/** The trigger node's webhook id (the path of its production URL); 'flow-webhook-id' unless told. */
	webhookId?: string;
	/** n8n in queue mode: the run happens on a worker, in a workflow of its own. */
	queueMode?: boolean;
	/** Where n8n serves production webhooks (its WEBHOOK_URL + /webhook): what the trigger's own calls reach. */
	webhookBaseUrl?: string;
	/**
	 * False: n8n deletes a successful execution when it ends (EXECUTIONS_DATA_SAVE_ON_SUCCESS=none,
	 * or the workflow's "Save successful production executions: Do not save").
	 */
	saveSuccessfulExecutions?: boolean;
	/** Nodes after the sink, each connected to the next, with their node types. */
	after?: Array<{ node: INode; nodeType: INodeType }>;
}

export interface Delivery {
	rawBody: Buffer;
	headers: Record<string, string>;
	/** 'webhook' for the production URL, 'manual' for the editor's test URL. */
	mode?: 'webhook' | 'manual';
	/** The n8n process dies while the run is in the sink: no hook runs, nothing answers. */
	crash?: boolean;
}

export interface DeliveryResult {
	/** Undefined when nothing answered (the process died). */
	status?: number;
	headers: Record<string, unknown>;
	body?: unknown;
	executionId?: string;
}

const TRIGGER_NAME = 'Contact Center Trigger';

/**
 * One production webhook call the way n8n serves it (packages/cli/src/webhooks/webhook-helpers.ts):
 * the trigger's webhook() in n8n-core's WebhookContext, then, when it returns workflow data, a run
 * in n8n-core's WorkflowExecute with the trigger first on the execution stack, the execution saved
 * before later finish handlers
 * (n8n registers its save hook first), and the answer from `sendResponse`, else n8n's own: 500
 * after a failed run, the response code after a successful one.
 */
export async function deliver(options: FlowOptions, delivery: Delivery): Promise<DeliveryResult> {
	const { database } = options;
	const triggerNodeType = NodeHelpers.getVersionedNodeType(
		options.triggerType,
		options.typeVersion,
	);
	const typeName = `n8n-nodes-contact-center.${triggerNodeType.description.name}`;
	const sinkType = sinkNodeType(database.sink);
	const after = options.after ?? [];
	const afterTypes = new Map(after.map(({ node, nodeType }) => [node.type, nodeType]));
	const nodeTypes: INodeTypes = {
		getByName: (name) =>
			name === typeName ? options.triggerType : (afterTypes.get(name) ?? sinkType),
		getByNameAndVersion: (name) =>
			name === typeName ? triggerNodeType : (afterTypes.get(name) ?? sinkType),
		getKnownTypes: () => ({}),
	};
	const trigger: INode = {
		id: 'trigger-node-id',
		name: TRIGGER_NAME,
		type: typeName,
		typeVersion: options.typeVersion,
		position: [0, 0],
		webhookId: options.webhookId ?? 'flow-webhook-id',
		parameters: options.parameters as INode['parameters'],
		credentials: options.credentials.nodeCredentials(),
	};
	const sink: INode = {
		id: 'sink-node-id',
		name: 'Sink',
		type: SINK_TYPE,
		typeVersion: 1,
		position: [200, 0],
		parameters: {},
	};
	const mode = delivery.mode ?? 'webhook';
	const chain = [TRIGGER_NAME, 'Sink', ...after.map(({ node: afterNode }) => afterNode.name)];
	const connections = Object.fromEntries(
		chain
			.slice(0, -1)
			.map((from, index) => [
				from,
				{ main: [[{ node: chain[index + 1], type: NodeConnectionTypes.Main, index: 0 }]] },
			]),
	);
	const buildFlowWorkflow = () =>
		new Workflow({
			id: options.workflowId,
			name: 'Flow',
			nodes: [trigger, sink, ...after.map(({ node: afterNode }) => deepCopy(afterNode))],
			connections,
			active: true,
			nodeTypes,
			settings: { executionOrder: 'v1' },
		});
	const workflow = buildFlowWorkflow();
	const node = workflow.getNode(TRIGGER_NAME) as INode;
	for (const parameterNode of workflow.nodes ? Object.values(workflow.nodes) : []) {
		const nodeType = nodeTypes.getByNameAndVersion(parameterNode.type, parameterNode.typeVersion);
		parameterNode.parameters =
			NodeHelpers.getNodeParameters(
				nodeType.description.properties,
				parameterNode.parameters,
				true,
				false,
				parameterNode,
				nodeType.description,
			) ?? {};
	}

	const executionId = String(database.nextExecutionId++);
	const workflowData: IWorkflowBase = {
		id: options.workflowId,
		name: 'Flow',
		active: true,
		isArchived: false,
		activeVersionId: null,
		createdAt: new Date(),
		updatedAt: new Date(),
		nodes: [trigger, sink],
		connections: {},
	};
	const hooks = new ExecutionLifecycleHooks(mode, executionId, workflowData);
	let crashed = false;
	const answer: DeliveryResult = { headers: {} };
	let answered = false;
	/** n8n answering from the run (setupResponseNodePromise), then its response callback. */
	const respond = (status: number, headers: Record<string, unknown>, body: unknown) => {
		if (answered || crashed) return;
		answered = true;
		response.status(status);
		for (const [name, value] of Object.entries(headers)) response.setHeader(name, value);
		response.end();
		Object.assign(answer, { status, headers, body });
	};
	hooks.addHandler('workflowExecuteAfter', async (fullRunData) => {
		if (fullRunData.status === 'success' && options.saveSuccessfulExecutions === false)
			database.executions.delete(executionId);
		else database.executions.set(executionId, deepCopy(fullRunData.data));
	});
	hooks.addHandler('sendResponse', async (response: IExecuteResponsePromiseData) => {
		const body = Buffer.isBuffer(response.body) ? response.body.toString('utf8') : response.body;
		respond(Number(response.statusCode ?? 200), (response.headers ?? {}) as IDataObject, body);
	});
	const realRunHook = hooks.runHook.bind(hooks);
	hooks.runHook = (async (name: string, parameters: unknown[]) => {
		if (crashed) return;
		await (realRunHook as (n: string, p: unknown[]) => Promise<void>)(name, parameters);
	}) as typeof hooks.runHook;

	const additionalData = buildAdditionalData(
		{ workflow, node, nodeType: triggerNodeType, staticData: workflow.staticData },
		options.credentials,
		hooks,
	);
	additionalData.executionId = executionId;
	if (options.webhookBaseUrl !== undefined) additionalData.webhookBaseUrl = options.webhookBaseUrl;
	additionalData.getRunExecutionData = async (id: string) => database.executions.get(id);

	// The webhook call.
	const captured: { status?: number; body?: unknown; headers: Record<string, unknown> } = {
		headers: {},
	};
	const response = {
		headersSent: false,
		statusCode: 200,
		status(code: number) {
			captured.status = code;
			response.statusCode = code;
			return response;
		},
		setHeader(name: string, value: unknown) {
			captured.headers[name.toLowerCase()] = value;
			return response;
		},
		json(body: unknown) {
			captured.headers['content-type'] ??= 'application/json; charset=utf-8';
			captured.body = body;
			return response.end();
		},
		end() {
			response.headersSent = true;
			return response;
		},
	};
	additionalData.httpRequest = {
		method: 'POST',
		headers: delivery.headers,
		body: {},
		rawBody: delivery.rawBody,
		readRawBody: async () => {},
		query: {},
		params: {},
	} as never;
	additionalData.httpResponse = response as never;
	const webhookDescription = triggerNodeType.description.webhooks?.[0];
	if (webhookDescription === undefined || triggerNodeType.webhook === undefined) {
		throw new UnexpectedError('The trigger has no webhook');
	}
	const webhookData: IWebhookData = {
		httpMethod: 'POST',
		node: TRIGGER_NAME,
		path: 'flow',
		webhookDescription,
		workflowId: options.workflowId,
		workflowExecuteAdditionalData: additionalData,
		webhookId: trigger.webhookId,
		isTest: mode === 'manual',
	};
	const webhookContext = new WebhookContext(
		workflow,
		node,
		additionalData,
		mode,
		webhookData,
		[],
		null,
	);
	const webhookResult = await triggerNodeType.webhook.call(webhookContext);
	// Answered by the webhook call itself; n8n still runs the workflow data it returned, if any.
	if (webhookResult.noWebhookResponse) {
		answered = true;
		Object.assign(answer, {
			status: captured.status,
			headers: captured.headers,
			body: captured.body,
		});
	}
	if (webhookResult.workflowData === undefined) {
		return webhookResult.noWebhookResponse
			? { ...answer }
			: { status: 200, headers: {}, body: webhookResult.webhookResponse };
	}

	const runWorkflow = options.queueMode ? buildFlowWorkflow() : workflow;

	// The run: created with the trigger's output on the stack, as n8n saves it before running.
	const runExecutionData = createRunExecutionData({
		executionData: {
			nodeExecutionStack: [
				{
					node,
					// A queue-mode worker reads the run's input from the database: a copy.
					data: {
						main: (options.queueMode
							? deepCopy(webhookResult.workflowData)
							: webhookResult.workflowData) as INodeExecutionData[][],
					},
					source: null,
				},
			],
		},
	});
	database.executions.set(executionId, deepCopy(runExecutionData));
	if (delivery.crash) {
		const sinkExecute = sinkType.execute!;
		sinkType.execute = async function (this: IExecuteFunctions) {
			const result = await sinkExecute.call(this);
			crashed = true;
			return result;
		};
	}
	const run = await new WorkflowExecute(
		additionalData,
		mode,
		runExecutionData,
	).processRunExecutionData(runWorkflow);
	if (crashed) return { headers: {}, executionId };
	// n8n's own answer when no node answered ("responseNode" mode).
	if (run.data.resultData.error) respond(500, {}, { message: 'Error in workflow' });
	else respond(200, {}, undefined);
	return { ...answer, executionId };
}

export function parseAnswer(result: DeliveryResult): IDataObject | undefined {
	return typeof result.body === 'string' && result.body !== ''
		? (JSON.parse(result.body) as IDataObject)
		: (result.body as IDataObject | undefined);
}
