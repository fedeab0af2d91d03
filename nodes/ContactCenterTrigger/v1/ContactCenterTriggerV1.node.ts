import {
	NodeConnectionTypes,
	type IDataObject,
	type INodeType,
	type INodeTypeDescription,
	type IWebhookFunctions,
	type IWebhookResponseData,
} from 'n8n-workflow';

import { DEDUP_STATIC_KEY, idempotencyKeyOf, idempotencyKeyStoreOf } from '../helpers/dedup';
import { KNOWN_WRITE_BACK_TYPES, simplifyWriteBack } from '../helpers/simplify';
import {
	credentialTestMethods,
	endpointProperty,
	eventsProperty,
	ifNoResponseProperty,
	notificationNotice,
	OTHER_WRITE_BACK_TYPES,
	simplifyProperty,
	triggerDescription,
	type Endpoint,
} from '../shared/description';
import { readSignedBody, webhookMethods } from '../shared/signedRequest';

/**
 * Version 1, kept unchanged for saved workflows: write backs are deduplicated in the webhook call
 * (keys in the n8n process, copied into static data), answered at once or when the run finishes.
 */
export class ContactCenterTriggerV1 implements INodeType {
	description: INodeTypeDescription = {
		// Written out in each version: n8n's lint rules read these fields from the class itself.
		displayName: 'Contact Center Trigger',
		name: 'contactCenterTrigger',
		/* eslint-disable @n8n/community-nodes/icon-validation -- n8n resolves a version's icon
		relative to the main node file (n8n-core DirectoryLoader.fixIconPaths), not to this file */
		icon: {
			light: 'file:../../icons/contactCenter.svg',
			dark: 'file:../../icons/contactCenter.dark.svg',
		},
		/* eslint-enable @n8n/community-nodes/icon-validation */
		group: ['trigger'],
		version: 1,
		subtitle:
			'={{ {"lookup": "Lookup", "writeBack": "Write Back", "notification": "Notification"}[$parameter["endpoint"]] }}',
		description: triggerDescription,
		defaults: {
			name: 'Contact Center Trigger',
		},
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{
				name: 'contactCenterSigningSecretApi',
				required: true,
				testedBy: 'contactCenterSigningSecretTest',
			},
		],
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				path: '={{ $parameter["endpoint"] === "writeBack" ? "write-back" : $parameter["endpoint"] }}',
				// Lookup: wait for the Contact Center node's "Respond to Lookup" (sendResponse).
				// Write back: answer at once, or when the run finishes (a failed run answers 500).
				// Notification: answer at once.
				responseMode:
					'={{ $parameter["endpoint"] === "lookup" ? "responseNode" : ($parameter["endpoint"] === "writeBack" && $parameter["responseTiming"] === "whenFinished" ? "lastNode" : "onReceived") }}',
				// Lookup: the answer when the run ends without a "Respond to Lookup" (e.g. nobody found).
				responseCode:
					'={{ $parameter["endpoint"] === "notification" ? 204 : ($parameter["endpoint"] === "lookup" ? ($parameter["ifNoResponse"] === "serverError" ? 500 : 404) : 200) }}',
				responseData: 'noData',
			},
		],
		properties: [
			endpointProperty,
			{
				displayName:
					'Paste this node\'s Production URL (see "Webhook URLs" above) into the service as the Lookup URL under Settings -> Integration & APIs -> CRM, put the secret key the service then shows into the signing secret credential, and activate the workflow. Answer each lookup with the Contact Center node\'s "Respond to Lookup" operation.',
				name: 'lookupNotice',
				type: 'notice',
				default: '',
				displayOptions: { show: { endpoint: ['lookup'] } },
			},
			{
				displayName:
					'Paste this node\'s Production URL (see "Webhook URLs" above) into the service as the Write Back URL under Settings -> Integration & APIs -> CRM, put the secret key the service then shows into the signing secret credential, and activate the workflow',
				name: 'writeBackNotice',
				type: 'notice',
				default: '',
				displayOptions: { show: { endpoint: ['writeBack'] } },
			},
			notificationNotice,
			ifNoResponseProperty,
			eventsProperty,
			{
				displayName: 'Respond',
				name: 'responseTiming',
				type: 'options',
				noDataExpression: true,
				displayOptions: { show: { endpoint: ['writeBack'] } },
				options: [
					{
						name: 'Immediately',
						value: 'immediately',
						description:
							'Answer 200 as soon as the run has started. The event counts as delivered even if the run fails later.',
					},
					{
						name: 'When the Workflow Finishes',
						value: 'whenFinished',
						description:
							'Answer 200 when the run succeeded and 500 when it failed, so that the service delivers the event again later (after 1, 2, 4, 8, 16 and 32 hours)',
					},
				],
				default: 'immediately',
				description: 'When the service gets its answer to a write back delivery',
			},
			simplifyProperty,
			{
				// n8n's webhook handler (parseRequestBody in packages/cli/src/webhooks/webhook-helpers.ts)
				// leaves the request body unread for a version 1 webhook node whose `options.binaryData` is
				// true. The trigger then reads the raw bytes itself, checks the signature over them and
				// only then parses them, so an unsigned body never reaches a parser and a signed non-JSON
				// body is answered 400 by the trigger. Should n8n parse the body anyway, the trigger still
				// checks the signature over `rawBody`, which n8n keeps.
				displayName: 'Raw Body',
				name: 'options',
				type: 'hidden',
				default: { binaryData: true },
			},
		],
	};

	methods = { credentialTest: credentialTestMethods };

	webhookMethods = webhookMethods;

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const endpoint = this.getNodeParameter('endpoint', 'lookup') as Endpoint;
		const signed = await readSignedBody(this);
		if (!signed.ok) return signed.response;
		if (endpoint === 'writeBack') return handleWriteBack(this, signed.body);
		// Lookup (2.9) and notification (2.12) bodies are passed on as sent, whatever their fields.
		return { workflowData: [this.helpers.returnJsonArray(signed.body)] };
	}
}

function handleWriteBack(context: IWebhookFunctions, body: IDataObject): IWebhookResponseData {
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
