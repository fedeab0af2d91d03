import {
	NodeConnectionTypes,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
	type IWebhookDescription,
	type IWebhookFunctions,
	type IWebhookResponseData,
} from 'n8n-workflow';

import { idempotencyKeyOf } from '../helpers/dedup';
import { writeJsonResponse, type MinimalResponse } from '../helpers/request';
import { KNOWN_WRITE_BACK_TYPES, simplifyWriteBack } from '../helpers/simplify';
import { writeBackAnswer } from '../helpers/writeBackLedger';
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
import { computedWebhookFields } from '../shared/webhookFields';
import { runLookup, runWriteBack } from './runPhase';

/**
 * Version 2: the webhook call only checks the signature and the event type; the decisions that
 * must hold across n8n processes, restarts and crashed workers are taken in the run (`execute`),
 * from n8n's database, and the service is answered from the run.
 */
export class ContactCenterTriggerV2 implements INodeType {
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
		version: 2,
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
				responseData: 'noData',
				...computedWebhookFields({
					path: (p) => (p.endpoint === 'writeBack' ? 'write-back' : p.endpoint),
					// Lookup and write back are answered from the run (Respond to Lookup, or the
					// trigger's own answer when the run ends); a notification is answered 204 at once.
					responseMode: (p) => (p.endpoint === 'notification' ? 'onReceived' : 'responseNode'),
					// n8n's own answer when a run ends without one: only after a successful run.
					responseCode: (p) =>
						p.endpoint === 'notification'
							? 204
							: p.endpoint === 'lookup'
								? p.ifNoResponse === 'serverError'
									? 500
									: 404
								: 200,
				}),
			} as IWebhookDescription,
		],
		properties: [
			endpointProperty,
			{
				displayName:
					'Paste this node\'s Production URL (see "Webhook URLs" above) into the service as the Lookup URL under Settings -> Integration & APIs -> CRM, put the secret key the service then shows into the signing secret credential, and activate the workflow. Answer each lookup with the Contact Center node\'s "Respond to Lookup" operation; a run that ends without it is answered by "If No Response Is Sent", in one n8n process and in queue mode alike.',
				name: 'lookupNotice',
				type: 'notice',
				default: '',
				displayOptions: { show: { endpoint: ['lookup'] } },
			},
			{
				displayName:
					'Paste this node\'s Production URL (see "Webhook URLs" above) into the service as the Write Back URL under Settings -> Integration & APIs -> CRM, put the secret key the service then shows into the signing secret credential, and activate the workflow. Each delivery runs the workflow once: a redelivery of an event whose run succeeded is answered as a duplicate and runs nothing.',
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
				name: 'respond',
				type: 'options',
				noDataExpression: true,
				displayOptions: { show: { endpoint: ['writeBack'] } },
				options: [
					{
						name: 'After the Workflow Succeeds',
						value: 'afterSuccess',
						description:
							'Answer 200 when the run succeeded; a failed run, or one whose n8n process died, is answered 500 or not at all, so the service delivers the event again (after 1, 2, 4, 8, 16 and 32 hours) and nothing is lost',
					},
					{
						name: 'Immediately',
						value: 'immediately',
						description:
							'Answer 200 as soon as the run starts. Faster, but an event whose run then fails, or whose n8n process dies, is not delivered again.',
					},
				],
				default: 'afterSuccess',
				description: 'When the service gets its answer to a write back delivery',
			},
			simplifyProperty,
		],
	};

	methods = { credentialTest: credentialTestMethods };

	webhookMethods = webhookMethods;

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const endpoint = this.getNodeParameter('endpoint', 'lookup') as Endpoint;
		const signed = await readSignedBody(this);
		if (!signed.ok) return signed.response;
		const body = signed.body;

		if (endpoint === 'writeBack') {
			const type = typeof body.type === 'string' ? body.type : '';
			const events = this.getNodeParameter('events', []) as string[];
			const selected = KNOWN_WRITE_BACK_TYPES.includes(type)
				? events.includes(type)
				: events.includes(OTHER_WRITE_BACK_TYPES);
			if (!selected) {
				const answer = writeBackAnswer('ignored', idempotencyKeyOf(body));
				const res = this.getResponseObject() as unknown as MinimalResponse;
				writeJsonResponse(res, answer.statusCode, answer.body);
				return { noWebhookResponse: true };
			}
			const simplify = this.getNodeParameter('simplify', false) as boolean;
			return {
				workflowData: [this.helpers.returnJsonArray(simplify ? simplifyWriteBack(body) : body)],
			};
		}
		// Lookup (2.9) and notification (2.12) bodies are passed on as sent, whatever their fields.
		return { workflowData: [this.helpers.returnJsonArray(body)] };
	}

	/** Runs first in every run the trigger starts, in whichever n8n process runs it. */
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const endpoint = this.getNodeParameter('endpoint', 0, 'lookup') as Endpoint;
		if (endpoint === 'writeBack') return await runWriteBack(this, items);
		if (endpoint === 'lookup') return runLookup(this, items);
		return [items];
	}
}
