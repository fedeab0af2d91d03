import type { IDisplayOptions, INodeProperties } from 'n8n-workflow';

import { BODY_VARIABLE_HINT, BODY_VARIABLE_ITEM_TITLE } from '../../../helpers/templateShorthand';
import { includeInputFieldsOption } from '../common';
import { N8N_STORE_MAX_MESSAGES } from '../../../../shared/once';
import {
	DEFAULT_SEND_ONCE_HOURS,
	DEFAULT_SEND_ONCE_MODE,
	DEFAULT_SEND_ONCE_STORE,
	MAX_SEND_ONCE_HOURS,
} from './onceSettings';
import {
	DEFAULT_RATE_LIMIT_MESSAGES,
	DEFAULT_RATE_LIMIT_PERIOD_SECONDS,
	DEFAULT_RATE_LIMIT_WAIT_MINUTES,
	type RateLimitOptions,
} from './pacing';

/** The fields of Send as the node shows them, and the defaults of its options. */
export const DEFAULT_SEND_TIMEOUT_SECONDS = 30;
export const DEFAULT_FINAL_STATUS_TIMEOUT_SECONDS = 120;
export const DEFAULT_STATUS_POLL_INTERVAL_SECONDS = 5;

const show = (extra: NonNullable<IDisplayOptions['show']> = {}) => ({
	show: { resource: ['proactiveMessage'], operation: ['send'], ...extra },
});

const SMS_MEDIUMS = ['MESSAGEBIRD', 'TWILIO'];

const textProperty: Omit<INodeProperties, 'displayOptions'> = {
	displayName: 'Text',
	name: 'text',
	type: 'string',
	typeOptions: { rows: 4 },
	required: true,
	default: '',
	placeholder: 'e.g. Your order {{ $json.orderId }} has shipped',
	description: 'The message text sent to the contact',
};

/** Contact's default: the first of the input's usual fields for a phone number. */
export const CONTACT_FROM_INPUT = '={{ $json.phone ?? $json.mobile ?? $json.contact }}';

export const MEDIUM_OPTIONS = [
	{ name: 'SMS via MessageBird', value: 'MESSAGEBIRD' },
	{ name: 'SMS via Twilio', value: 'TWILIO' },
	{ name: 'WhatsApp', value: 'WHATSAPP' },
];

