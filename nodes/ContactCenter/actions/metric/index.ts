import type { INodeProperties } from 'n8n-workflow';

import * as get from './get.operation';
import * as getSnapshot from './getSnapshot.operation';

export { get, getSnapshot };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['metric'] } },
		options: [
			{
				name: 'Get',
				value: 'get',
				description: 'Read one real-time metric',
				action: 'Get metric',
			},
			{
				name: 'Get Snapshot',
				value: 'getSnapshot',
				description: 'Read several metrics for one time window in one item',
				action: 'Get metric snapshot',
			},
		],
		default: 'get',
	},
	...get.description,
	...getSnapshot.description,
];
