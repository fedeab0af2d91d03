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

import {
	credentialTestMethods,
	endpointProperty,
	eventsProperty,
	ifNoResponseProperty,
	notificationNotice,
	simplifyProperty,
	type Endpoint,
} from './helpers/description';
import { readSignedBody, webhookMethods } from './helpers/signedRequest';
import { computedWebhookFields } from './helpers/webhookFields';
import { handleWriteBackV1 } from './v1/webhookPhase';
import { testRecordCredential } from '../shared/record/credentialTest';
import { runLookup, runWriteBack } from './v2/runPhase';
import { handleWriteBackV2 } from './v2/webhookPhase';
import { runWriteBackV3 } from './v3/runPhase';
import { handleWriteBackV3 } from './v3/webhookPhase';

const version1 = { '@version': [1] };
const version2 = { '@version': [{ _cnd: { gte: 2 } }] };
const onlyVersion2 = { '@version': [2] };
const version3 = { '@version': [{ _cnd: { gte: 3 } }] };

/**
 * Version 3 (new nodes): write backs are claimed and recorded in the durable record (an n8n data
 * table reached through n8n's API, one row per claim), shared by every n8n process; lookups as in
 * version 2. Version 2 kept for saved workflows: what must hold across processes is decided in the
 * run from workflow static data and processed_data; the service is answered from the run.
 * Version 1 kept unchanged: write backs deduplicated in the webhook call, the run a pass-through.
 */
