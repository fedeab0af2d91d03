import type { INodeProperties } from 'n8n-workflow';

import * as getDeliveryReport from './getDeliveryReport.operation';
import * as getFailed from './getFailed.operation';
import * as getStatus from './getStatus.operation';
import * as send from './send/send.operation';

export { getDeliveryReport, getFailed, getStatus, send };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['proactiveMessage'] } },
		options: [
			{
				name: 'Send',
				value: 'send',
				description: 'Send an SMS or WhatsApp message to a contact',
				action: 'Send message',
			},
			{
				name: 'Get Status',
				value: 'getStatus',
				description: 'Who got the message, who did not, who is unconfirmed',
				action: 'Get message status',
			},
			{
				name: 'Get Failed',
				value: 'getFailed',
				description: 'Each undelivered message, with its contact and reason',
				action: 'Get failed messages',
			},
			{
				name: 'Get Delivery Report',
				value: 'getDeliveryReport',
				description: 'Per contact with reason, or a summary naming who got it',
				action: 'Get delivery report',
			},
		],
		default: 'send',
	},
	...send.description,
	...getStatus.description,
	...getFailed.description,
	...getDeliveryReport.description,
];
