import type { INodeProperties } from 'n8n-workflow';

import * as respond from './respond.operation';

export { respond };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['crmLookup'] } },
		options: [
			{
				name: 'Respond to Lookup',
				value: 'respond',
				description: 'Answer the lookup that started this workflow: 200 or 404',
				action: 'Respond to CRM lookup',
			},
		],
		default: 'respond',
	},
	...respond.description,
];