export class ContactCenterTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Contact Center Trigger',
		name: 'contactCenterTrigger',
		icon: {
			light: 'file:../../icons/contactCenter.svg',
			dark: 'file:../../icons/contactCenter.dark.svg',
		},
		group: ['trigger'],
		version: [1, 2, 3],
		defaultVersion: 3,
		subtitle:
			'={{ {"lookup": "Lookup", "writeBack": "Write Back", "notification": "Notification"}[$parameter["endpoint"]] }}',
		// n8n's nodes panel shows this text for the action node and its trigger together.
		description:
			'Start workflows from contact center CRM calls (lookups, conversation write backs, notifications); send SMS and WhatsApp messages and read metrics with the Contact Center node',
		defaults: {
			name: 'Contact Center Trigger',
		},
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{
				name: 'contactCenterSigningSecretApi',
				displayName: 'Contact Center Signing Secret API',
				required: true,
				testedBy: 'contactCenterSigningSecretTest',
			},
			{
				// Literal names: n8n's linter reads them from the source to check that the credential is tested.
				name: 'contactCenterRecordApi',
				displayName: 'Contact Center Record API',
				required: true,
				testedBy: 'contactCenterRecordApiTest',
				displayOptions: { show: { endpoint: ['writeBack'], '@version': [3] } },
			},
		],
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				responseData: 'noData',
				// Only version 2 has `respond`, only version 1 `responseTiming`: each field tells the
				// versions apart by the parameters n8n fills in for the node's version.
				...computedWebhookFields({
					path: (p) => (p.endpoint === 'writeBack' ? 'write-back' : p.endpoint),
					// Version 2 answers lookups and write backs from the run (Respond to Lookup, or the
					// trigger's own answer when the run ends); version 1 write backs at once or when the
					// run finishes. Notifications are answered 204 at once.
					responseMode: (p) =>
						p.endpoint === 'notification'
							? 'onReceived'
							: p.endpoint === 'lookup' || p.respond !== undefined
								? 'responseNode'
								: p.responseTiming === 'whenFinished'
									? 'lastNode'
									: 'onReceived',
					// n8n's own answer when a run ends without one (after a successful run only).
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
					'Paste this node\'s Production URL (see "Webhook URLs" above) into the service as the Lookup URL under Settings -> Integration & APIs -> CRM, put the secret key the service then shows into the signing secret credential, and activate the workflow. Answer each lookup with the Contact Center node\'s "Respond to Lookup" operation.',
				name: 'lookupNotice',
				type: 'notice',
				default: '',
				displayOptions: { show: { endpoint: ['lookup'], ...version1 } },
			},
			{
				displayName:
					'Paste this node\'s Production URL (see "Webhook URLs" above) into the service as the Lookup URL under Settings -> Integration & APIs -> CRM, put the secret key the service then shows into the signing secret credential, and activate the workflow. Answer each lookup with the Contact Center node\'s "Respond to Lookup" operation; a run that ends without it is answered by "If No Response Is Sent", in one n8n process and in queue mode alike.',
				name: 'lookupNoticeV2',
				type: 'notice',
				default: '',
				displayOptions: { show: { endpoint: ['lookup'], ...version2 } },
			},
			{
				displayName:
					'Paste this node\'s Production URL (see "Webhook URLs" above) into the service as the Write Back URL under Settings -> Integration & APIs -> CRM, put the secret key the service then shows into the signing secret credential, and activate the workflow',
				name: 'writeBackNotice',
				type: 'notice',
				default: '',
				displayOptions: { show: { endpoint: ['writeBack'], ...version1 } },
			},
			{
				displayName:
					'Paste this node\'s Production URL (see "Webhook URLs" above) into the service as the Write Back URL under Settings -> Integration & APIs -> CRM, put the secret key the service then shows into the signing secret credential, and activate the workflow. Each delivery runs the workflow once: a redelivery of an event whose run succeeded is answered as a duplicate and runs nothing.',
				name: 'writeBackNoticeV2',
				type: 'notice',
				default: '',
				displayOptions: { show: { endpoint: ['writeBack'], ...onlyVersion2 } },
			},
			{
				displayName:
					'Paste this node\'s Production URL (see "Webhook URLs" above) into the service as the Write Back URL under Settings -> Integration & APIs -> CRM, put the secret key the service then shows into the signing secret credential, and activate the workflow. Each delivery runs the workflow once: the processed keys are kept in an n8n data table through n8n\'s API, so also select a "Contact Center Record API" credential (an n8n API key of this instance; its data table is created when first needed). A redelivery of a processed event is answered as a duplicate and runs nothing.',
				name: 'writeBackNoticeV3',
				type: 'notice',
				default: '',
				displayOptions: { show: { endpoint: ['writeBack'], ...version3 } },
			},
			notificationNotice,
			ifNoResponseProperty,
			eventsProperty,
			{
				displayName: 'Respond',
				name: 'responseTiming',
				type: 'options',
				noDataExpression: true,
				displayOptions: { show: { endpoint: ['writeBack'], ...version1 } },
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
			{
				displayName: 'Respond',
				name: 'respond',
				type: 'options',
				noDataExpression: true,
				displayOptions: { show: { endpoint: ['writeBack'], ...version2 } },
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
			{
				// n8n's webhook handler (parseRequestBody in packages/cli/src/webhooks/webhook-helpers.ts)
				// leaves the request body unread for a version 1 webhook node whose `options.binaryData`
				// is true: the trigger then reads the raw bytes itself and checks the signature before
				// anything parses them. From version 2 n8n parses JSON itself and keeps `rawBody`, over
				// which the trigger checks the signature before it uses the body.
				displayName: 'Raw Body',
				name: 'options',
				type: 'hidden',
				default: { binaryData: true },
			},
		],
	};

	methods = {
		credentialTest: { ...credentialTestMethods, contactCenterRecordApiTest: testRecordCredential },
	};

	webhookMethods = webhookMethods;

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const endpoint = this.getNodeParameter('endpoint', 'lookup') as Endpoint;
		const signed = await readSignedBody(this);
		if (!signed.ok) return signed.response;
		if (endpoint === 'writeBack') {
			const version = this.getNode().typeVersion;
			if (version === 1) return handleWriteBackV1(this, signed.body);
			if (version === 2) return handleWriteBackV2(this, signed.body);
			return await handleWriteBackV3(this, signed.body);
		}
		// Lookup (2.9) and notification (2.12) bodies are passed on as sent, whatever their fields.
		return { workflowData: [this.helpers.returnJsonArray(signed.body)] };
	}

	/** Runs first in every run the trigger starts, in whichever n8n process runs it. */
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		if (this.getNode().typeVersion === 1) return [items];
		const endpoint = this.getNodeParameter('endpoint', 0, 'lookup') as Endpoint;
		if (endpoint === 'writeBack') {
			return this.getNode().typeVersion === 2
				? await runWriteBack(this, items)
				: await runWriteBackV3(this, items);
		}
		if (endpoint === 'lookup') return runLookup(this, items);
		return [items];
	}
}
