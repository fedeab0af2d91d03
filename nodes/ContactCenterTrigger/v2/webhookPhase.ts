import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { idempotencyKeyOf } from '../helpers/dedup';
import { writeJsonResponse, type MinimalResponse } from '../helpers/request';
import { KNOWN_WRITE_BACK_TYPES, simplifyWriteBack } from '../helpers/simplify';
import { writeBackAnswer } from '../helpers/writeBackLedger';
import { OTHER_WRITE_BACK_TYPES } from '../shared/description';

/**
 * The webhook call of a write back (version 2): only the event type is decided here; whether the
 * delivery was processed before is decided in the run (runPhase.ts), from n8n's database.
 */
export function handleWriteBackV2(
	context: IWebhookFunctions,
	body: IDataObject,
): IWebhookResponseData {
	const type = typeof body.type === 'string' ? body.type : '';
	const events = context.getNodeParameter('events', []) as string[];
	const selected = KNOWN_WRITE_BACK_TYPES.includes(type)
		? events.includes(type)
		: events.includes(OTHER_WRITE_BACK_TYPES);
	if (!selected) {
		const answer = writeBackAnswer('ignored', idempotencyKeyOf(body));
		writeJsonResponse(
			context.getResponseObject() as unknown as MinimalResponse,
			answer.statusCode,
			answer.body,
		);
		return { noWebhookResponse: true };
	}
	const simplify = context.getNodeParameter('simplify', false) as boolean;
	return {
		workflowData: [context.helpers.returnJsonArray(simplify ? simplifyWriteBack(body) : body)],
	};
}
