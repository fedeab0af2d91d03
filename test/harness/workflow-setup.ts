import { ExecutionLifecycleHooks, ExternalSecretsProxy } from 'n8n-core';
import { NodeConnectionTypes, NodeHelpers, UnexpectedError, Workflow } from 'n8n-workflow';
import type {
	IConnections,
	IDataObject,
	INode,
	INodeCredentials,
	INodeParameters,
	INodeType,
	INodeTypes,
	IVersionedNodeType,
	IWorkflowBase,
	IWorkflowExecuteAdditionalData,
	IWorkflowSettings,
	WorkflowExecuteMode,
} from 'n8n-workflow';

import type { CredentialStore } from './credential-store';
import { registerN8nServices } from './n8n-services';

registerN8nServices();

const PACKAGE_NAME = 'n8n-nodes-contact-center';

const INSTANCE_BASE_URL = 'http://localhost:5678';

const EXECUTION_ID = 'harness-execution-id';

type AnyNodeType = INodeType | IVersionedNodeType;

export interface WorkflowSetupOptions {
	nodeType: AnyNodeType;
	parameters: INodeParameters;
	credentials?: CredentialStore;
	typeVersion?: number;
	continueOnFail?: boolean;
	/** Workflow static data; pass the same object to several runs to persist it between them. */
	staticData?: IDataObject;
	/** Workflow id; a trigger keeps per-workflow state in the n8n process, so tests vary it. */
	workflowId?: string;
	/**
	 * Nodes before the node, each connected to the next and the last to the node (main
	 * connections), e.g. the trigger that starts the workflow. Their parameters are completed with
	 * their node type's defaults, as n8n does.
	 */
	parents?: ParentNode[];
	/** The workflow's settings (e.g. its Timezone), as saved with the workflow. */
	workflowSettings?: IWorkflowSettings;
}

export interface ParentNode {
	nodeType: AnyNodeType;
	name: string;
	parameters: INodeParameters;
	disabled?: boolean;
}

export interface WorkflowSetup {
	workflow: Workflow;
	/** The node as the workflow holds it, parameters completed with the description's defaults. */
	node: INode;
	nodeType: INodeType;
	staticData: IDataObject;
}

function latestVersion(nodeType: AnyNodeType): number {
	if ('nodeVersions' in nodeType) return nodeType.currentVersion;
	const { version } = nodeType.description;
	return Array.isArray(version) ? Math.max(...version) : version;
}

/** The node's credential entries: every stored credential whose type the node declares. */
function declaredCredentials(
	nodeType: INodeType,
	store?: CredentialStore,
): INodeCredentials | undefined {
	if (store === undefined) return undefined;
	const declaredTypes = new Set((nodeType.description.credentials ?? []).map(({ name }) => name));
	const entries = Object.entries(store.nodeCredentials()).filter(([type]) =>
		declaredTypes.has(type),
	);
	return entries.length > 0 ? Object.fromEntries(entries) : undefined;
}

