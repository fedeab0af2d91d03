import type { IDataObject, NodeTypeAndVersion } from 'n8n-workflow';

import {
	pausingNodesAfter,
	pausingNodesText,
	whyNodePauses,
	type NodeGraph,
} from '../../nodes/ContactCenterTrigger/pausingNodes';

const node = (
	type: string,
	parameters?: IDataObject,
	extra: Partial<NodeTypeAndVersion> = {},
): NodeTypeAndVersion => ({
	name: extra.name ?? type.split('.').pop() ?? type,
	type,
	typeVersion: 1,
	disabled: false,
	...(parameters === undefined
		? {}
		: { parameters: parameters as NodeTypeAndVersion['parameters'] }),
	...extra,
});

const wait = (parameters: IDataObject, typeVersion = 1.1) =>
	node('n8n-nodes-base.wait', parameters, { typeVersion });

describe('whyNodePauses: the Wait node', () => {
	it('keeps the run in memory for a literal interval under 65 seconds, as n8n does', () => {
		expect(whyNodePauses(wait({ resume: 'timeInterval', amount: 64.99, unit: 'seconds' }))).toBe(
			undefined,
		);
		expect(whyNodePauses(wait({ resume: 'timeInterval', amount: 1, unit: 'minutes' }))).toBe(
			undefined,
		);
		expect(whyNodePauses(wait({ resume: 'timeInterval', amount: 0, unit: 'days' }))).toBe(
			undefined,
		);
	});

	it('pauses from 65 seconds on, in any unit', () => {
		expect(whyNodePauses(wait({ resume: 'timeInterval', amount: 65, unit: 'seconds' }))).toBe(
			'a Wait of 65 seconds',
		);
		expect(whyNodePauses(wait({ resume: 'timeInterval', amount: 70, unit: 'seconds' }))).toBe(
			'a Wait of 70 seconds',
		);
		expect(whyNodePauses(wait({ resume: 'timeInterval', amount: 2, unit: 'minutes' }))).toBe(
			'a Wait of 120 seconds',
		);
		expect(whyNodePauses(wait({ resume: 'timeInterval', amount: 1, unit: 'hours' }))).toBe(
			'a Wait of 3600 seconds',
		);
	});

	it("uses the Wait node's defaults of its version for a parameter left out: 5 seconds in 1.1, 1 hour in 1", () => {
		expect(whyNodePauses(wait({}, 1.1))).toBe(undefined);
		expect(whyNodePauses(wait({ amount: 60 }, 1.1))).toBe(undefined);
		expect(whyNodePauses(wait({}, 1))).toBe('a Wait of 3600 seconds');
		expect(whyNodePauses(wait({ amount: 30 }, 1))).toBe('a Wait of 108000 seconds');
		expect(whyNodePauses(node('n8n-nodes-base.wait', undefined, { typeVersion: 1.1 }))).toBe(
			undefined,
		);
	});

	it('refuses when unsure: a version whose defaults are not known, a length from an expression, a value of another type', () => {
		expect(whyNodePauses(wait({ amount: 5, unit: 'seconds' }, 1.2))).toBe(
			'a Wait whose kind of wait is not known here',
		);
		expect(whyNodePauses(wait({ resume: 'timeInterval', amount: 5 }, 1.2))).toBe(
			'a Wait whose length is not known here',
		);
		expect(whyNodePauses(wait({ resume: 'timeInterval', amount: 5, unit: 'seconds' }, 1.2))).toBe(
			undefined,
		);
		expect(
			whyNodePauses(wait({ resume: 'timeInterval', amount: '={{ 5 }}', unit: 'seconds' })),
		).toBe('a Wait whose length is an expression, known only when it runs');
		expect(whyNodePauses(wait({ resume: 'timeInterval', amount: 5, unit: '={{ "s" }}' }))).toBe(
			'a Wait whose length is an expression, known only when it runs',
		);
		expect(whyNodePauses(wait({ resume: 'timeInterval', amount: '5', unit: 'seconds' }))).toBe(
			'a Wait whose length is not known here',
		);
		expect(whyNodePauses(wait({ resume: 'timeInterval', amount: 5, unit: 'weeks' }))).toBe(
			'a Wait whose length is not known here',
		);
		expect(whyNodePauses(wait({ resume: '={{ "timeInterval" }}' }))).toBe(
			'a Wait whose kind of wait is not known here',
		);
	});

	it('pauses until a date, a webhook call or a form submission', () => {
		expect(whyNodePauses(wait({ resume: 'specificTime', dateTime: '2020-01-01T00:00:00' }))).toBe(
			'a Wait until a date and time',
		);
		expect(whyNodePauses(wait({ resume: 'webhook' }))).toBe('a Wait for a webhook call');
		expect(whyNodePauses(wait({ resume: 'form' }))).toBe('a Wait for a form submission');
	});
});

