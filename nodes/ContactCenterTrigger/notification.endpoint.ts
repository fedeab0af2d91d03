import type { INodeProperties } from 'n8n-workflow';

/** The Notification endpoint: the service reports an error (spec 2.12); answered 204 at once. */

export const notificationProperties: INodeProperties[] = [
	{
		displayName:
			'Paste the Production URL into the service as Notification URL; each is answered 204',
		name: 'notificationNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { endpoint: ['notification'] } },
	},
];
