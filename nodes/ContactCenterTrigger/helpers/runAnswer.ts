import type { IExecuteFunctions, IExecuteResponsePromiseData } from 'n8n-workflow';

import {
	outcomeOfRun,
	writeBackAnswer,
	type RunOutcome,
	type WriteBackStatus,
} from './writeBackLedger';

/** Answers given from a run of the trigger (versions 2 and 3), once the run has ended. */

export function jsonResponse(statusCode: number, body: object): IExecuteResponsePromiseData {
	// A Buffer reaches the caller byte for byte, in one process and relayed from a queue-mode
	// worker alike, with exactly the headers given.
	return {
		statusCode,
		headers: { 'content-type': 'application/json; charset=utf-8' },
		body: Buffer.from(JSON.stringify(body)) as unknown as IExecuteResponsePromiseData['body'],
	};
}

export async function answerWriteBack(
	context: IExecuteFunctions,
	status: WriteBackStatus,
	key: string | undefined,
): Promise<void> {
	const answer = writeBackAnswer(status, key);
	await context.sendResponse(jsonResponse(answer.statusCode, answer.body));
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
