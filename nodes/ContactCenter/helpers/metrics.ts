import { isValidTimeZone, toInstant, type Instant } from './dateTime';

export type MetricParameter =
	| 'from'
	| 'to'
	| 'mediumId'
	| 'channelId'
	| 'groupByInterval'
	| 'timezone'
	| 'userPresenceStatus'
	| 'status';

type Requirement = 'required' | 'optional';

/** What a metric's value counts or measures (spec 4.5): times are in seconds. */
export type MetricUnit = 'seconds' | 'messages' | 'agents' | 'contacts';

export interface MetricDefinition {
	name: string;
	path: string;
	description: string;
	unit: MetricUnit;
	/** Its column in a snapshot row: named by what the value counts, or `...Seconds` for a time. */
	snapshotColumn: string;
	parameters: Partial<Record<MetricParameter, Requirement>>;
}

const VOLUME_PARAMETERS: MetricDefinition['parameters'] = {
	from: 'required',
	to: 'optional',
	mediumId: 'optional',
	channelId: 'optional',
	groupByInterval: 'optional',
	timezone: 'optional',
};

/** The eight metric endpoints of spec 4.5 with exactly the query parameters each one takes. */
export const METRICS = {
	inboundMessageVolume: {
		name: 'Inbound Message Volume',
		path: '/reporting-metrics/inbound-message-volume',
		description: 'Number of inbound messages',
		unit: 'messages',
		snapshotColumn: 'inboundMessages',
		parameters: VOLUME_PARAMETERS,
	},
	outboundMessageVolume: {
		name: 'Outbound Message Volume',
		path: '/reporting-metrics/outbound-message-volume',
		description: 'Number of outbound messages',
		unit: 'messages',
		snapshotColumn: 'outboundMessages',
		parameters: VOLUME_PARAMETERS,
	},
	firstResponseTime: {
		name: 'First Response Time',
		path: '/reporting-metrics/first-response-time',
		description: 'Average seconds to the first reply to an inbound message',
		unit: 'seconds',
		snapshotColumn: 'firstResponseTimeSeconds',
		parameters: { from: 'required', to: 'optional', mediumId: 'optional', channelId: 'optional' },
	},
	resolvedWithOneReply: {
		name: 'Resolved With One Reply',
		path: '/reporting-metrics/resolved-with-one-reply',
		description: 'Number of messages resolved with at least one reply',
		unit: 'messages',
		snapshotColumn: 'resolvedWithOneReplyMessages',
		parameters: { from: 'optional', to: 'optional', mediumId: 'optional', channelId: 'optional' },
	},
	handleTime: {
		name: 'Handle Time',
		path: '/reporting-metrics/handle-time',
		description: 'Average seconds an agent handles a conversation',
		unit: 'seconds',
		snapshotColumn: 'handleTimeSeconds',
		parameters: { from: 'required', to: 'optional', mediumId: 'optional', channelId: 'optional' },
	},
	agentAvailability: {
		name: 'Agent Availability',
		path: '/reporting-metrics/agent-availability',
		description: 'Number of agents in the chosen User Presence Status',
		unit: 'agents',
		snapshotColumn: 'agents',
		parameters: { channelId: 'optional', userPresenceStatus: 'optional' },
	},
	contactsWaiting: {
		name: 'Contacts Waiting',
		path: '/queue-metrics/contacts-waiting',
		description: 'Number of contacts waiting in the queue for a response',
		unit: 'contacts',
		snapshotColumn: 'contactsWaiting',
		parameters: { mediumId: 'optional', channelId: 'optional', status: 'required' },
	},
	longestWaitTime: {
		name: 'Longest Wait Time',
		path: '/queue-metrics/longest-wait-time',
		description: 'Longest current wait of a contact for a reply (seconds)',
		unit: 'seconds',
		snapshotColumn: 'longestWaitTimeSeconds',
		parameters: { mediumId: 'optional', channelId: 'optional', status: 'required' },
	},
} satisfies Record<string, MetricDefinition>;

export type MetricKey = keyof typeof METRICS;

export const METRIC_KEYS = Object.keys(METRICS) as MetricKey[];

/**
 * A metric's column in a snapshot row: a time says its unit in its name
 * (firstResponseTimeSeconds), a count says what it counts (inboundMessages, agents, contactsWaiting).
 */
export function snapshotColumn(metric: MetricKey): string {
	return METRICS[metric].snapshotColumn;
}

export function metricsTaking(parameter: MetricParameter, requirement?: Requirement): MetricKey[] {
	return METRIC_KEYS.filter((key) => {
		const taken = (METRICS[key].parameters as MetricDefinition['parameters'])[parameter];
		return taken !== undefined && (requirement === undefined || taken === requirement);
	});
}

export const MEDIUM_IDS = [
	'fb',
	'twit',
	'instagram',
	'messagebird',
	'rtm',
	'whatsapp',
	'twilio',
	'wechat',
	'mailgun',
	'telegram',
	'viber',
] as const;

export type MediumId = (typeof MEDIUM_IDS)[number];

