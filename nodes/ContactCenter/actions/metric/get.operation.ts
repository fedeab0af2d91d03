import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

import { toUtcIso, withLocalTimes } from '../../helpers/dateTime';
import { processItems } from '../../helpers/items';
import { intervalRow, readMetricResponse } from '../../helpers/metricResponse';
import {
	buildMetricQuery,
	GROUP_BY_INTERVALS,
	METRIC_KEYS,
	METRICS,
	metricsTaking,
	type MetricInput,
	type MetricKey,
	type MetricParameter,
	type MetricQuery,
} from '../../helpers/metrics';
import { contactCenterApiRequest } from '../../transport';
import {
	channelIdFilter,
	dateZoneHint,
	DEFAULT_FROM,
	fromDescription,
	MEDIUM_OPTIONS,
	metricContext,
	TIMEZONE_OPTIONS,
	presenceDescription,
	presenceHint,
	presenceOptions,
	queueStatusDescription,
	queueStatusHint,
	queueStatusOptions,
	toDescription,
	WORKFLOW_ZONE_SETTING,
	workflowTimeZoneHint,
	METRIC_TIMES,
} from './common';

const showFor = (metrics: MetricKey[]) => ({
	show: { resource: ['metric'], operation: ['get'], metric: metrics },
});

export const description: INodeProperties[] = [
	{
		displayName: 'Metric',
		name: 'metric',
		type: 'options',
		noDataExpression: true,
		required: true,
		default: 'inboundMessageVolume',
		description:
			'The real-time dashboard metric to read. Each output item names its unit: seconds for the times; messages, agents or contacts for the counts. Switching to a metric that does not take a field (Grouping, Medium, From) clears that field.',
		options: METRIC_KEYS.map((key) => ({
			name: METRICS[key].name,
			value: key,
			description: METRICS[key].description,
		})),
		displayOptions: { show: { resource: ['metric'], operation: ['get'] } },
	},
	{
		displayName: 'From',
		name: 'from',
		type: 'dateTime',
		required: true,
		default: DEFAULT_FROM,
		description: fromDescription,
		hint: dateZoneHint('fromUtc'),
		displayOptions: showFor(metricsTaking('from', 'required')),
	},
	{
		displayName: 'From',
		name: 'from',
		type: 'dateTime',
		default: '',
		description:
			"Start of the range (inclusive). Leave empty to count the messages of the last 5 days. A date without an offset is read in the workflow's time zone; the output gives it in UTC, as fromUtc.",
		hint: dateZoneHint('fromUtc'),
		displayOptions: showFor(metricsTaking('from', 'optional')),
	},
	{
		displayName: 'To',
		name: 'to',
		type: 'dateTime',
		default: '',
		description: toDescription,
		hint: dateZoneHint('toUtc'),
		displayOptions: showFor(metricsTaking('to')),
	},
	{
		displayName: 'Conversation Status',
		name: 'status',
		type: 'options',
		required: true,
		default: 'new',
		description: queueStatusDescription,
		hint: queueStatusHint,
		options: queueStatusOptions,
		displayOptions: showFor(metricsTaking('status')),
	},
	{
		displayName: 'User Presence Status',
		name: 'userPresenceStatus',
		type: 'options',
		default: 'available',
		description: presenceDescription,
		hint: presenceHint,
		options: presenceOptions,
		displayOptions: showFor(metricsTaking('userPresenceStatus')),
	},
	{
		displayName: 'Without a User Presence Status the service always answers 0',
		name: 'presenceNotice',
		type: 'notice',
		default: '',
		displayOptions: {
			show: { ...showFor(metricsTaking('userPresenceStatus')).show, userPresenceStatus: [''] },
		},
	},
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		displayOptions: showFor(metricsTaking('channelId')),
		options: [
			{
				displayName: 'Medium',
				name: 'mediumId',
				type: 'options',
				default: '',
				description: 'Only count this medium',
				options: MEDIUM_OPTIONS,
				displayOptions: { show: { '/metric': metricsTaking('mediumId') } },
			},
			channelIdFilter,
		],
	},
	{
		// One set for every metric that takes grouping: n8n's editor keeps it when the Metric changes
		// between them, and clears it (as any field hidden by the new values) for the others.
		displayName: 'Grouping',
		name: 'grouping',
		type: 'collection',
		placeholder: 'Add Grouping',
		default: {},
		displayOptions: showFor(metricsTaking('groupByInterval')),
		options: [
			{
				displayName: 'Group By Interval',
				name: 'groupByInterval',
				type: 'options',
				default: 'hour',
				description:
					'Return one count per interval instead of the total. At most 60 intervals: grouped by minute the range can be at most 1 hour. Each interval becomes its own output item.',
				hint: `Intervals start in the workflow's time zone (${WORKFLOW_ZONE_SETTING}) unless you add a Timezone`,
				options: [
					{ name: 'Minute', value: 'minute' },
					{ name: 'Hour', value: 'hour' },
					{ name: 'Day', value: 'day' },
				],
			},
			{
				displayName: 'Timezone',
				name: 'timezone',
				type: 'options',
				default: '',
				description: `The time zone the service counts the intervals in (a day from that zone's midnight). Workflow Time Zone is the zone set in ${WORKFLOW_ZONE_SETTING} (the workflow's menu -> Settings), else n8n's default zone. Each output item names the zone in its timezone column and gives its interval's start in it, as timestampInTimezone.`,
				hint: 'Each output item names the zone used in its timezone column',
				options: TIMEZONE_OPTIONS,
				// Without an interval the service counts a total, which no time zone changes: offered
				// only once Group By Interval is added.
				displayOptions: { show: { groupByInterval: Object.keys(GROUP_BY_INTERVALS) } },
			},
		],
	},
];