describe('whyNodePauses: other nodes', () => {
	it('a Form node', () => {
		expect(whyNodePauses(node('n8n-nodes-base.form', { operation: 'completion' }))).toBe(
			'a form page, which waits for its submission',
		);
	});

	it('any node or tool sending a message and waiting for the answer', () => {
		for (const type of [
			'n8n-nodes-base.slack',
			'n8n-nodes-base.gmail',
			'n8n-nodes-base.telegramTool',
			'n8n-nodes-base.microsoftTeamsTool',
		]) {
			expect(whyNodePauses(node(type, { resource: 'message', operation: 'sendAndWait' }))).toBe(
				'sends a message and waits for the answer',
			);
		}
		expect(whyNodePauses(node('n8n-nodes-base.slack', { operation: 'post' }))).toBe(undefined);
	});

	it("n8n's human review tools, also when their hidden operation is left out", () => {
		expect(whyNodePauses(node('n8n-nodes-base.slackHitlTool', {}))).toBe(
			'a human review, which waits for the answer',
		);
	});

	it('other operations that wait, such as GitHub dispatching a workflow and waiting for it', () => {
		expect(
			whyNodePauses(
				node('n8n-nodes-base.github', { resource: 'workflow', operation: 'dispatchAndWait' }),
			),
		).toBe('its operation "dispatchAndWait" waits');
		expect(
			whyNodePauses(node('n8n-nodes-base.github', { resource: 'workflow', operation: 'dispatch' })),
		).toBe(undefined);
	});

	it('an Execute Workflow node waiting for its sub-workflow (the default), not one that does not wait', () => {
		const execute = (parameters: IDataObject) =>
			whyNodePauses(node('n8n-nodes-base.executeWorkflow', parameters, { typeVersion: 1.3 }));
		const waits = 'waits for its sub-workflow, and a sub-workflow that pauses pauses this run too';
		expect(execute({})).toBe(waits);
		expect(execute({ options: {} })).toBe(waits);
		expect(execute({ options: { waitForSubWorkflow: true } })).toBe(waits);
		expect(execute({ options: { waitForSubWorkflow: '={{ false }}' } })).toBe(waits);
		expect(execute({ mode: 'each', options: { waitForSubWorkflow: false } })).toBe(undefined);
		expect(execute({ options: { waitForSubWorkflow: false } })).toBe(undefined);
	});

	it('a workflow tool, which always waits for its sub-workflow', () => {
		expect(whyNodePauses(node('@n8n/n8n-nodes-langchain.toolWorkflow', {}))).toBe(
			'a workflow tool, which waits for its sub-workflow: one that pauses pauses this run too',
		);
	});

	it('nodes that do not pause', () => {
		expect(whyNodePauses(node('n8n-nodes-base.set', { mode: 'manual' }))).toBe(undefined);
		expect(whyNodePauses(node('n8n-nodes-base.dataTable', { operation: 'upsert' }))).toBe(
			undefined,
		);
		expect(whyNodePauses(node('n8n-nodes-base.httpRequest'))).toBe(undefined);
	});
});

/** A workflow's connections as n8n-core's contexts read them, recording the calls made. */
function graphOf(
	children: NodeTypeAndVersion[],
	subNodes: Record<string, NodeTypeAndVersion[]> = {},
) {
	const calls: unknown[] = [];
	const graph: NodeGraph = {
		getChildNodes: (name, options) => {
			calls.push(['getChildNodes', name, options]);
			return children;
		},
		getParentNodes: (name, options) => {
			calls.push(['getParentNodes', name, options]);
			return subNodes[name] ?? [];
		},
	};
	return { graph, calls };
}

