/**
 * Write back workflows whose run can pause, and runs whose end n8n does not tell, through n8n-core:
 * the activation's hook context (HookContext) over a real Workflow, and deliveries (webhook call,
 * then the run) with the record in the data table API stand-in.
 */
import { ExecuteContext, ExecutionLifecycleHooks, HookContext } from 'n8n-core';
import {
	NodeConnectionTypes,
	Workflow,
	type IConnections,
	type IExecuteFunctions,
	type INode,
	type INodeParameters,
	type INodeType,
	type INodeTypes,
	type Logger,
	type WorkflowActivateMode,
	type WorkflowExecuteMode,
} from 'n8n-workflow';

import { ContactCenterTrigger } from '../../nodes/ContactCenterTrigger/ContactCenterTrigger.node';
import { buildAdditionalData } from '../harness/workflow-setup';
import { deliver, parseAnswer, type FlowOptions } from '../harness/run-trigger-flow';
import {
	newKeys,
	recordRows,
	signed,
	useRecordApi,
	writeBack,
	writeBackFlow,
} from './recordFaults';

const fixture = useRecordApi();

const TRIGGER_TYPE = 'n8n-nodes-contact-center.contactCenterTrigger';
const WAIT_OF_70_SECONDS = { resume: 'timeInterval', amount: 70, unit: 'seconds' };

const WAIT_MESSAGE =
	'The node "Wait" (a Wait of 70 seconds) can pause the run, so a write back cannot be answered "After the Workflow Succeeds"';

afterEach(() => jest.restoreAllMocks());

interface SketchNode {
	name: string;
	type: string;
	typeVersion?: number;
	parameters?: INodeParameters;
	disabled?: boolean;
}

/**
 * A workflow as n8n activates it: the trigger (Write Back, its parameters completed with their
 * defaults) and `nodes`, whose types n8n-core does not know here, so their parameters stay as
 * given, as saved. `main`: [from, to] main connections; `tools`: [tool, agent] ai_tool ones.
 */
function workflowOf(
	triggerParameters: INodeParameters,
	nodes: SketchNode[],
	main: Array<[string, string]>,
	tools: Array<[string, string]> = [],
) {
	const triggerType = new ContactCenterTrigger();
	const nodeTypes: INodeTypes = {
		getByName: (name) => (name === TRIGGER_TYPE ? triggerType : (undefined as never)),
		getByNameAndVersion: (name) => (name === TRIGGER_TYPE ? triggerType : (undefined as never)),
		getKnownTypes: () => ({}),
	};
	const trigger: INode = {
		id: 'trigger',
		name: 'Contact Center Trigger',
		type: TRIGGER_TYPE,
		typeVersion: 1.1,
		position: [0, 0],
		webhookId: `pausing-${Math.random()}`,
		parameters: { endpoint: 'writeBack', ...triggerParameters },
		credentials: fixture.credentials.nodeCredentials(),
	};
	const others: INode[] = nodes.map((node, index) => ({
		id: `node-${index}`,
		typeVersion: 1,
		position: [200 * (index + 1), 0],
		parameters: {},
		...node,
	}));
	const connections: IConnections = {};
	const connect = (from: string, to: string, type: string) => {
		connections[from] ??= {};
		connections[from][type] ??= [[]];
		connections[from][type][0]!.push({ node: to, type: type as never, index: 0 });
	};
	for (const [from, to] of main) connect(from, to, NodeConnectionTypes.Main);
	for (const [tool, agent] of tools) connect(tool, agent, NodeConnectionTypes.AiTool);
	const workflow = new Workflow({
		id: 'pausing-workflow',
		name: 'Pausing',
		nodes: [trigger, ...others],
		connections,
		active: false,
		nodeTypes,
		settings: { executionOrder: 'v1' },
	});
	return { workflow, trigger: workflow.getNode(trigger.name) as INode, triggerType };
}

/** The trigger's activation (its webhook's checkExists) as n8n runs it: its error, if any. */
async function activate(
	built: ReturnType<typeof workflowOf>,
	mode: WorkflowExecuteMode = 'trigger',
	activation: WorkflowActivateMode = 'activate',
	adjust: (context: HookContext) => void = () => {},
): Promise<(Error & { description?: string }) | undefined> {
	const { workflow, trigger, triggerType } = built;
	const setup = {
		workflow,
		node: trigger,
		nodeType: triggerType as INodeType,
		staticData: {},
	};
	const hooks = new ExecutionLifecycleHooks(mode, 'activation', {
		id: workflow.id,
		name: 'Pausing',
		active: false,
		isArchived: false,
		activeVersionId: null,
		createdAt: new Date(),
		updatedAt: new Date(),
		nodes: Object.values(workflow.nodes),
		connections: {},
	});
	const additionalData = buildAdditionalData(setup, fixture.credentials, hooks);
	const context = new HookContext(workflow, trigger, additionalData, mode, activation);
	adjust(context);
	return await triggerType.webhookMethods.default.checkExists.call(context).then(
		() => undefined,
		(error: Error) => error,
	);
}

