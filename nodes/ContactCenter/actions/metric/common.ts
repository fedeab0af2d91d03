import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { MEDIUM_IDS, type MetricQueryOptions } from '../../helpers/metrics';

export const MEDIUM_OPTIONS = [
	{ name: 'All Connected Mediums', value: '' },
	...MEDIUM_IDS.map((id) => ({ name: id, value: id })),
];

export const DEFAULT_FROM = '={{ $now.minus({ hours: 24 }).toISO() }}';

export const fromDescription =
	'Start of the range (inclusive), at most 14 days in the past. The default is 24 hours ago. A date without an offset is read in the workflow time zone.';
export const toDescription =
	"End of the range (exclusive for volume, resolved and handle-time metrics). Leave empty to include everything up to now; the output's To then says that moment.";
export const channelIdFilter: INodeProperties = {
	displayName: 'Channel ID',
	name: 'channelId',
	type: 'string',
	default: '',
	placeholder: 'e.g. 6f1c2d3e-4a5b-6c7d-8e9f-0a1b2c3d4e5f',
	description:
		'Only count this channel. Channel IDs are given by your service representative (there is no list in the API). Leave empty for all channels.',
};
export const presenceDescription =
	'Which agents to count. Without a status the service always answers 0.';

export const presenceOptions: INodeProperties['options'] = [
	{ name: 'Available', value: 'available' },
	{ name: 'Away', value: 'away' },
	{ name: 'Not Set (Always 0)', value: '' },
];

export const queueStatusOptions: INodeProperties['options'] = [
	{ name: 'New', value: 'new' },
	{ name: 'Pending', value: 'pending' },
];

export function metricContext(this: IExecuteFunctions): MetricQueryOptions {
	return { now: Date.now(), workflowTimeZone: this.getTimezone() };
}