export const description: INodeProperties[] = [
	{
		displayName: 'Medium',
		name: 'medium',
		type: 'options',
		required: true,
		default: 'MESSAGEBIRD',
		description: 'How the message is sent',
		options: MEDIUM_OPTIONS,
		displayOptions: show(),
	},
	{
		displayName: 'Channel',
		name: 'channel',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. Support SMS',
		description:
			'Name of the channel that sends the message, as listed in the service under Settings -> Channels',
		displayOptions: show(),
	},
	{
		displayName: 'Contact',
		name: 'contact',
		type: 'string',
		required: true,
		default: CONTACT_FROM_INPUT,
		placeholder: 'e.g. +31612345678',
		description:
			"A phone number with + and the country code, or a contact reference; by default the input's phone, mobile or contact field. Six or more digits without the + are refused before sending; the contact must have opted in.",
		displayOptions: show(),
	},
	{
		displayName: 'Message Type',
		name: 'messageType',
		type: 'options',
		default: 'text',
		description: 'WhatsApp only allows templates outside the 24-hour customer service window',
		options: [
			{ name: 'Text', value: 'text', description: 'A free-text message' },
			{
				name: 'Template',
				value: 'template',
				description: 'An approved WhatsApp template with its variables',
			},
		],
		displayOptions: show({ medium: ['WHATSAPP'] }),
	},
	{ ...textProperty, displayOptions: show({ medium: SMS_MEDIUMS }) },
	{ ...textProperty, displayOptions: show({ medium: ['WHATSAPP'], messageType: ['text'] }) },
	{
		displayName: 'Namespace',
		name: 'templateNamespace',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. 5f0c6a2b_1d4e_4c1b_9a8e_2b7d3c9e1f00',
		description:
			'The template namespace given by the messaging provider (WhatsApp Business Manager)',
		displayOptions: show({ medium: ['WHATSAPP'], messageType: ['template'] }),
	},
	{
		displayName: 'Template Name',
		name: 'templateName',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. order_shipped',
		description: "Name of the approved template, as in the provider's template manager",
		displayOptions: show({ medium: ['WHATSAPP'], messageType: ['template'] }),
	},
	{
		displayName: 'Language',
		name: 'templateLanguage',
		type: 'string',
		required: true,
		default: 'en_US',
		placeholder: 'e.g. en_US',
		description:
			"Language code the template is sent in, as in the provider's template manager (e.g. en_US, nl, pt_BR); the template must be defined in that language",
		displayOptions: show({ medium: ['WHATSAPP'], messageType: ['template'] }),
	},
	{
		displayName: 'Fallback Text',
		name: 'templateFallback',
		type: 'string',
		default: '',
		placeholder: 'Defaults to the template name',
		description:
			'Fallback text of the template. Leave empty to use the template name, as the service recommends.',
		displayOptions: show({ medium: ['WHATSAPP'], messageType: ['template'] }),
	},
	{
		displayName: 'Body Variables',
		name: 'templateBodyVariables',
		type: 'fixedCollection',
		typeOptions: {
			multipleValues: true,
			sortable: true,
			// Each entry is titled by the template variable it fills: Variable {{1}}, Variable {{2}}, …
			fixedCollection: { itemTitle: BODY_VARIABLE_ITEM_TITLE },
		},
		default: {},
		placeholder: 'Add Body Variable',
		description:
			'Values of the template variables, in the order of the template: the first fills {{1}}, the second {{2}}, …',
		displayOptions: show({ medium: ['WHATSAPP'], messageType: ['template'] }),
		options: [
			{
				displayName: 'Variable',
				name: 'variable',
				values: [
					{
						displayName: 'Value',
						name: 'value',
						type: 'string',
						default: '',
						placeholder: 'e.g. {{ $json.firstName }}',
						description:
							"Value of the template variable named in this entry's title ({{1}} for the first entry)",
						// n8n 2.41.1's default layout shows no entry titles (itemTitle shows in its new one only).
						hint: BODY_VARIABLE_HINT,
					},
				],
			},
		],
	},
	{
		displayName: 'Metadata',
		name: 'metadata',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		default: {},
		placeholder: 'Add Metadata',
		description:
			'Custom key/value pairs stored with the message and included in the messages export',
		displayOptions: show(),
		options: [
			{
				displayName: 'Entry',
				name: 'entry',
				values: [
					{
						displayName: 'Key',
						name: 'key',
						type: 'string',
						default: '',
						placeholder: 'e.g. orderId',
						description: 'Name of the metadata field',
					},
					{
						displayName: 'Value',
						name: 'value',
						type: 'string',
						default: '',
						placeholder: 'e.g. {{ $json.orderId }}',
						description: 'Value of the metadata field (sent as text)',
					},
				],
			},
		],
	},
	{
		displayName: 'Send Once',
		name: 'sendOnce',
		type: 'options',
		default: DEFAULT_SEND_ONCE_MODE,
		description:
			'Whether a message this node already sent is skipped, so that a rerun, an n8n Retry or an AI agent calling it again messages nobody twice',
		options: [
			{
				name: 'Same Message Once',
				value: 'message',
				description: 'A message this workflow already sent is not sent again',
			},
			{
				name: 'Once per Key',
				value: 'customKey',
				description: 'A Send Once Key already sent is not sent again',
			},
			{
				name: 'Off',
				value: 'off',
				description: 'A rerun or Retry sends again what was already sent',
			},
		],
		displayOptions: show(),
	},
	{
		displayName:
			'Messages sent while Send Once is Off are not recorded: turning it on later sends them again',
		name: 'sendOnceOffNotice',
		type: 'notice',
		default: '',
		displayOptions: show({ sendOnce: ['off'] }),
	},
	{
		displayName: 'Record Sends In',
		name: 'sendOnceStore',
		type: 'options',
		default: DEFAULT_SEND_ONCE_STORE,
		description: `Where Send Once keeps what this node sent. n8n: no set-up, the last ${N8N_STORE_MAX_MESSAGES.toLocaleString('en-US')} messages of this node; two runs of this workflow at the same moment on two queue-mode workers are not kept apart. Data Table: any number of messages, runs at once on several workers kept apart, and Send Again To.`,
		options: [
			{
				name: 'N8n (No Credential)',
				value: 'n8n',
				description: "The store n8n's own Remove Duplicates node uses",
			},
			{
				name: 'Data Table (Record API Credential)',
				value: 'dataTable',
				description: 'A data table of this n8n, with a Record API credential',
			},
		],
		displayOptions: show({ sendOnce: ['message', 'customKey'] }),
	},
	{
		// The credential field sits near the top of the node (see the node's credentials).
		displayName: 'Send Once uses the Record API credential (top)',
		name: 'credentialsNotice',
		type: 'notice',
		default: '',
		displayOptions: show({ sendOnce: ['message', 'customKey'], sendOnceStore: ['dataTable'] }),
	},
	{
		displayName: 'Send Once Key',
		name: 'sendOnceKey',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. {{ $json.contact }}-{{ $today.toISODate() }}',
		description:
			'The same key means the same message: an item whose key was sent within the Send Once Period is skipped. E.g. the contact and the date for one reminder per contact per day.',
		displayOptions: show({ sendOnce: ['customKey'] }),
	},
	{
		displayName: 'Send Once Period (Hours)',
		name: 'sendOncePeriodHours',
		type: 'number',
		typeOptions: { minValue: 0.01, maxValue: MAX_SEND_ONCE_HOURS, numberPrecision: 2 },
		default: DEFAULT_SEND_ONCE_HOURS,
		description: `How long a sent message blocks the same message (or key) from being sent again, at most ${MAX_SEND_ONCE_HOURS}. Recorded in n8n: at least this long, at most twice as long.`,
		displayOptions: show({ sendOnce: ['message', 'customKey'] }),
	},
	{
		displayName: 'Send Again To',
		name: 'sendAgainTo',
		type: 'options',
		default: 'nobody',
		description:
			'Which contacts an earlier run already messaged get the message again on a rerun, e.g. to retry the failed ones of a campaign',
		options: [
			{
				name: 'Nobody',
				value: 'nobody',
				description: 'What an earlier run sent is not sent again',
			},
			{
				name: 'Contacts Whose Message Failed',
				value: 'failed',
				description: 'FAILED or DELIVERING_FAILED earlier: sent again, once',
			},
		],
		// n8n's store keeps no correlationId, so the earlier message's status cannot be read.
		displayOptions: show({ sendOnce: ['message', 'customKey'], sendOnceStore: ['dataTable'] }),
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: show(),
		options: [
			{
				displayName: 'Final Status Timeout (Seconds)',
				name: 'finalStatusTimeout',
				type: 'number',
				typeOptions: { minValue: 0 },
				default: DEFAULT_FINAL_STATUS_TIMEOUT_SECONDS,
				description:
					'How long to wait for the final statuses. Items whose message has none by then keep the status last read (e.g. SENT), received unconfirmed.',
				displayOptions: { show: { waitForFinalStatus: [true] } },
			},
			includeInputFieldsOption,
			{
				displayName: 'Include Send Details',
				name: 'includeSendDetails',
				type: 'boolean',
				default: false,
				description:
					'Whether each output item also says how its message was sent: possibleDuplicate, medium, channel, message type, attempts and Send Once Key',
			},
			{
				displayName: 'Rate Limit Messages',
				name: 'rateLimitMessages',
				type: 'number',
				typeOptions: { minValue: 1 },
				default: DEFAULT_RATE_LIMIT_MESSAGES,
				description:
					"N in the service's limit of N messages per W seconds for your organization, as the service states it (standard: 60 messages per 60 seconds). For 10 messages per 5 seconds, enter 10 here and 5 in Rate Limit Period (Seconds).",
			},
			{
				displayName: 'Rate Limit Period (Seconds)',
				name: 'rateLimitPeriodSeconds',
				type: 'number',
				typeOptions: { minValue: 0.1, numberPrecision: 1 },
				default: DEFAULT_RATE_LIMIT_PERIOD_SECONDS,
				description:
					"W in the service's limit of N messages per W seconds. Sends are spread evenly, one every W / N seconds, and never more than N go out within any W seconds.",
			},
			{
				displayName: 'Rate Limit Wait (Minutes)',
				name: 'rateLimitMaxWaitMinutes',
				type: 'number',
				typeOptions: { minValue: 0 },
				default: DEFAULT_RATE_LIMIT_WAIT_MINUTES,
				description:
					"How long one message may wait in all for room in the service's rate limit (other senders of your organization use it too) before its item fails as not sent. A refused message was not sent, so waiting never sends it twice.",
			},
			{
				displayName: 'Retry Ambiguous Failures',
				name: 'retryAmbiguousFailures',
				type: 'boolean',
				default: true,
				description:
					"Whether to send again after a failure that may have come after the service queued the message: an HTTP 5xx answer, a time-out or a connection reset once the request was sent. On, every message goes out at least once and an item whose earlier attempt may have got through says Possible duplicate in its note. Off, such an item fails with 'may have been sent' and is not sent again, so no message goes out twice. Rate-limit refusals and connections that could not be made are always retried.",
			},
			{
				displayName: 'Send Timeout (Seconds)',
				name: 'sendTimeout',
				type: 'number',
				typeOptions: { minValue: 0.01, numberPrecision: 2 },
				default: DEFAULT_SEND_TIMEOUT_SECONDS,
				description:
					"How long to wait for the service's answer to one send. A send without an answer in time may have been queued: it counts as an ambiguous failure.",
			},
			{
				displayName: 'Status Poll Interval (Seconds)',
				name: 'statusPollInterval',
				type: 'number',
				typeOptions: { minValue: 0.01, numberPrecision: 2 },
				default: DEFAULT_STATUS_POLL_INTERVAL_SECONDS,
				description: 'How often to read the statuses while waiting',
				displayOptions: { show: { waitForFinalStatus: [true] } },
			},
			{
				displayName: 'Wait for Final Status',
				name: 'waitForFinalStatus',
				type: 'boolean',
				default: false,
				description:
					'Whether to wait, after sending, until every message has a final status (DELIVERED, FAILED or DELIVERING_FAILED) or the timeout passes, and add received (yes, no or unconfirmed), status and reason to the output',
			},
		],
	},
];

/** The Options of Send as n8n hands them over. */
export interface SendOptions extends RateLimitOptions {
	includeInputFields?: boolean;
	includeSendDetails?: boolean;
	rateLimitMaxWaitMinutes?: number;
	retryAmbiguousFailures?: boolean;
	sendTimeout?: number;
	waitForFinalStatus?: boolean;
	finalStatusTimeout?: number;
	statusPollInterval?: number;
}
