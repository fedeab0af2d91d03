import {
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeProperties,
} from 'n8n-workflow';

import { toUtcIso, withLocalTimes } from '../../helpers/dateTime';
import { processItems } from '../../helpers/items';
import { readMetricResponse } from '../../helpers/metricResponse';
import {
	buildMetricQuery,
	METRIC_KEYS,
	METRICS,
	snapshotColumn,
	type MetricInput,
	type MetricKey,
} from '../../helpers/metrics';
import { toNodeError } from '../../helpers/nodeErrors';
import { contactCenterApiRequest } from '../../transport';
import {
	channelIdFilter,
	dateZoneHint,
	DEFAULT_FROM,
	MEDIUM_OPTIONS,
	metricContext,
	presenceDescription,
	presenceHint,
	presenceOptions,
	queueStatusDescription,
	queueStatusHint,
	queueStatusOptions,
	toDescription,
	METRIC_TIMES,
} from './common';

const show = { show: { resource: ['metric'], operation: ['getSnapshot'] } };

const metricOptions = METRIC_KEYS.map((key) => ({
	name: METRICS[key].name,
	value: key,
	description: METRICS[key].description,
}));

export const description: INodeProperties[] = [
	{
		displayName: 'Metrics',
		name: 'metrics',
		type: 'multiOptions',
		required: true,
		default: [...METRIC_KEYS],
		description:
			'The metrics to read, all in one output item with one column per metric, named by its unit: times in seconds (firstResponseTimeSeconds, handleTimeSeconds, longestWaitTimeSeconds), counts by what they count (inboundMessages, outboundMessages, resolvedWithOneReplyMessages, agents, contactsWaiting). fromUtc, toUtc and retrievedAtUtc are in UTC, fromLocal, toLocal and retrievedAtLocal in the time zone of the workflow. The calls run at the same time.',
		options: metricOptions,
		displayOptions: show,
	},
	{
		displayName: 'From',
		name: 'from',
		type: 'dateTime',
		default: DEFAULT_FROM,
		description:
			"Start of the range for the reporting metrics (at most 14 days in the past; the default is 24 hours ago). Queue metrics and agent availability are always current. A date without an offset is read in the workflow's time zone; the output gives it in UTC, as fromUtc.",
		hint: dateZoneHint('fromUtc'),
		displayOptions: show,
	},
	{
		displayName: 'To',
		name: 'to',
		type: 'dateTime',
		default: '',
		description: toDescription,
		hint: dateZoneHint('toUtc'),
		displayOptions: show,
	},
	{
		displayName: 'Queue Conversation Status',
		name: 'queueStatus',
		type: 'options',
		default: 'new',
		description: `${queueStatusDescription}. The row names it in queueConversationStatus.`,
		hint: queueStatusHint,
		options: queueStatusOptions,
		displayOptions: show,
	},
	{
		displayName: 'User Presence Status',
		name: 'userPresenceStatus',
		type: 'options',
		default: 'available',
		description: `${presenceDescription} The row names it in userPresenceStatus, beside agents`,
		hint: presenceHint,
		options: presenceOptions,
		displayOptions: show,
	},
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		displayOptions: show,
		options: [
			{
				displayName: 'Medium',
				name: 'mediumId',
				type: 'options',
				default: '',
				description: 'Only count this medium. Agent availability has no medium filter.',
				options: MEDIUM_OPTIONS,
			},
			channelIdFilter,
		],
	},
];

/**
 * The statuses that decide what a count means, beside the first column that depends on them:
 * userPresenceStatus after agents, queueConversationStatus after the first queue metric.
 */
function statusColumnsAfter(metric: MetricKey, input: MetricInput, row: IDataObject): IDataObject {
	const takes = METRICS[metric].parameters as Partial<Record<string, string>>;
	if (takes.userPresenceStatus !== undefined && !('userPresenceStatus' in row)) {
		return { userPresenceStatus: String(input.userPresenceStatus ?? '') || 'not set (always 0)' };
	}
	if (takes.status !== undefined && !('queueConversationStatus' in row)) {
		return { queueConversationStatus: String(input.status ?? '') };
	}
	return {};
}

/**
 * Reads several metrics for one time window at once: every call is validated first (so nothing is
 * sent when one parameter is wrong), then all run concurrently. A failing metric fails the item and
 * the error names the metric.
 */
export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	return await processItems.call(this, {
		errorContext: () => ({ operation: 'metric', metricName: 'the snapshot' }),
		run: async (i) => {
			const metrics = this.getNodeParameter('metrics', i, []) as MetricKey[];
			if (metrics.length === 0) {
				throw new NodeOperationError(this.getNode(), "'Metrics' is empty", {
					description: 'Select at least one metric',
					itemIndex: i,
				});
			}
			const filters = this.getNodeParameter('filters', i, {}) as IDataObject;
			const input: MetricInput = {
				from: this.getNodeParameter('from', i, ''),
				to: this.getNodeParameter('to', i, ''),
				status: this.getNodeParameter('queueStatus', i, 'new'),
				userPresenceStatus: this.getNodeParameter('userPresenceStatus', i, ''),
				mediumId: filters.mediumId,
				channelId: filters.channelId,
			};
			const context = metricContext.call(this);
			const queries = metrics.map((metric) => buildMetricQuery(metric, input, context));
			const outcomes = await Promise.all(
				queries.map(
					async (query) =>
						await contactCenterApiRequest.call(this, 'GET', query.path, { qs: query.qs }).then(
							(body) => ({ query, value: readMetricResponse(body).rows[0]?.value ?? null }),
							(error: unknown) => ({ query, error }),
						),
				),
			);
			const failed = outcomes.find((outcome) => 'error' in outcome);
			if (failed && 'error' in failed) {
				throw toNodeError(this.getNode(), failed.error, i, {
					operation: 'metric',
					metricName: METRICS[failed.query.metric].name,
				});
			}
			const retrievedAt = new Date().toISOString();
			const values = outcomes.map((outcome) => ({
				metric: outcome.query.metric,
				value: 'value' in outcome ? outcome.value : null,
			}));
			const window = queries.find((query) => query.window.toMs !== undefined)?.window ?? {};
			const row: IDataObject = {
				fromUtc: toUtcIso(window.fromMs),
				toUtc: toUtcIso(window.toMs),
				retrievedAtUtc: retrievedAt,
			};
			for (const { metric, value } of values) {
				row[snapshotColumn(metric)] = value;
				Object.assign(row, statusColumnsAfter(metric, input, row));
			}
			return withLocalTimes(row, METRIC_TIMES, this.getTimezone());
		},
	});
}
