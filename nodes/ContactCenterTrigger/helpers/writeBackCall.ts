import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import { writeJsonResponse, type MinimalResponse } from './request';
import { KNOWN_WRITE_BACK_TYPES } from './simplify';
import { writeBackAnswer, type WriteBackStatus } from './writeBackLedger';
import { OTHER_WRITE_BACK_TYPES } from './description';

/** Whether the delivery's event type is one the trigger's Events option selects. */
export function isSelectedWriteBack(context: IWebhookFunctions, body: IDataObject): boolean {
	const type = typeof body.type === 'string' ? body.type : '';
	const events = context.getNodeParameter('events', []) as string[];
	return KNOWN_WRITE_BACK_TYPES.includes(type)
		? events.includes(type)
		: events.includes(OTHER_WRITE_BACK_TYPES);
}

/** Answers a write back in its webhook call, without starting a run. */
export function answerWithoutRun(
	context: IWebhookFunctions,
	status: WriteBackStatus,
	key: string | undefined,
) {
	const { statusCode, body } = writeBackAnswer(status, key);
	writeJsonResponse(context.getResponseObject() as unknown as MinimalResponse, statusCode, body);
	return { noWebhookResponse: true };
}