describe('pausingNodesAfter', () => {
	const crm = node('n8n-nodes-base.httpRequest', {}, { name: 'CRM' });
	const longWait = node(
		'n8n-nodes-base.wait',
		{ resume: 'timeInterval', amount: 70, unit: 'seconds' },
		{ name: 'Wait', typeVersion: 1.1 },
	);

	it('finds a pausing node among the nodes after the trigger, asking n8n for them with their parameters', () => {
		const { graph, calls } = graphOf([longWait, crm]);
		expect(pausingNodesAfter(graph, 'Trigger')).toEqual([
			{ name: 'Wait', why: 'a Wait of 70 seconds' },
		]);
		expect(calls).toEqual([
			['getChildNodes', 'Trigger', { includeNodeParameters: true }],
			['getParentNodes', 'Wait', { connectionType: 'ALL_NON_MAIN', includeNodeParameters: true }],
			['getParentNodes', 'CRM', { connectionType: 'ALL_NON_MAIN', includeNodeParameters: true }],
		]);
	});

	it('finds a tool of an agent that sends a message and waits, and each node once', () => {
		const agent = node('@n8n/n8n-nodes-langchain.agent', {}, { name: 'Agent' });
		const ask = node(
			'n8n-nodes-base.slackTool',
			{ operation: 'sendAndWait' },
			{ name: 'Ask a manager' },
		);
		const model = node('@n8n/n8n-nodes-langchain.lmChatOpenAi', {}, { name: 'Model' });
		const { graph } = graphOf([agent, crm, agent], { Agent: [model, ask] });
		expect(pausingNodesAfter(graph, 'Trigger')).toEqual([
			{ name: 'Ask a manager', why: 'sends a message and waits for the answer' },
		]);
	});

	it('skips disabled nodes, and the tools of a disabled node', () => {
		const agent = node('@n8n/n8n-nodes-langchain.agent', {}, { name: 'Agent', disabled: true });
		const ask = node('n8n-nodes-base.slackTool', { operation: 'sendAndWait' }, { name: 'Ask' });
		const disabledTool = node(
			'n8n-nodes-base.gmailTool',
			{ operation: 'sendAndWait' },
			{ name: 'Mail', disabled: true },
		);
		const enabledAgent = node('@n8n/n8n-nodes-langchain.agent', {}, { name: 'Agent 2' });
		const { graph } = graphOf([{ ...longWait, disabled: true }, agent, enabledAgent], {
			Agent: [ask],
			'Agent 2': [disabledTool],
		});
		expect(pausingNodesAfter(graph, 'Trigger')).toEqual([]);
	});

	it('finds none in a workflow that does not pause', () => {
		const shortWait = node(
			'n8n-nodes-base.wait',
			{ resume: 'timeInterval', amount: 30, unit: 'seconds' },
			{ name: 'Wait', typeVersion: 1.1 },
		);
		expect(pausingNodesAfter(graphOf([shortWait, crm]).graph, 'Trigger')).toEqual([]);
		expect(pausingNodesAfter(graphOf([]).graph, 'Trigger')).toEqual([]);
	});
});

describe('pausingNodesText', () => {
	it('names each node and why, and says what to do instead', () => {
		const one = pausingNodesText([{ name: 'Wait', why: 'a Wait of 70 seconds' }]);
		expect(one.message).toBe(
			'The node "Wait" (a Wait of 70 seconds) can pause the run, so a write back cannot be answered "After the Workflow Succeeds"',
		);
		expect(one.description).toContain('Respond to "Immediately"');
		expect(one.description).toContain(
			'an Execute Workflow node with "Wait For Sub-Workflow Completion" off',
		);
		const three = pausingNodesText([
			{ name: 'A', why: 'x' },
			{ name: 'B', why: 'y' },
			{ name: 'C', why: 'z' },
		]);
		expect(three.message).toMatch(
			/^The nodes "A" \(x\), "B" \(y\) and "C" \(z\) can pause the run/,
		);
	});
});