/** A one-node workflow around the node type, built as n8n builds it from a saved workflow. */
export function buildWorkflow(options: WorkflowSetupOptions): WorkflowSetup {
	const typeVersion = options.typeVersion ?? latestVersion(options.nodeType);
	const nodeType = NodeHelpers.getVersionedNodeType(options.nodeType, typeVersion);
	const typeName = `${PACKAGE_NAME}.${nodeType.description.name}`;
	const known = new Map<string, { type: AnyNodeType; version: number }>([
		[typeName, { type: options.nodeType, version: typeVersion }],
	]);
	const parents = (options.parents ?? []).map((parent) => {
		const version = latestVersion(parent.nodeType);
		const description = NodeHelpers.getVersionedNodeType(parent.nodeType, version).description;
		const type = `${PACKAGE_NAME}.${description.name}`;
		known.set(type, { type: parent.nodeType, version });
		return { parent, type, version };
	});
	const lookUp = (name: string) => {
		const entry = known.get(name);
		if (entry === undefined) throw new UnexpectedError(`Unknown node type "${name}"`);
		return entry;
	};
	const nodeTypes: INodeTypes = {
		getByName: (name) => lookUp(name).type,
		getByNameAndVersion: (name) => {
			const entry = lookUp(name);
			return NodeHelpers.getVersionedNodeType(entry.type, entry.version);
		},
		getKnownTypes: () => ({}),
	};

	const nodeDefinition: INode = {
		id: 'harness-node-id',
		name: nodeType.description.defaults.name ?? nodeType.description.displayName,
		type: typeName,
		typeVersion,
		position: [0, 0],
		webhookId: 'harness-webhook-id',
		parameters: options.parameters,
		credentials: declaredCredentials(nodeType, options.credentials),
		...(options.continueOnFail ? { onError: 'continueRegularOutput' as const } : {}),
	};
	const parentNodes: INode[] = parents.map(({ parent, type, version }, index) => ({
		id: `harness-parent-${index}`,
		name: parent.name,
		type,
		typeVersion: version,
		position: [-200 * (parents.length - index), 0],
		parameters: parent.parameters,
		...(parent.disabled ? { disabled: true } : {}),
	}));
	const chain = [...parentNodes.map((parent) => parent.name), nodeDefinition.name];
	const connections: IConnections = Object.fromEntries(
		chain
			.slice(0, -1)
			.map((from, index) => [
				from,
				{ main: [[{ node: chain[index + 1], type: NodeConnectionTypes.Main, index: 0 }]] },
			]),
	);
	const staticData = options.staticData ?? {};
	const workflow = new Workflow({
		id: options.workflowId ?? 'harness-workflow-id',
		name: 'Harness workflow',
		nodes: [...parentNodes, nodeDefinition],
		connections,
		active: false,
		nodeTypes,
		staticData,
		settings: { executionOrder: 'v1', ...options.workflowSettings },
	});
	const node = workflow.getNode(nodeDefinition.name);
	if (node === null) throw new UnexpectedError('The workflow lost its node');
	return { workflow, node, nodeType, staticData };
}

function notAvailable(feature: string): () => never {
	return () => {
		throw new UnexpectedError(`${feature} is not available in the test harness`);
	};
}

/** The execution's additional data, as n8n's WorkflowExecuteAdditionalData builds it, minus the server. */
export function buildAdditionalData(
	setup: WorkflowSetup,
	credentialsHelper: CredentialStore,
	hooks: ExecutionLifecycleHooks,
): IWorkflowExecuteAdditionalData {
	return {
		credentialsHelper,
		hooks,
		executionId: EXECUTION_ID,
		workflowId: setup.workflow.id,
		currentNodeExecutionIndex: 0,
		restApiUrl: `${INSTANCE_BASE_URL}/rest`,
		instanceBaseUrl: `${INSTANCE_BASE_URL}/`,
		formBaseUrl: `${INSTANCE_BASE_URL}/form`,
		formWaitingBaseUrl: `${INSTANCE_BASE_URL}/form-waiting`,
		formTestBaseUrl: `${INSTANCE_BASE_URL}/form-test`,
		webhookBaseUrl: `${INSTANCE_BASE_URL}/webhook`,
		webhookWaitingBaseUrl: `${INSTANCE_BASE_URL}/webhook-waiting`,
		webhookTestBaseUrl: `${INSTANCE_BASE_URL}/webhook-test`,
		mcpBaseUrl: `${INSTANCE_BASE_URL}/mcp`,
		mcpTestBaseUrl: `${INSTANCE_BASE_URL}/mcp-test`,
		variables: {},
		externalSecretsProxy: new ExternalSecretsProxy(),
		executeWorkflow: notAvailable('executeWorkflow'),
		getRunExecutionData: notAvailable('getRunExecutionData'),
		getRuntimeCredential: notAvailable('getRuntimeCredential'),
		logAiEvent: () => {},
		startRunnerTask: notAvailable('startRunnerTask'),
	};
}

export function buildHooks(
	setup: WorkflowSetup,
	mode: WorkflowExecuteMode,
): ExecutionLifecycleHooks {
	const now = new Date();
	const workflowData: IWorkflowBase = {
		id: setup.workflow.id,
		name: setup.workflow.name ?? '',
		active: false,
		isArchived: false,
		activeVersionId: null,
		createdAt: now,
		updatedAt: now,
		nodes: [setup.node],
		connections: {},
	};
	return new ExecutionLifecycleHooks(mode, EXECUTION_ID, workflowData);
}
