import {
	NodeConnectionTypes,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';

import { RECORD_CREDENTIAL } from '../shared/record';
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
		version: [1, 2],
		defaultVersion: 2,
		subtitle:
			'={{ {"proactiveMessage:send": "Send Message", "proactiveMessage:getStatus": "Get Message Status", "proactiveMessage:getFailed": "Get Failed Messages", "metric:get": "Get Metric", "metric:getSnapshot": "Get Metric Snapshot", "crmLookup:respond": "Respond to Lookup"}[$parameter["resource"] + ":" + $parameter["operation"]] }}',
		description:
			'Send SMS and WhatsApp messages, read their delivery statuses, read real-time contact-center metrics and answer CRM lookups',
		defaults: { name: 'Contact Center' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{
				name: 'contactCenterOAuth2Api',
				required: true,
				// Respond to Lookup answers n8n's pending webhook request and calls no API.
				displayOptions: { hide: { resource: ['crmLookup'] } },
			},
			{
				name: RECORD_CREDENTIAL,
				required: true,
				displayOptions: {
					show: {
						'@version': [2],
						resource: ['proactiveMessage'],
						operation: ['send'],
						sendOnce: ['message', 'customKey'],
					},
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

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
