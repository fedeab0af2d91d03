import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { DEDUP_STATIC_KEY, idempotencyKeyOf, idempotencyKeyStoreOf } from '../helpers/dedup';
import { KNOWN_WRITE_BACK_TYPES, simplifyWriteBack } from '../helpers/simplify';
import { OTHER_WRITE_BACK_TYPES } from '../helpers/description';

/**
 * Write backs of version 1, kept unchanged for saved workflows: deduplicated in the webhook call
 * (keys in the n8n process, copied into static data), answered at once or when the run finishes.
 */
export function handleWriteBackV1(
	context: IWebhookFunctions,
	body: IDataObject,
): IWebhookResponseData {
	const now = Date.now();
	const keys = idempotencyKeyStoreOf(context.getWorkflow().id ?? '', context.getNode().id, now);
	const staticData = context.getWorkflowStaticData('node');
	keys.merge(staticData[DEDUP_STATIC_KEY]);
	keys.prune(now);
	// Written on every write back delivery, whatever its outcome: n8n may save it only on calls
	// that start no run (see helpers/dedup.ts), and then it must hold every key.
	const saveKeys = () => {
		staticData[DEDUP_STATIC_KEY] = keys.toPersisted();
	};

	const type = typeof body.type === 'string' ? body.type : '';
	const events = context.getNodeParameter('events', []) as string[];
	const selected = KNOWN_WRITE_BACK_TYPES.includes(type)
		? events.includes(type)
		: events.includes(OTHER_WRITE_BACK_TYPES);
	if (!selected) {
		saveKeys();
		return {
			webhookResponse: { received: true, ignored: `Write back type "${type}" is not selected` },
		};
	}

	const key = idempotencyKeyOf(body);
	if (key !== undefined) {
		if (keys.lookup(key, now) === 'done') {
			keys.touch(key, now);
			saveKeys();
			return { webhookResponse: { received: true, duplicate: true, idempotencyKey: key } };
		}
		const timing = context.getNodeParameter('responseTiming', 'immediately') as string;
		keys.record(key, timing === 'whenFinished' ? 'pending' : 'done', now);
	}
	saveKeys();

	const simplify = context.getNodeParameter('simplify', false) as boolean;
	const json = simplify ? simplifyWriteBack(body) : body;
	return { workflowData: [context.helpers.returnJsonArray(json)] };
}
