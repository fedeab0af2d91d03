import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { timeZoneNames } from '../../helpers/dateTime';
import { MEDIUM_IDS, MEDIUM_NAMES, type MetricQueryOptions } from '../../helpers/metrics';

/** The mediums by name, sorted; each sends its code (spec 1), which its description and the output's mediumId show. */
export const MEDIUM_OPTIONS: INodeProperties['options'] = [
	{ name: 'All Connected Mediums', value: '', description: 'No medium filter' },
	...MEDIUM_IDS.map((id) => ({
		name: MEDIUM_NAMES[id],
		value: id,
		description: `Sent as mediumId ${id}`,
	})).sort((a, b) => a.name.localeCompare(b.name)),
];

/** Timezone of a grouped metric: empty is the workflow's time zone, read when the node runs. */
export const TIMEZONE_OPTIONS: INodeProperties['options'] = [
	{
		name: 'Workflow Time Zone',
		value: '',
		description: "Set in Workflow settings -> Timezone, else n8n's default",
	},
	...timeZoneNames().map((zone) => ({ name: zone, value: zone })),
];

/** Where a workflow's time zone is set in n8n's editor, as its screens name it. */
export const WORKFLOW_ZONE_SETTING = 'Workflow settings -> Timezone';

export const DEFAULT_FROM = '={{ $now.minus({ hours: 24 }).toISO() }}';

export const fromDescription =
	"Start of the range (inclusive), at most 14 days in the past. The default is 24 hours ago. A date without an offset is read in the workflow's time zone, the one the preview shows; the output gives it in UTC, as fromUtc.";
export const toDescription =
	"End of the range (exclusive for volume, resolved and handle-time metrics). Leave empty to include everything up to now; the output's toUtc then says that moment. A date without an offset is read in the workflow's time zone.";
/** Under the From and To fields: the preview is in the workflow's zone, the output in UTC. */
export const dateZoneHint = (outputField: 'fromUtc' | 'toUtc') =>
	`The preview shows the workflow's time zone; the output's ${outputField} is the same moment in UTC`;
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
	'Which agents Agent Availability counts: those available, or those away. Without a status the service always answers 0.';
export const presenceHint = 'Agent Availability counts the agents with this status';

export const presenceOptions: INodeProperties['options'] = [
	{ name: 'Available', value: 'available', description: 'Count the agents who are available' },
	{ name: 'Away', value: 'away', description: 'Count the agents who are away' },
	{
		name: 'Not Set (Always 0)',
		value: '',
		description: 'Send no status: the service then always answers 0',
	},
];

export const queueStatusDescription =
	'Which conversations the queue metrics (Contacts Waiting, Longest Wait Time) look at: the new ones or the pending ones';
export const queueStatusHint =
	'Contacts Waiting and Longest Wait Time count the conversations with this status';

export const queueStatusOptions: INodeProperties['options'] = [
	{ name: 'New', value: 'new', description: 'Conversations with the status new' },
	{ name: 'Pending', value: 'pending', description: 'Conversations an agent set to pending' },
];

export function metricContext(this: IExecuteFunctions): MetricQueryOptions {
	return { now: Date.now(), workflowTimeZone: this.getTimezone() };
}

/**
 * Which zone Workflow Time Zone was at run time, and where it came from: the workflow's own
 * setting, or n8n's default zone when the workflow sets none (n8n removes a setting left at
 * "Default" when it saves the workflow). The editor cannot say it before a run: a field's texts
 * are static, and a load-options method gets a workflow without its settings.
 */
export function workflowTimeZoneHint(this: IExecuteFunctions): string {
	const zone = this.getTimezone();
	const own = this.getWorkflowSettings().timezone;
	return own !== undefined && own !== 'DEFAULT'
		? `Workflow Time Zone is ${zone}, set in ${WORKFLOW_ZONE_SETTING}`
		: `Workflow Time Zone is ${zone}, n8n's default: the workflow sets none in ${WORKFLOW_ZONE_SETTING}`;
}

/** The metric rows' time columns (UTC), each also in the workflow's zone (fromLocal, ...). */
export const METRIC_TIMES = ['fromUtc', 'toUtc', 'retrievedAtUtc'];