/** What each medium code of spec 1 stands for, as the Medium filter lists it; the code is what is sent. */
export const MEDIUM_NAMES: Record<MediumId, string> = {
	fb: 'Facebook Messenger',
	twit: 'X (Twitter)',
	instagram: 'Instagram',
	messagebird: 'SMS via MessageBird',
	rtm: 'Live Chat (Real-Time Messaging)',
	whatsapp: 'WhatsApp',
	twilio: 'SMS via Twilio',
	wechat: 'WeChat',
	mailgun: 'Email via Mailgun',
	telegram: 'Telegram',
	viber: 'Viber',
};

export const GROUP_BY_INTERVALS = { minute: 60_000, hour: 3_600_000, day: 86_400_000 } as const;
export const MAX_INTERVALS = 60;
export const MAX_HISTORY_DAYS = 14;
export const QUEUE_STATUSES = ['new', 'pending'] as const;
export const USER_PRESENCE_STATUSES = ['available', 'away'] as const;

/** Display names of the node's fields, so that errors name the field the user sees. */
export const PARAMETER_LABELS: Record<MetricParameter, string> = {
	from: 'From',
	to: 'To',
	mediumId: 'Medium',
	channelId: 'Channel ID',
	groupByInterval: 'Group By Interval',
	timezone: 'Timezone',
	userPresenceStatus: 'User Presence Status',
	status: 'Conversation Status',
};

export class MetricParameterError extends Error {
	constructor(
		readonly parameter: MetricParameter,
		message: string,
		readonly fix: string,
	) {
		super(message);
	}
}

export type MetricInput = Partial<Record<MetricParameter, unknown>>;

export interface MetricQuery {
	metric: MetricKey;
	path: string;
	/** Query string as sent; only the parameters this endpoint takes, only when set. */
	qs: Partial<Record<MetricParameter, string>>;
	/** The window's ends as sent, in epoch milliseconds; only those sent. */
	window: { fromMs?: number; toMs?: number };
}

export interface MetricQueryOptions {
	now: number;
	workflowTimeZone: string;
}

const isBlank = (value: unknown) =>
	value === undefined || value === null || (typeof value === 'string' && value.trim() === '');

/**
 * Checks the parameters of one metric call against the rules of spec 4.5 before anything is sent,
 * so that a mistake is reported with the field's name instead of the service's generic message.
 * Parameters the endpoint does not take are ignored.
 */
export function buildMetricQuery(
	metric: MetricKey,
	input: MetricInput,
	options: MetricQueryOptions,
): MetricQuery {
	const definition: MetricDefinition = METRICS[metric];
	checkRequired(definition, input);
	const { from, to } = readWindow(definition, input, options);
	const qs: MetricQuery['qs'] = {};
	const set = (parameter: MetricParameter, value: string | undefined) => {
		if (value !== undefined) qs[parameter] = value;
	};
	set('from', from?.iso);
	set('to', to?.iso);
	set(
		'mediumId',
		readChoice(
			definition,
			input,
			'mediumId',
			MEDIUM_IDS,
			`Use one of ${MEDIUM_IDS.join(', ')}, or leave 'Medium' empty to include all connected mediums`,
		),
	);
	set('channelId', readText(definition, input, 'channelId'));
	set('groupByInterval', readGroupByInterval(definition, input, { from, to }, options.now));
	set('timezone', readTimezone(definition, input));
	set(
		'userPresenceStatus',
		readChoice(
			definition,
			input,
			'userPresenceStatus',
			USER_PRESENCE_STATUSES,
			'Use available or away (without it the service always answers 0)',
		),
	);
	set(
		'status',
		readChoice(
			definition,
			input,
			'status',
			QUEUE_STATUSES,
			'Queue metrics count conversations that are new or pending: choose one of them',
		),
	);
	return {
		metric,
		path: definition.path,
		qs,
		window: { fromMs: from?.epochMs, toMs: to?.epochMs },
	};
}

const label = (parameter: MetricParameter) => PARAMETER_LABELS[parameter];

/** Whether the input sets a parameter the endpoint takes. */
function isSet(definition: MetricDefinition, input: MetricInput, parameter: MetricParameter) {
	return definition.parameters[parameter] !== undefined && !isBlank(input[parameter]);
}

function checkRequired(definition: MetricDefinition, input: MetricInput): void {
	for (const parameter of Object.keys(definition.parameters) as MetricParameter[]) {
		if (definition.parameters[parameter] === 'required' && isBlank(input[parameter])) {
			throw new MetricParameterError(
				parameter,
				`'${label(parameter)}' is required for ${definition.name}`,
				`Set '${label(parameter)}'. ${parameterHint(parameter)}`,
			);
		}
	}
}

function readInstant(
	definition: MetricDefinition,
	input: MetricInput,
	parameter: 'from' | 'to',
	workflowTimeZone: string,
): Instant | undefined {
	if (!isSet(definition, input, parameter)) return undefined;
	const instant = toInstant(input[parameter], workflowTimeZone);
	if ('invalid' in instant) {
		throw new MetricParameterError(
			parameter,
			`'${label(parameter)}' is not a valid date and time: ${instant.invalid}`,
			`Pick a date in '${label(parameter)}' or enter ISO-8601, for example 2026-11-20T08:00:00Z or {{ $now.minus({ hours: 24 }).toISO() }}`,
		);
	}
	return instant;
}

