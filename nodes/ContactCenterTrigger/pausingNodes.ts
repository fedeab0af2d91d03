import {
	type FunctionsBase,
	type INode,
	type NodeConnectionType,
	type NodeTypeAndVersion,
} from 'n8n-workflow';

import { operationError } from '../shared/operationError';

/**
 * Nodes after the trigger that can pause its run. n8n puts a run that pauses aside as `waiting`,
 * runs no execution-finish hook for it (n8n-core's `onExecutionFinish` skips that status), and
 * resumes it later without the trigger, which therefore cannot answer a write back after such a
 * run succeeded. What pauses was read in n8n 2.41.1's own nodes (n8n-nodes-base and
 * @n8n/n8n-nodes-langchain): every node that calls `putExecutionToWait` outside a chat or form
 * workflow, and every node that starts a sub-workflow and waits for it.
 */

export interface PausingNode {
	name: string;
	/** Why it can pause the run, in the user's words. */
	why: string;
}

/** A Wait shorter than this keeps the run in memory; a longer one puts it to wait (n8n's Wait node). */
const IN_MEMORY_WAIT_MS = 65_000;

const WAIT_NODE_TYPE = 'n8n-nodes-base.wait';
const FORM_NODE_TYPE = 'n8n-nodes-base.form';
const EXECUTE_WORKFLOW_NODE_TYPE = 'n8n-nodes-base.executeWorkflow';
const WORKFLOW_TOOL_NODE_TYPE = '@n8n/n8n-nodes-langchain.toolWorkflow';

const UNIT_MS: Record<string, number> = {
	seconds: 1_000,
	minutes: 60_000,
	hours: 3_600_000,
	days: 86_400_000,
};

/**
 * The Wait node's defaults per version, for a parameter its saved workflow leaves out (n8n fills
 * them in only where it knows the node type). Another version's defaults are unknown.
 */
const WAIT_DEFAULTS: Record<string, { resume: string; amount: number; unit: string }> = {
	'1': { resume: 'timeInterval', amount: 1, unit: 'hours' },
	'1.1': { resume: 'timeInterval', amount: 5, unit: 'seconds' },
};

const isExpression = (value: unknown) => typeof value === 'string' && value.startsWith('=');

function describeSeconds(ms: number): string {
	const seconds = ms / 1000;
	return `${seconds} second${seconds === 1 ? '' : 's'}`;
}

/** Why a Wait node can pause the run, or undefined for a literal interval n8n keeps in memory. */
function whyWaitPauses(node: NodeTypeAndVersion): string | undefined {
	const parameters = node.parameters ?? {};
	const defaults = WAIT_DEFAULTS[String(node.typeVersion)];
	const resume = parameters.resume ?? defaults?.resume;
	if (resume === 'specificTime') return 'a Wait until a date and time';
	if (resume === 'webhook') return 'a Wait for a webhook call';
	if (resume === 'form') return 'a Wait for a form submission';
	if (resume !== 'timeInterval') return 'a Wait whose kind of wait is not known here';
	const amount = parameters.amount ?? defaults?.amount;
	const unit = parameters.unit ?? defaults?.unit;
	if (isExpression(amount) || isExpression(unit)) {
		return 'a Wait whose length is an expression, known only when it runs';
	}
	const unitMs = typeof unit === 'string' ? UNIT_MS[unit] : undefined;
	if (typeof amount !== 'number' || !Number.isFinite(amount) || unitMs === undefined) {
		return 'a Wait whose length is not known here';
	}
	const ms = amount * unitMs;
	return ms < IN_MEMORY_WAIT_MS ? undefined : `a Wait of ${describeSeconds(ms)}`;
}

