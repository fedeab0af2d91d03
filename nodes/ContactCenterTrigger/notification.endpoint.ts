import type { INodeProperties } from 'n8n-workflow';

/** The Notification endpoint: the service reports an error (spec 2.12); answered 204 at once. */

export const notificationProperties: INodeProperties[] = [
	{
		displayName:
			'Paste this node\'s Production URL (see "Webhook URLs" above) into the service as the Notification URL under Settings -> Integration & APIs -> CRM and activate the workflow. Every notification is answered 204 (no content).',
		name: 'notificationNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { endpoint: ['notification'] } },
	},
];
