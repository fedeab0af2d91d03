import {
	NodeConnectionTypes,
	type IExecuteFunctions,
	type IHookFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
	type IWebhookDescription,
	type IWebhookFunctions,
	type IWebhookResponseData,
} from 'n8n-workflow';

import { testRecordCredential } from '../shared/recordApi';
import { credentialTestMethods, endpointProperty, type Endpoint } from './description';
import { lookupProperties, runLookup } from './lookup.endpoint';
import { notificationProperties } from './notification.endpoint';
import { failWithReport, refuse, reportCallOf, reportKeptInMemory, reportOf } from './reports';
import { checkSigningSecret, readSignedBody } from './signedRequest';
import { startSampleCall, testEventProperties } from './sampleCall';
import { computedWebhookFields } from './webhookFields';
import {
	activateWriteBack,
	deactivateWriteBack,
	receiveWriteBack,
	runWriteBack,
	writeBackProperties,
} from './writeBack.endpoint';

/** How to make a test event: the service cannot be pointed at a Test URL for a moment, a signed call can. */
const TEST_HELP =
	"<b>To try it now</b>, set <b>Test Event</b> to <b>Signed Sample Call</b> and click <b>Execute step</b>: within seconds n8n calls the <b>Test URL</b> with a sample call signed with the credential's secret, as the service would, and the run shows here (a lookup's answer is said under the trigger's output, or is the output of Respond to Lookup). <b>To test with the service's own call</b>, leave Test Event at The Service's Call, click Execute step and call the Test URL (open <b>Webhook URLs</b> above the parameters) with a signed body.<br /><br /><b>Once you're happy with your workflow</b>, publish it and paste the <b>Production URL</b> into the service. Only its signed calls then run the workflow; they show in the <a data-key=\"executions\">executions list</a>, not in the editor.";

export class ContactCenterTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Contact Center Trigger',
		name: 'contactCenterTrigger',
		icon: {
			light: 'file:../../icons/contactCenter.svg',
			dark: 'file:../../icons/contactCenter.dark.svg',
		},
		group: ['trigger'],
		// Not 1: for every call to a webhook start node at typeVersion 1, n8n's `parseRequestBody`
		// evaluates `$parameter["options"]["binaryData"]`, an option of its legacy Webhook node 1,
		// which takes an isolate per call with N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true. 1.1, as n8n's
		// own Webhook node went from 1 to 1.1.
		version: 1.1,
		subtitle:
			'={{ {"lookup": "Lookup", "writeBack": "Write Back", "notification": "Notification"}[$parameter["endpoint"]] }}',
		// n8n's nodes panel shows this text for the action node and its trigger together.
		description:
			'Send SMS and WhatsApp messages, read real-time metrics, and start workflows from contact center CRM calls (lookups, conversation write backs, notifications)',
		defaults: {
			name: 'Contact Center Trigger',
		},
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		// n8n's listening screen ("Listening for test event") shows none of these texts and no URL;
		// they show before it, under "When will this node trigger my flow?".
		triggerPanel: {
			header: 'Set Test Event to Signed Sample Call, then click Execute step',
			executionsHelp: {
				inactive: TEST_HELP,
				active: TEST_HELP,
			},
		},
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
				displayOptions: { show: { endpoint: ['writeBack'] } },
			},
		],
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				responseData: 'noData',
				...computedWebhookFields({
					path: (p) => (p.endpoint === 'writeBack' ? 'write-back' : p.endpoint),
					// Lookups and write backs are answered from the run (Respond to Lookup, or the
					// trigger's own answer when the run ends); notifications 204 at once.
					responseMode: (p) => (p.endpoint === 'notification' ? 'onReceived' : 'responseNode'),
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
			...lookupProperties,
			...writeBackProperties,
			...notificationProperties,
			...testEventProperties,
		],
	};

	methods = {
		credentialTest: { ...credentialTestMethods, contactCenterRecordApiTest: testRecordCredential },
	};

	/**
	 * The service has no API to register URLs: the user pastes the URL into its settings, so nothing
	 * is checked, created or deleted remotely. Activation checks the signing secret, and for a
	 * write back the record.
	 */
	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				await checkSigningSecret(this);
				const endpoint = this.getNodeParameter('endpoint', 'lookup') as Endpoint;
				if (endpoint === 'writeBack') await activateWriteBack(this);
				await startSampleCall(this, endpoint);
				return true;
			},
			async create(this: IHookFunctions): Promise<boolean> {
				return true;
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				deactivateWriteBack(this);
				return true;
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const endpoint = this.getNodeParameter('endpoint', 'lookup') as Endpoint;
		const signed = await readSignedBody(this);
		if (!signed.ok) return refuse(this, endpoint, signed.refusal);
		if (endpoint === 'writeBack') {
			const reportCall = reportCallOf(this, signed);
			if (reportCall !== undefined) return reportKeptInMemory(this, reportCall);
			return await receiveWriteBack(this, signed.body);
		}
		// Lookup (2.9) and notification (2.12) bodies are passed on as sent, whatever their fields.
		return { workflowData: [this.helpers.returnJsonArray(signed.body)] };
	}

	/** Runs first in every run the trigger starts, in whichever n8n process runs it. */
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const report = reportOf(items);
		if (report !== undefined) failWithReport(this, report);
		const endpoint = this.getNodeParameter('endpoint', 0, 'lookup') as Endpoint;
		if (endpoint === 'writeBack') return await runWriteBack(this, items);
		if (endpoint === 'lookup') return runLookup(this, items);
		return [items];
	}
}
