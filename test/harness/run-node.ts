import { ExecuteContext } from 'n8n-core';
import { createRunExecutionData, UnexpectedError } from 'n8n-workflow';
import type {
	CloseFunction,
	IDataObject,
	IExecuteData,
	IExecuteResponsePromiseData,
	INodeExecutionData,
	ITaskDataConnections,
	NodeExecutionHint,
} from 'n8n-workflow';

import { createCredentialStore } from './credential-store';
import { buildAdditionalData, buildHooks, buildWorkflow } from './workflow-setup';
import type { WorkflowSetupOptions } from './workflow-setup';

export interface RunNodeOptions extends WorkflowSetupOptions {
	/** Items on the node's main input; defaults to one empty item, as after a manual trigger. */
	inputItems?: INodeExecutionData[];
}

export interface RunNodeResult {
	/** What `execute()` returned; null when it threw. */
	output: INodeExecutionData[][] | null;
	/** What `execute()` threw, if anything. */
	error?: Error;
	/** Everything the node passed to `this.sendResponse()`, in order. */
	sentResponses: IExecuteResponsePromiseData[];
	/** The workflow static data after the run (the `staticData` option when given). */
	staticData: IDataObject;
	/** The execution hints the node added (shown under its output). */
	hints: NodeExecutionHint[];
}

/**
 * Runs a node type's `execute()` inside n8n-core's real ExecuteContext, in manual mode, so its
 * helpers (`httpRequest`, `httpRequestWithAuthentication` with the OAuth2 flow, `getNodeParameter`
 * with defaults and expressions, `continueOnFail`, ...) are n8n's own code.
 */
export async function runNode(options: RunNodeOptions): Promise<RunNodeResult> {
	const setup = buildWorkflow(options);
	const { workflow, node, nodeType, staticData } = setup;
	if (nodeType.execute === undefined) {
		throw new UnexpectedError(`Node type "${node.type}" has no execute() method`);
	}

	const mode = 'manual';
	const hooks = buildHooks(setup, mode);
	const sentResponses: IExecuteResponsePromiseData[] = [];
	hooks.addHandler('sendResponse', (response) => {
		sentResponses.push(response);
	});
	const credentials = options.credentials ?? createCredentialStore({});
	const additionalData = buildAdditionalData(setup, credentials, hooks);

	const inputData: ITaskDataConnections = { main: [options.inputItems ?? [{ json: {} }]] };
	const executeData: IExecuteData = { node, data: inputData, source: { main: [null] } };
	const runExecutionData = createRunExecutionData({
		executionData: { nodeExecutionStack: [executeData] },
	});
	const closeFunctions: CloseFunction[] = [];
	const context = new ExecuteContext(
		workflow,
		node,
		additionalData,
		mode,
		runExecutionData,
		0,
		inputData.main[0] ?? [],
		inputData,
		executeData,
		closeFunctions,
	);

	try {
		const output = (await nodeType.execute.call(context)) as INodeExecutionData[][] | null;
		return { output, sentResponses, staticData, hints: context.hints };
	} catch (error) {
		return { output: null, error: error as Error, sentResponses, staticData, hints: context.hints };
	} finally {
		await Promise.all(closeFunctions.map(async (close) => await close()));
	}
}