/** Reads exactly the parameters the metric's endpoint takes. */
export function readMetricInput(
	this: IExecuteFunctions,
	metric: MetricKey,
	i: number,
): MetricInput {
	const takes = (parameter: MetricParameter) =>
		(METRICS[metric].parameters as Partial<Record<MetricParameter, string>>)[parameter] !==
		undefined;
	const filters = takes('channelId')
		? (this.getNodeParameter('filters', i, {}) as IDataObject)
		: {};
	const grouping = takes('groupByInterval')
		? (this.getNodeParameter('grouping', i, {}) as IDataObject)
		: {};
	return {
		...(takes('from') ? { from: this.getNodeParameter('from', i, '') } : {}),
		...(takes('to') ? { to: this.getNodeParameter('to', i, '') } : {}),
		...(takes('status') ? { status: this.getNodeParameter('status', i, '') } : {}),
		...(takes('userPresenceStatus')
			? { userPresenceStatus: this.getNodeParameter('userPresenceStatus', i, '') }
			: {}),
		mediumId: filters.mediumId,
		channelId: filters.channelId,
		groupByInterval: grouping.groupByInterval,
		// Grouped without a Timezone (or with Workflow Time Zone): the workflow's, not the service's UTC.
		timezone:
			grouping.groupByInterval === undefined ? undefined : grouping.timezone || this.getTimezone(),
	};
}

/**
 * Under the output of a metric grouped in Workflow Time Zone: which zone that was, and where it
 * is set. (A Timezone without Group By Interval never reaches the node: n8n drops a parameter its
 * displayOptions hide when it builds the workflow to run, as the editor does when a field changes.)
 */
function zoneHintOf(this: IExecuteFunctions, metric: MetricKey, i: number): string | undefined {
	if (!metricsTaking('groupByInterval').includes(metric)) return undefined;
	const grouping = this.getNodeParameter('grouping', i, {}) as IDataObject;
	if (grouping.groupByInterval === undefined) return undefined;
	const chosen = typeof grouping.timezone === 'string' && grouping.timezone.trim() !== '';
	return chosen ? undefined : workflowTimeZoneHint.call(this);
}

/**
 * One row of an ungrouped metric: the parameters as sent, From and To as fromUtc and toUtc, the
 * queue metrics' status as queueConversationStatus (its name in Get Snapshot too).
 */
function totalRow(metric: MetricKey, query: MetricQuery, value: IDataObject): IDataObject {
	const row: IDataObject = { metric, value: null, unit: METRICS[metric].unit };
	for (const parameter of Object.keys(METRICS[metric].parameters) as MetricParameter[]) {
		if (parameter === 'groupByInterval' || parameter === 'timezone') continue;
		const sent = query.qs[parameter] ?? null;
		if (parameter === 'from') row.fromUtc = toUtcIso(query.window.fromMs);
		else if (parameter === 'to') row.toUtc = toUtcIso(query.window.toMs);
		else if (parameter === 'status') row.queueConversationStatus = sent;
		else row[parameter] = sent;
	}
	return { ...row, ...value };
}

export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	const metricOf = (i: number) => this.getNodeParameter('metric', i) as MetricKey;
	const hints = new Set<string>();
	const output = await processItems.call(this, {
		errorContext: (i) => ({
			operation: 'metric',
			metricName: METRICS[metricOf(i)]?.name ?? metricOf(i),
		}),
		failedItemFields: (i) => ({ metric: metricOf(i) }),
		run: async (i) => {
			const metric = metricOf(i);
			const hint = zoneHintOf.call(this, metric, i);
			if (hint !== undefined) hints.add(hint);
			const query = buildMetricQuery(
				metric,
				readMetricInput.call(this, metric, i),
				metricContext.call(this),
			);
			const body = await contactCenterApiRequest.call(this, 'GET', query.path, { qs: query.qs });
			const reading = readMetricResponse(body);
			const unrecognized =
				reading.unrecognizedResponse !== undefined
					? { unrecognizedResponse: reading.unrecognizedResponse }
					: {};
			const retrievedAt = new Date().toISOString();
			if (query.qs.groupByInterval !== undefined && reading.unrecognizedResponse === undefined) {
				return reading.rows.map((bucket) =>
					intervalRow(bucket, {
						metric,
						unit: METRICS[metric].unit,
						timeZone: query.qs.timezone ?? 'UTC',
						workflowTimeZone: this.getTimezone(),
						filters: { mediumId: query.qs.mediumId, channelId: query.qs.channelId },
					}),
				);
			}
			return reading.rows.map((row) =>
				withLocalTimes(
					{ ...totalRow(metric, query, row), retrievedAtUtc: retrievedAt, ...unrecognized },
					METRIC_TIMES,
					this.getTimezone(),
				),
			);
		},
	});
	for (const message of hints) this.addExecutionHints({ message, location: 'outputPane' });
	return output;
}
