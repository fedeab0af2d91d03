import type {
	IDataObject,
	IExecuteFunctions,
	IExecuteResponsePromiseData,
	IRunExecutionData,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';

import { writeJsonResponse, type MinimalResponse } from './request';

/** The trigger's answers to the service: from the webhook call, or from the run once it ended. */

export type WriteBackStatus = 'processed' | 'duplicate' | 'inProgress' | 'ignored';

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
		statusCode: status === 'inProgress' ? 409 : 200,
		body: {
			received: status !== 'inProgress',
			duplicate: status === 'duplicate' || status === 'inProgress',
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
 * What n8n's saved execution says about a run. `unknown` when n8n keeps no record of it (not
 * saved, pruned) or the record is not one of a finished run (still running, or its worker died
 * before it ended).
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

async function outcomeOfExecution(
	context: IExecuteFunctions,
	executionId: string,
): Promise<RunOutcome> {
	try {
		return outcomeOfRun(await context.getExecutionDataById(executionId), context.getNode().name);
	} catch (error) {
		context.logger.warn(
			`Contact Center Trigger could not read execution ${executionId}: ${(error as Error).message}`,
		);
		return 'unknown';
	}
}

/**
 * Calls `handler` once the run has ended, with what n8n saved about it, unless `skip` says by then
 * that nothing is left to do (the saved run is then not read back). Without n8n's execution-finish
 * hook (n8n before 2.33), the outcome stays unknown and n8n answers by itself.
 */
export function whenRunEnds(
	context: IExecuteFunctions,
	handler: (outcome: RunOutcome) => Promise<void>,
	skip: () => boolean = () => false,
): void {
	if (typeof context.onExecutionFinish !== 'function') return;
	const executionId = context.getExecutionId();
	context.onExecutionFinish(async () => {
		if (skip()) return;
		await handler(await outcomeOfExecution(context, executionId));
	});
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