/** Why a node can pause the run it is in, or undefined when it cannot. */
export function whyNodePauses(node: NodeTypeAndVersion): string | undefined {
	const parameters = node.parameters ?? {};
	if (node.type === WAIT_NODE_TYPE) return whyWaitPauses(node);
	if (node.type === FORM_NODE_TYPE) return 'a form page, which waits for its submission';
	// n8n's human review tools: a send-and-wait node made a tool (`…HitlTool`), whose operation
	// is a hidden parameter a saved workflow may leave out.
	if (node.type.endsWith('HitlTool')) return 'a human review, which waits for the answer';
	const operation = parameters.operation;
	if (operation === 'sendAndWait') return 'sends a message and waits for the answer';
	// GitHub's "Dispatch a Workflow Event and Wait for Completion" (dispatchAndWait), and the same
	// naming in other nodes.
	if (typeof operation === 'string' && /AndWait$/.test(operation)) {
		return `its operation "${operation}" waits`;
	}
	if (node.type === EXECUTE_WORKFLOW_NODE_TYPE) {
		const options = parameters.options;
		const waits =
			options === null || typeof options !== 'object' || Array.isArray(options)
				? undefined
				: (options as Record<string, unknown>).waitForSubWorkflow;
		return waits === false
			? undefined
			: 'waits for its sub-workflow, and a sub-workflow that pauses pauses this run too';
	}
	if (node.type === WORKFLOW_TOOL_NODE_TYPE) {
		return 'a workflow tool, which waits for its sub-workflow: one that pauses pauses this run too';
	}
	return undefined;
}

export type NodeGraph = Pick<FunctionsBase, 'getChildNodes' | 'getParentNodes'>;

/**
 * Every enabled node after `nodeName` that can pause the run: the nodes on its main connections,
 * and the sub-nodes (tools, models, memories) attached to them, at any depth.
 */
export function pausingNodesAfter(graph: NodeGraph, nodeName: string): PausingNode[] {
	const found = new Map<string, PausingNode>();
	const consider = (node: NodeTypeAndVersion) => {
		if (node.disabled === true || found.has(node.name)) return;
		const why = whyNodePauses(node);
		if (why !== undefined) found.set(node.name, { name: node.name, why });
	};
	for (const child of graph.getChildNodes(nodeName, { includeNodeParameters: true })) {
		if (child.disabled === true) continue;
		consider(child);
		const subNodes = graph.getParentNodes(child.name, {
			// n8n's Workflow.getParentNodes takes 'ALL_NON_MAIN' (every connection but main, followed
			// at any depth); the declared option type lists single connection types only.
			connectionType: 'ALL_NON_MAIN' as NodeConnectionType,
			includeNodeParameters: true,
		});
		for (const subNode of subNodes) consider(subNode);
	}
	return [...found.values()];
}

const listOf = (nodes: PausingNode[]) => {
	const named = nodes.map((node) => `"${node.name}" (${node.why})`);
	return named.length === 1
		? named[0]
		: `${named.slice(0, -1).join(', ')} and ${named[named.length - 1]}`;
};

/** What a write back answered after the workflow succeeds cannot do, and what to do instead. */
export function pausingNodesText(nodes: PausingNode[]): { message: string; description: string } {
	return {
		message: `${nodes.length === 1 ? 'The node' : 'The nodes'} ${listOf(nodes)} can pause the run, so a write back cannot be answered "After the Workflow Succeeds"`,
		description:
			'n8n sets a run that pauses aside (a Wait of 65 seconds or more, a form, a message that waits for its answer, a sub-workflow that pauses) and resumes it later without the trigger: the service would get 200 before the nodes after the pause ran, and the event would not be recorded as processed. Either set the trigger\'s Respond to "Immediately" (each event is recorded as processed before the answer, and the run may pause as long as it needs; a run that fails is then not delivered again), or keep "After the Workflow Succeeds" and hand the event to a second workflow that does the waiting: an Execute Workflow node with "Wait For Sub-Workflow Completion" off.',
	};
}

export function pausingNodesError(node: INode, nodes: PausingNode[]) {
	const { message, description } = pausingNodesText(nodes);
	return operationError(node, message, { description });
}