/**
 * The window to read: From and To as entered, an empty To sent as now (so that the window that was
 * read has an end the output can name), checked against the service's history and each other.
 */
function readWindow(
	definition: MetricDefinition,
	input: MetricInput,
	{ now, workflowTimeZone }: MetricQueryOptions,
): { from?: Instant; to?: Instant } {
	const from = readInstant(definition, input, 'from', workflowTimeZone);
	const openWindowEndsNow = definition.parameters.to !== undefined && isBlank(input.to);
	const to = openWindowEndsNow
		? { epochMs: now, iso: new Date(now).toISOString() }
		: readInstant(definition, input, 'to', workflowTimeZone);
	if (from && definition.parameters.from === 'required') {
		const oldestAllowed = now - MAX_HISTORY_DAYS * GROUP_BY_INTERVALS.day;
		if (from.epochMs < oldestAllowed) {
			throw new MetricParameterError(
				'from',
				`'From' (${from.iso}) is more than ${MAX_HISTORY_DAYS} days in the past`,
				`The service keeps ${MAX_HISTORY_DAYS} days of history for ${definition.name}: choose a 'From' after ${new Date(oldestAllowed).toISOString()}`,
			);
		}
	}
	if (from && to && to.epochMs <= from.epochMs && openWindowEndsNow) {
		throw new MetricParameterError(
			'from',
			`'From' (${from.iso}) is not in the past`,
			"With 'To' empty the range ends now: set 'From' to a moment before now, or set 'To' after 'From'",
		);
	}
	if (from && to && to.epochMs <= from.epochMs) {
		throw new MetricParameterError(
			'to',
			`'To' (${to.iso}) is not after 'From' (${from.iso})`,
			"Set 'To' to a moment after 'From', or leave 'To' empty to include everything up to now",
		);
	}
	return { from, to };
}

/** A set value of a parameter the endpoint takes, trimmed. */
function readText(
	definition: MetricDefinition,
	input: MetricInput,
	parameter: MetricParameter,
): string | undefined {
	return isSet(definition, input, parameter) ? String(input[parameter]).trim() : undefined;
}

/** A set value of a parameter the endpoint takes, checked against its allowed values. */
function readChoice(
	definition: MetricDefinition,
	input: MetricInput,
	parameter: MetricParameter,
	allowed: readonly string[],
	fix: string,
): string | undefined {
	const value = readText(definition, input, parameter);
	if (value !== undefined && !allowed.includes(value)) {
		throw new MetricParameterError(
			parameter,
			`'${label(parameter)}' has an unknown value '${value}'`,
			fix,
		);
	}
	return value;
}

/** The interval to group by, refused when the window would hold more intervals than the service returns. */
function readGroupByInterval(
	definition: MetricDefinition,
	input: MetricInput,
	{ from, to }: { from?: Instant; to?: Instant },
	now: number,
): string | undefined {
	const interval = readChoice(
		definition,
		input,
		'groupByInterval',
		Object.keys(GROUP_BY_INTERVALS),
		"Use minute, hour or day, or leave 'Group By Interval' empty to get the total count",
	) as keyof typeof GROUP_BY_INTERVALS | undefined;
	if (interval === undefined) return undefined;
	const rangeMs = (to?.epochMs ?? now) - (from?.epochMs ?? now);
	const intervals = Math.ceil(rangeMs / GROUP_BY_INTERVALS[interval]);
	if (intervals > MAX_INTERVALS) {
		throw new MetricParameterError(
			'groupByInterval',
			`The range from 'From' to '${to ? 'To' : 'now'}' spans ${intervals} ${interval} intervals; the service returns at most ${MAX_INTERVALS}`,
			interval === 'minute'
				? "Grouped by minute, the range can be at most 1 hour: move 'From' or 'To' closer together, or group by hour"
				: `Shorten the range to at most ${MAX_INTERVALS} ${interval}s, or group by a longer interval`,
		);
	}
	return interval;
}

function readTimezone(definition: MetricDefinition, input: MetricInput): string | undefined {
	const timezone = readText(definition, input, 'timezone');
	if (timezone !== undefined && !isValidTimeZone(timezone)) {
		throw new MetricParameterError(
			'timezone',
			`'Timezone' '${timezone}' is not a known time zone`,
			"Choose a time zone from the 'Timezone' list, or Workflow Time Zone; an expression must give an IANA name such as Europe/Amsterdam or America/New_York",
		);
	}
	return timezone;
}

function parameterHint(parameter: MetricParameter): string {
	switch (parameter) {
		case 'from':
			return `It may be at most ${MAX_HISTORY_DAYS} days in the past, for example {{ $now.minus({ hours: 24 }).toISO() }}.`;
		case 'status':
			return 'Queue metrics need new or pending.';
		default:
			return '';
	}
}
