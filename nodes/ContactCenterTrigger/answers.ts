import type {
	IDataObject,
	IExecuteFunctions,
	IExecuteResponsePromiseData,
	IHookFunctions,
	IRunExecutionData,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';

import { operationError } from '../shared/operationError';
import { writeJsonResponse, type MinimalResponse } from './request';

/** The trigger's answers to the service: from the webhook call, or from the run once it ended. */

export type WriteBackStatus = 'processed' | 'duplicate' | 'running' | 'ignored';

/** Every write back answer has this shape, whatever happened. */
export interface WriteBackAnswer extends IDataObject {
	received: boolean;
	duplicate: boolean;
	idempotencyKey: string | null;
	status: WriteBackStatus;
}

export function writeBackAnswer(
	status: WriteBackStatus,
	idempotencyKey: string | undefined,
): { statusCode: number; body: WriteBackAnswer } {
	return {
		// 409 for a delivery in progress: not 2xx, so the service delivers it again later and
		// nothing is lost should the run in progress fail.
		statusCode: status === 'running' ? 409 : 200,
		body: {
			received: status !== 'running',
			duplicate: status === 'duplicate' || status === 'running',
			idempotencyKey: idempotencyKey ?? null,
			status,
		},
	};
}

/** Answers a call in its webhook call, without starting a run. */
export function answerWithoutRun(
	context: IWebhookFunctions,
	statusCode: number,
	body: object,
): IWebhookResponseData {
	writeJsonResponse(context.getResponseObject() as unknown as MinimalResponse, statusCode, body);
	return { noWebhookResponse: true };
}

export function jsonResponse(statusCode: number, body: object): IExecuteResponsePromiseData {
	// A Buffer reaches the caller byte for byte, in one process and relayed from a queue-mode
	// worker alike, with exactly the headers given.
	return {
		statusCode,
		headers: { 'content-type': 'application/json; charset=utf-8' },
		body: Buffer.from(JSON.stringify(body)) as unknown as IExecuteResponsePromiseData['body'],
	};
}

/** Answers a write back from its run. */
export async function answerWriteBack(
	context: IExecuteFunctions,
	status: WriteBackStatus,
	key: string | undefined,
): Promise<void> {
	const answer = writeBackAnswer(status, key);
	await context.sendResponse(jsonResponse(answer.statusCode, answer.body));
}

export type RunOutcome = 'succeeded' | 'failed' | 'unknown';

/**
 * What a run's data says about it. `unknown` when there is none, or it is not the data of a run
 * that ended (a node still waiting on the execution stack).
 */
export function outcomeOfRun(
	run: IRunExecutionData | undefined,
	startNodeName: string,
): RunOutcome {
	if (run === undefined || run === null || typeof run !== 'object') return 'unknown';
	const { resultData } = run;
	if (resultData === undefined) return 'unknown';
	if (resultData.error !== undefined && resultData.error !== null) return 'failed';
	const lastNode = resultData.lastNodeExecuted;
	const runData = resultData.runData ?? {};
	if (lastNode !== undefined && runData[lastNode]?.at(-1)?.error) return 'failed';
	const pending = run.executionData?.nodeExecutionStack?.length ?? 0;
	if (pending > 0 || runData[startNodeName] === undefined || lastNode === undefined) {
		return 'unknown';
	}
	return 'succeeded';
}

/**
 * The run's data as n8n keeps it in memory while the run ends: the object n8n-core's execute
 * context was made with (`BaseExecuteContext.runExecutionData`), which is the very object n8n
 * hands its own end-of-run hooks (`WorkflowExecute.getFullRunData`, n8n 2.36 and 2.41 alike) with
 * the run's error set on it before they run. Read from memory, not from the saved execution, so
 * that the outcome does not depend on what n8n saves (EXECUTIONS_DATA_SAVE_ON_SUCCESS=none, the
 * workflow's "Do not save", pruning) and costs no database read.
 */
function runInMemory(context: IExecuteFunctions): IRunExecutionData | undefined {
	const run = (context as { runExecutionData?: unknown }).runExecutionData;
	return run !== null && typeof run === 'object' ? (run as IRunExecutionData) : undefined;
}

/**
 * The run as n8n saved it, should its data in memory not tell: n8n saves a run in its own
 * end-of-run hook, which runs before the handlers nodes add. Undefined where n8n does not save
 * the run (a successful run with EXECUTIONS_DATA_SAVE_ON_SUCCESS=none or "Do not save").
 */
async function savedRun(context: IExecuteFunctions): Promise<IRunExecutionData | undefined> {
	try {
		return await context.getExecutionDataById(context.getExecutionId());
	} catch (error) {
		// The caller logs a run whose end neither tells; this says why the saved one did not.
		context.logger.debug(
			`Contact Center Trigger: the saved execution ${context.getExecutionId()} could not be read (${(error as Error).message})`,
		);
		return undefined;
	}
}

/** How the run ended: a run stopped from the editor or the API counts as failed. */
export async function outcomeAtEnd(context: IExecuteFunctions): Promise<RunOutcome> {
	if (context.getExecutionCancelSignal?.()?.aborted === true) return 'failed';
	const startNodeName = context.getNode().name;
	const inMemory = outcomeOfRun(runInMemory(context), startNodeName);
	if (inMemory !== 'unknown') return inMemory;
	return outcomeOfRun(await savedRun(context), startNodeName);
}

/**
 * Calls `handler` once the run has ended (n8n's execution-finish hook, in the process that ran
 * it), with how it ended, unless `skip` says by then that nothing is left to do. Returns false,
 * calling nothing, where n8n gives the run no such hook (n8n before 2.33): the caller decides what
 * to do without it.
 */
export function whenRunEnds(
	context: IExecuteFunctions,
	handler: (outcome: RunOutcome) => Promise<void>,
	skip: () => boolean = () => false,
): boolean {
	if (typeof context.onExecutionFinish !== 'function') return false;
	context.onExecutionFinish(async () => {
		if (skip()) return;
		await handler(await outcomeAtEnd(context));
	});
	return true;
}

/** The oldest n8n the trigger supports, and the one it is tested with (docs/compatibility.md). */
export const SUPPORTED_N8N = 'n8n 2.36.0 or later (tested with 2.41.1)';

/**
 * At activation: whether this n8n's contexts carry the run data the trigger reads as a run ends.
 * n8n-core builds the activation's hook context and a run's execute context on the same base
 * class (`NodeExecutionContext`), which sets `runExecutionData` in its constructor, null where
 * there is no run; an n8n whose hook context lacks it builds its contexts differently.
 */
export function assertRunEndReadable(context: IHookFunctions): void {
	if ('runExecutionData' in context) return;
	throw operationError(
		context.getNode(),
		`This version of n8n is not supported by the Contact Center Trigger: it cannot learn how a write back run ends, so it cannot answer "After the Workflow Succeeds"`,
		{
			description: `Use ${SUPPORTED_N8N}, or set the trigger's Respond to "Immediately" (each event is then recorded as processed before the answer, and a run that fails is not delivered again).`,
		},
	);
}

/**
 * Answers a failed run 500 from the run itself. n8n 2.41 answers such a run 500 by itself, but
 * n8n 2.33 to 2.37 resolve the pending answer of a run that ended without one with an empty 200
 * before their error path's 500 (`active-executions.js`), which would tell the service the event
 * was ingested. The execution-finish hook runs before that, so this answer goes first there; from
 * 2.38 on it replaces n8n's own 500.
 */
export async function answerFailedRun(context: IExecuteFunctions): Promise<void> {
	await context.sendResponse(
		jsonResponse(500, {
			message: 'The workflow run failed; the call was not processed',
		}),
	);
}
