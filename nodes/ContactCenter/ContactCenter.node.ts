import {
	NodeConnectionTypes,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';

import { testRecordCredential } from '../shared/recordApi';
import * as crmLookup from './actions/crmLookup';
import * as metric from './actions/metric';
import * as proactiveMessage from './actions/proactiveMessage';
import { router } from './actions/router';

export class ContactCenter implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Contact Center',
		name: 'contactCenter',
		icon: {
			light: 'file:../../icons/contactCenter.svg',
			dark: 'file:../../icons/contactCenter.dark.svg',
		},
		group: ['output'],
		version: 1,
		// n8n names a node added from the panel after its action ("Send message"), so the subtitle says
		// what that name does not: the medium, the metric, the number of metrics, the answer. Every
		// branch of the object is evaluated, so none may throw.
		subtitle:
			'={{ ({"proactiveMessage:send": {"MESSAGEBIRD": "SMS via MessageBird", "TWILIO": "SMS via Twilio", "WHATSAPP": "WhatsApp"}[$parameter["medium"]], "proactiveMessage:getStatus": "Received or not, per contact", "proactiveMessage:getFailed": "Contact and reason of each", "proactiveMessage:getDeliveryReport": {"perContact": "Received or not, with reason", "summary": "Who got it, in one item"}[$parameter["output"]], "metric:get": {"inboundMessageVolume": "Inbound Message Volume", "outboundMessageVolume": "Outbound Message Volume", "firstResponseTime": "First Response Time", "resolvedWithOneReply": "Resolved With One Reply", "handleTime": "Handle Time", "agentAvailability": "Agent Availability", "contactsWaiting": "Contacts Waiting", "longestWaitTime": "Longest Wait Time"}[$parameter["metric"]], "metric:getSnapshot": (($parameter["metrics"] || []).length === 1 ? "1 metric" : ($parameter["metrics"] || []).length + " metrics") + " in one row", "crmLookup:respond": {"found": "Found: 200", "notFound": "Not found: 404"}[$parameter["respondWith"]]})[$parameter["resource"] + ":" + $parameter["operation"]] }}',
		description:
			'Send SMS and WhatsApp messages, read their delivery statuses, read real-time contact-center metrics and answer CRM lookups',
		defaults: { name: 'Contact Center' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{
				name: 'contactCenterOAuth2Api',
				// The label in the node and in n8n's "Missing required credential" message.
				displayName: 'Contact Center OAuth2 API',
				required: true,
				// Respond to Lookup answers n8n's pending webhook request and calls no API.
				displayOptions: { hide: { resource: ['crmLookup'] } },
			},
			{
				// Literal names: n8n's linter reads them from the source to check that the credential is tested.
				name: 'contactCenterRecordApi',
				displayName: 'Contact Center Record API',
				required: true,
				testedBy: 'contactCenterRecordApiTest',
				// n8n's editor (2.41.1, ParameterInputList) puts the credential fields right before the last
				// parameter named under a credential's `show`: Send Once goes under `hide`, so that Send's
				// fields sit between Resource and Operation like every other operation's, not below Metadata.
				displayOptions: {
					show: { resource: ['proactiveMessage'], operation: ['send'] },
					hide: { sendOnce: ['off'], sendOnceStore: ['n8n'] },
				},
			},
		],
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: [
					{
						name: 'Proactive Message',
						value: 'proactiveMessage',
						description: 'Messages sent to contacts on your initiative',
					},
					{ name: 'Metric', value: 'metric', description: 'Real-time dashboard metrics' },
					{
						name: 'CRM Lookup',
						value: 'crmLookup',
						description: 'Answer a lookup received by the Contact Center Trigger',
					},
				],
				default: 'proactiveMessage',
			},
			...proactiveMessage.description,
			...metric.description,
			...crmLookup.description,
		],
	};

	methods = { credentialTest: { contactCenterRecordApiTest: testRecordCredential } };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