const TRIGGER = 'Contact Center Trigger';

describe('activation of a write back answered after the workflow succeeds', () => {
	it('refuses a Wait of 70 seconds after the trigger, naming it and saying what to do instead, before touching the record', async () => {
		const recordCalls = fixture.api.calls.length;
		const error = await activate(
			workflowOf(
				{},
				[
					{
						name: 'Wait',
						type: 'n8n-nodes-base.wait',
						typeVersion: 1.1,
						parameters: WAIT_OF_70_SECONDS,
					},
					{ name: 'CRM', type: 'n8n-nodes-base.httpRequest' },
				],
				[
					[TRIGGER, 'Wait'],
					['Wait', 'CRM'],
				],
			),
		);
		expect(error).toMatchObject({ name: 'NodeOperationError', message: WAIT_MESSAGE });
		expect(error?.description).toContain('set the trigger\'s Respond to "Immediately"');
		expect(error?.description).toContain('"Wait For Sub-Workflow Completion" off');
		expect(fixture.api.calls.slice(recordCalls)).toEqual([]);
	});

	it("refuses a tool of an agent that sends a message and waits, found through n8n's own connections", async () => {
		const error = await activate(
			workflowOf(
				{},
				[
					{ name: 'Agent', type: '@n8n/n8n-nodes-langchain.agent', typeVersion: 3 },
					{ name: 'Model', type: '@n8n/n8n-nodes-langchain.lmChatOpenAi' },
					{
						name: 'Ask a manager',
						type: 'n8n-nodes-base.slackTool',
						typeVersion: 2.3,
						parameters: { resource: 'message', operation: 'sendAndWait' },
					},
				],
				[[TRIGGER, 'Agent']],
				[
					['Ask a manager', 'Agent'],
					['Model', 'Agent'],
				],
			),
		);
		expect(error?.message).toBe(
			'The node "Ask a manager" (sends a message and waits for the answer) can pause the run, so a write back cannot be answered "After the Workflow Succeeds"',
		);
	});

	it('refuses an Execute Workflow node that waits for its sub-workflow', async () => {
		const error = await activate(
			workflowOf(
				{},
				[{ name: 'Hand over', type: 'n8n-nodes-base.executeWorkflow', typeVersion: 1.2 }],
				[[TRIGGER, 'Hand over']],
			),
		);
		expect(error?.message).toMatch(/^The node "Hand over" \(waits for its sub-workflow/);
	});

	it('activates, and checks the record, with a Wait under 65 seconds, a disabled Wait and an Execute Workflow that does not wait', async () => {
		const recordCalls = fixture.api.calls.length;
		const error = await activate(
			workflowOf(
				{},
				[
					{
						name: 'Short wait',
						type: 'n8n-nodes-base.wait',
						typeVersion: 1.1,
						parameters: { resume: 'timeInterval', amount: 30, unit: 'seconds' },
					},
					{
						name: 'Wait',
						type: 'n8n-nodes-base.wait',
						typeVersion: 1.1,
						parameters: WAIT_OF_70_SECONDS,
						disabled: true,
					},
					{
						name: 'Hand over',
						type: 'n8n-nodes-base.executeWorkflow',
						typeVersion: 1.2,
						parameters: { options: { waitForSubWorkflow: false } },
					},
				],
				[
					[TRIGGER, 'Short wait'],
					['Short wait', 'Wait'],
					['Wait', 'Hand over'],
				],
			),
		);
		expect(error).toBeUndefined();
		// Accepted, so the record was checked.
		expect(fixture.api.calls.length).toBeGreaterThan(recordCalls);
	});

	it('activates a workflow that waits when the trigger answers immediately, and the test URL of one answered after success', async () => {
		const waiting: Parameters<typeof workflowOf> = [
			{},
			[
				{
					name: 'Wait',
					type: 'n8n-nodes-base.wait',
					typeVersion: 1.1,
					parameters: WAIT_OF_70_SECONDS,
				},
			],
			[[TRIGGER, 'Wait']],
		];
		expect(await activate(workflowOf({ respond: 'immediately' }, waiting[1], waiting[2]))).toBe(
			undefined,
		);
		expect(await activate(workflowOf(...waiting), 'manual', 'manual')).toBe(undefined);
		expect((await activate(workflowOf(...waiting)))?.message).toBe(WAIT_MESSAGE);
	});

	it("refuses an n8n whose contexts do not carry the run's data, naming the supported versions; not with Respond Immediately", async () => {
		const withoutRunData = (context: HookContext) => {
			delete (context as unknown as { runExecutionData?: unknown }).runExecutionData;
		};
		const error = await activate(workflowOf({}, [], []), 'trigger', 'activate', withoutRunData);
		expect(error).toMatchObject({
			message:
				'This version of n8n is not supported by the Contact Center Trigger: it cannot learn how a write back run ends, so it cannot answer "After the Workflow Succeeds"',
			description: expect.stringContaining('n8n 2.36.0 or later (tested with 2.41.1)'),
		});
		expect(
			await activate(
				workflowOf({ respond: 'immediately' }, [], []),
				'trigger',
				'activate',
				withoutRunData,
			),
		).toBe(undefined);
		// The hook context n8n-core 2.41 builds carries it.
		expect(await activate(workflowOf({}, [], []))).toBe(undefined);
	});
});

/** A stand-in of n8n's Wait node: its parameters as the real one declares them; passes items on. */
const waitNodeType: INodeType = {
	description: {
		displayName: 'Wait',
		name: 'wait',
		group: ['organization'],
		version: 1.1,
		description: 'Passes its items on',
		defaults: { name: 'Wait' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		properties: [
			{ displayName: 'Resume', name: 'resume', type: 'string', default: 'timeInterval' },
			{ displayName: 'Amount', name: 'amount', type: 'number', default: 5 },
			{ displayName: 'Unit', name: 'unit', type: 'string', default: 'seconds' },
		],
	},
	async execute(this: IExecuteFunctions) {
		return [this.getInputData()];
	},
};

const withWait = (flow: FlowOptions, parameters: INodeParameters = WAIT_OF_70_SECONDS) => ({
	...flow,
	after: [
		{
			node: {
				id: 'wait',
				name: 'Wait',
				type: 'n8n-nodes-base.wait',
				typeVersion: 1.1,
				position: [400, 0] as [number, number],
				parameters,
			},
			nodeType: waitNodeType,
		},
	],
});

const statesOf = (key: string) =>
	recordRows(fixture.api, fixture.apiKey)
		.filter((row) => String(row.recordKey).endsWith(`|${key}`))
		.map((row) => row.state);

function runErrorOf(flow: FlowOptions, executionId: string | undefined) {
	return flow.database.executions.get(String(executionId))?.resultData.error;
}

describe('a run that can pause, should a workflow activated before run it', () => {
	let flow: FlowOptions;
	beforeEach(() => {
		flow = writeBackFlow(fixture.credentials);
	});

	it('fails at the trigger with the same message, answers 500 and releases the key: nothing ran, and the redelivery is not answered 409', async () => {
		const [key] = newKeys('pausingRun', 1);
		const waiting = withWait(flow);
		const first = await deliver(waiting, signed(writeBack(key)));
		expect(first.status).toBe(500);
		expect(runErrorOf(flow, first.executionId)).toMatchObject({ message: WAIT_MESSAGE });
		expect(flow.database.sink.processed).toEqual([]);
		expect(statesOf(key)).toEqual([]);

		const again = await deliver(waiting, signed(writeBack(key)));
		expect(again.status).toBe(500);
		expect(flow.database.sink.processed).toEqual([]);
	});

	it('runs with a Wait under 65 seconds', async () => {
		const [key] = newKeys('shortWait', 1);
		const short = withWait(flow, { resume: 'timeInterval', amount: 30, unit: 'seconds' });
		expect(parseAnswer(await deliver(short, signed(writeBack(key))))?.status).toBe('processed');
		expect(statesOf(key)).toEqual(['done']);
	});

	it("runs in a test (the editor's test URL records nothing), with a warning under the trigger's output", async () => {
		const [key] = newKeys('pausingTest', 1);
		const result = await deliver(withWait(flow), { ...signed(writeBack(key)), mode: 'manual' });
		expect(parseAnswer(result)?.status).toBe('processed');
		const run = flow.database.executions.get(String(result.executionId));
		expect(run?.resultData.runData[TRIGGER]?.[0]?.hints).toEqual([
			expect.objectContaining({
				type: 'warning',
				message: expect.stringContaining(
					`${WAIT_MESSAGE}: a published workflow refuses to activate.`,
				),
			}),
		]);
		expect(flow.database.sink.processed.map((item) => item.idempotencyKey)).toEqual([key]);
	});

	it('runs with Respond "Immediately": the key is recorded before the answer', async () => {
		const [key] = newKeys('pausingImmediately', 1);
		const immediately = withWait({
			...flow,
			parameters: { endpoint: 'writeBack', respond: 'immediately' },
		});
		expect(parseAnswer(await deliver(immediately, signed(writeBack(key))))?.status).toBe(
			'processed',
		);
		expect(statesOf(key)).toEqual(['done']);
	});
});

/** n8n's log as the trigger's run writes it, while the test runs. */
function captureLog() {
	const lines: Array<{ level: string; message: string }> = [];
	const logger = Object.fromEntries(
		['error', 'warn', 'info', 'debug'].map((level) => [
			level,
			(message: string) => lines.push({ level, message }),
		]),
	) as unknown as Logger;
	jest.spyOn(ExecuteContext.prototype, 'logger', 'get').mockReturnValue(logger as never);
	return lines;
}

/** n8n's execution-finish hook, whose handlers find no run data in the context (n8n-core changed). */
function hideRunDataAtTheEnd() {
	const real = ExecuteContext.prototype.onExecutionFinish;
	jest.spyOn(ExecuteContext.prototype, 'onExecutionFinish').mockImplementation(function (
		this: ExecuteContext,
		handler: () => unknown,
	) {
		const holder = this as unknown as { runExecutionData: unknown };
		real.call(this, async () => {
			const kept = holder.runExecutionData;
			holder.runExecutionData = null;
			try {
				return await handler();
			} finally {
				holder.runExecutionData = kept;
			}
		});
	});
}

describe('a run whose end n8n does not tell', () => {
	let flow: FlowOptions;
	beforeEach(() => {
		flow = writeBackFlow(fixture.credentials);
	});
	const failing = (key: string) => ({
		...writeBack(key),
		data: { conversation: { id: `conv-${key}` }, failThisRun: true },
	});

	it('without its data in memory, learns the outcome from the execution n8n saved: a failed run answered 500 and run again, a successful one processed', async () => {
		hideRunDataAtTheEnd();
		const lines = captureLog();
		const [key] = newKeys('savedOutcome', 1);
		expect((await deliver(flow, signed(failing(key)))).status).toBe(500);
		expect(statesOf(key)).toEqual([]);
		expect(parseAnswer(await deliver(flow, signed(writeBack(key))))?.status).toBe('processed');
		expect(statesOf(key)).toEqual(['done']);
		expect(lines.filter((line) => line.level === 'error')).toEqual([]);
	});

	it('without it in memory or saved: counted as processed (at most one run), answered 200, and an error logged with the key and the execution', async () => {
		hideRunDataAtTheEnd();
		const lines = captureLog();
		const unsaved = { ...flow, saveSuccessfulExecutions: false };
		const [key] = newKeys('unknownOutcome', 1);
		const first = await deliver(unsaved, signed(writeBack(key)));
		expect(parseAnswer(first)?.status).toBe('processed');
		expect(statesOf(key)).toEqual(['done']);
		expect(parseAnswer(await deliver(unsaved, signed(writeBack(key))))?.status).toBe('duplicate');
		expect(flow.database.sink.processed.map((item) => item.idempotencyKey)).toEqual([key]);
		const errors = lines.filter((line) => line.level === 'error').map((line) => line.message);
		expect(errors).toEqual([
			expect.stringContaining(
				`n8n did not say how the run of write back ${key} ended (execution ${first.executionId})`,
			),
		]);
		expect(errors[0]).toContain('counted as processed and answered 200');
		expect(errors[0]).toContain('does not run the workflow again');
	});

	it("without n8n's execution-finish hook: recorded and answered 200 as the run starts, as with Respond Immediately, and an error logged", async () => {
		const lines = captureLog();
		// As in an n8n-core without the hook: the method shadowed on the execute context's class.
		Object.defineProperty(ExecuteContext.prototype, 'onExecutionFinish', {
			value: undefined,
			configurable: true,
			writable: true,
		});
		try {
			await deliverWithoutHook(lines);
		} finally {
			delete (ExecuteContext.prototype as { onExecutionFinish?: unknown }).onExecutionFinish;
		}
		expect(typeof ExecuteContext.prototype.onExecutionFinish).toBe('function');
	});

	async function deliverWithoutHook(lines: Array<{ level: string; message: string }>) {
		const [key, failingKey] = newKeys('noHook', 2);
		const first = await deliver(flow, signed(writeBack(key)));
		expect(parseAnswer(first)?.status).toBe('processed');
		expect(statesOf(key)).toEqual(['done']);
		expect(parseAnswer(await deliver(flow, signed(writeBack(key))))?.status).toBe('duplicate');

		// A run that then fails was answered 200 already and is not run again.
		expect(parseAnswer(await deliver(flow, signed(failing(failingKey))))?.status).toBe('processed');
		expect(parseAnswer(await deliver(flow, signed(writeBack(failingKey))))?.status).toBe(
			'duplicate',
		);
		expect(flow.database.sink.processed.map((item) => item.idempotencyKey)).toEqual([key]);
		const errors = lines.filter((line) => line.level === 'error').map((line) => line.message);
		expect(errors).toHaveLength(2);
		expect(errors[0]).toContain(
			`gives the run of write back ${key} (execution ${first.executionId}) no execution-finish hook, so it is recorded as processed and answered 200 as it starts`,
		);
	}
});
