import {
	NodeOperationError,
	sleep,
	type IDataObject,
	type IDisplayOptions,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeProperties,
} from 'n8n-workflow';

import { processItems } from '../../helpers/items';
import { MAY_HAVE_BEEN_SENT, toNodeError, withNotSent } from '../../helpers/nodeErrors';
import { DEFAULT_RECORD_WINDOWS, type RecordWindows } from '../../../shared/record/rows';
import { durableRecord } from '../../../shared/record';
import {
	DEFAULT_SEND_ONCE_HOURS,
	MAX_SEND_ONCE_HOURS,
	messageSendOnceKey,
	parseSentDetail,
	sendOnceScopeOf,
	sendOnceWindowMs,
	sentDetailText,
	type MessageIdentity,
	type SendOnceMode,
} from '../../helpers/sendOnce';
import {
	DEFAULT_RATE_LIMIT_MESSAGES,
	DEFAULT_RATE_LIMIT_PERIOD_SECONDS,
	DEFAULT_RATE_LIMIT_WAIT_MINUTES,
	rateLimitDelayMs,
	resolveRateLimit,
	retryDelayMs,
	SendPacer,
	type RateLimitOptions,
} from '../../helpers/sendPacing';
import { isRetryable, mayHaveReachedService } from '../../helpers/serviceError';
import { buildTemplateShorthand } from '../../helpers/templateShorthand';
import { contactCenterApiRequest, ServiceRequestError } from '../../transport';
import { addFinalStatuses } from './finalStatus';

const DEFAULT_SEND_TIMEOUT_SECONDS = 30;

/** What an output item says about its message, in words that read well in a spreadsheet. */
export type SendOutcome = 'sent' | 'already sent' | 'not sent' | 'may have been sent';

/** The service answered without a correlationId: it probably queued the message. */
class UnconfirmedSendError extends NodeOperationError {
	/** Earlier attempts that may have queued the message as well. */
	uncertainAttempts = 0;
}

/** How a failed item's message ended: sent or not, and whether more than one copy may be out. */
function outcomeOfError(error: unknown): { outcome: SendOutcome; possibleDuplicate: boolean } {
	if (error instanceof UnconfirmedSendError) {
		return { outcome: 'may have been sent', possibleDuplicate: error.uncertainAttempts > 0 };
	}
	const uncertainAttempts = error instanceof ServiceRequestError ? error.uncertainAttempts : 0;
	return {
		outcome: uncertainAttempts > 0 ? 'may have been sent' : 'not sent',
		possibleDuplicate: uncertainAttempts > 1,
	};
}

const show = (extra: NonNullable<IDisplayOptions['show']> = {}) => ({
	show: { resource: ['proactiveMessage'], operation: ['send'], ...extra },
});

export const MEDIUMS = ['MESSAGEBIRD', 'TWILIO', 'WHATSAPP'] as const;
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
		default: 'WHATSAPP',
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
		placeholder: 'e.g. Support WhatsApp',
		description:
			'Name of the channel that sends the message, as listed in the service under Settings -> Channels',
		displayOptions: show(),
	},
	{
		displayName: 'Contact',
		name: 'contact',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. +31612345678',
		description:
			'The contact to message. A phone number starts with + and the country code. The contact must have opted in to proactive messages.',
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
		default: 'en',
		placeholder: 'e.g. en_US',
		description:
			'Language code the template is sent in; the template must be defined in that language',
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
		typeOptions: { multipleValues: true, sortable: true },
		default: {},
		placeholder: 'Add Body Variable',
		description:
			'Values of the template variables, in the order of the template ({{1}}, {{2}}, ...)',
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
						description: 'Value of this template variable',
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
		// n8n fills in one credential by itself for a new node, however many it needs (its editor
		// picks the most recently updated one), so the notice sits right above the two fields.
		displayName:
			'Send needs both credentials below: "Contact Center OAuth2 API" for the service and "Contact Center Record API" for the record of sent messages (Send Once). n8n fills in only one of them by itself: pick the other.',
		name: 'credentialsNotice',
		type: 'notice',
		default: '',
		displayOptions: show({
			'@version': [{ _cnd: { gte: 2 } }],
			sendOnce: ['message', 'customKey'],
		}),
	},
	{
		displayName: 'Send Once',
		name: 'sendOnce',
		type: 'options',
		default: 'message',
		description:
			'Whether a message this workflow already sent is skipped, so that a rerun or an n8n Retry after a crash messages nobody twice. Needs a Contact Center Record API credential: the record of sent messages is an n8n data table.',
		options: [
			{
				name: 'Same Message Once',
				value: 'message',
				description:
					'Skip the item when this workflow sent the same message (medium, channel, contact, text or template, metadata) within the Send Once Period',
			},
			{
				name: 'Once per Key',
				value: 'customKey',
				description:
					'Skip the item when this workflow sent a message with the same Send Once Key within the Send Once Period',
			},
			{
				name: 'Off',
				value: 'off',
				description:
					'Send every item. A rerun or Retry sends again what was already sent; no record is needed.',
			},
		],
		displayOptions: show({ '@version': [{ _cnd: { gte: 2 } }] }),
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
		displayOptions: show({ '@version': [{ _cnd: { gte: 2 } }], sendOnce: ['customKey'] }),
	},
	{
		displayName: 'Send Once Period (Hours)',
		name: 'sendOncePeriodHours',
		type: 'number',
		typeOptions: { minValue: 0.01, maxValue: MAX_SEND_ONCE_HOURS, numberPrecision: 2 },
		default: DEFAULT_SEND_ONCE_HOURS,
		description: `How long a sent message blocks the same message (or key) from being sent again, at most ${MAX_SEND_ONCE_HOURS}`,
		displayOptions: show({
			'@version': [{ _cnd: { gte: 2 } }],
			sendOnce: ['message', 'customKey'],
		}),
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
				default: 120,
				description:
					'How long to wait for the final statuses. Items whose message has none by then keep the status last read (e.g. SENT) with settled false.',
				displayOptions: { show: { waitForFinalStatus: [true] } },
			},
			{
				displayName: 'Messages Per Minute (Old Setting)',
				name: 'messagesPerMinute',
				type: 'number',
				typeOptions: { minValue: 1 },
				default: DEFAULT_RATE_LIMIT_MESSAGES,
				description:
					'Saved by an earlier version of this node and used only while Rate Limit Messages and Rate Limit Period (Seconds) are not set. Replace it with those: X per minute over a window of W seconds is X × W / 60 messages per W seconds.',
				displayOptions: { show: { messagesPerMinute: [{ _cnd: { exists: true } }] } },
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
				displayName: 'Rate Window (Seconds) (Old Setting)',
				name: 'rateWindowSeconds',
				type: 'number',
				typeOptions: { minValue: 0.1, numberPrecision: 1 },
				default: DEFAULT_RATE_LIMIT_PERIOD_SECONDS,
				description:
					'Saved by an earlier version of this node and used only while Rate Limit Messages and Rate Limit Period (Seconds) are not set. Replace it with Rate Limit Period (Seconds).',
				displayOptions: { show: { rateWindowSeconds: [{ _cnd: { exists: true } }] } },
			},
			{
				displayName: 'Retry Ambiguous Failures',
				name: 'retryAmbiguousFailures',
				type: 'boolean',
				default: true,
				description:
					"Whether to send again after a failure that may have come after the service queued the message: an HTTP 5xx answer, a time-out or a connection reset once the request was sent. On, every message goes out at least once and an item whose earlier attempt may have got through is marked possibleDuplicate. Off, such an item fails with 'may have been sent' and is not sent again, so no message goes out twice. Rate-limit refusals and connections that could not be made are always retried.",
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
				default: 5,
				description: 'How often to read the statuses while waiting',
				displayOptions: { show: { waitForFinalStatus: [true] } },
			},
			{
				displayName: 'Wait for Final Status',
				name: 'waitForFinalStatus',
				type: 'boolean',
				default: false,
				description:
					'Whether to wait, after sending, until every message has a final status (DELIVERED, FAILED or DELIVERING_FAILED) or the timeout passes, and add it to the output with settled true or false (and the reason of a FAILED message)',
			},
		],
	},
];

interface SendOptions extends RateLimitOptions {
	rateLimitMaxWaitMinutes?: number;
	retryAmbiguousFailures?: boolean;
	sendTimeout?: number;
	waitForFinalStatus?: boolean;
	finalStatusTimeout?: number;
	statusPollInterval?: number;
}

const PHONE_NUMBER_WITHOUT_PLUS = /^\(?\d[\d\s().-]{5,}$/;

function readMessage(this: IExecuteFunctions, i: number) {
	const medium = String(this.getNodeParameter('medium', i));
	const channel = String(this.getNodeParameter('channel', i, '')).trim();
	const contact = String(this.getNodeParameter('contact', i, '')).trim();
	const messageType =
		medium === 'WHATSAPP' ? String(this.getNodeParameter('messageType', i, 'text')) : 'text';
	return { medium, channel, contact, messageType };
}

function fieldError(this: IExecuteFunctions, i: number, message: string, fix: string) {
	return new NodeOperationError(this.getNode(), message, { description: fix, itemIndex: i });
}

/** Builds the request body of spec 2.1 from the item's fields, refusing what the service would refuse. */
function buildSendBody(this: IExecuteFunctions, i: number) {
	const { medium, channel, contact, messageType } = readMessage.call(this, i);
	if (!(MEDIUMS as readonly string[]).includes(medium)) {
		throw fieldError.call(
			this,
			i,
			`'Medium' has an unknown value '${medium}'`,
			`Use one of ${MEDIUMS.join(', ')}`,
		);
	}
	if (channel === '') {
		throw fieldError.call(
			this,
			i,
			"'Channel' is empty",
			'Enter the channel name as listed in the service under Settings -> Channels',
		);
	}
	if (contact === '') {
		throw fieldError.call(
			this,
			i,
			"'Contact' is empty",
			'Enter the phone number (with + and country code) or contact reference to message',
		);
	}
	if (PHONE_NUMBER_WITHOUT_PLUS.test(contact)) {
		throw fieldError.call(
			this,
			i,
			`'Contact' '${contact}' looks like a phone number without the leading +`,
			'Write phone numbers in international format: + then the country code, e.g. +31612345678',
		);
	}

	let text: string;
	if (messageType === 'template') {
		const variables = this.getNodeParameter('templateBodyVariables.variable', i, []) as Array<{
			value?: unknown;
		}>;
		text = buildTemplateShorthand({
			namespace: String(this.getNodeParameter('templateNamespace', i, '')).trim(),
			templateName: String(this.getNodeParameter('templateName', i, '')).trim(),
			language: String(this.getNodeParameter('templateLanguage', i, '')).trim(),
			fallback: String(this.getNodeParameter('templateFallback', i, '')),
			bodyVariables: variables.map((variable) => String(variable.value ?? '')),
		});
	} else {
		text = String(this.getNodeParameter('text', i, ''));
		if (text.trim() === '') {
			throw fieldError.call(this, i, "'Text' is empty", 'Enter the message text to send');
		}
	}

	const entries = this.getNodeParameter('metadata.entry', i, []) as Array<{
		key?: unknown;
		value?: unknown;
	}>;
	const metadata: IDataObject = {};
	for (const [index, entry] of entries.entries()) {
		const key = String(entry.key ?? '').trim();
		if (key === '') {
			throw fieldError.call(
				this,
				i,
				`'Metadata' entry ${index + 1} has no key`,
				'Give every metadata entry a key, or remove the entry',
			);
		}
		if (key in metadata) {
			throw fieldError.call(
				this,
				i,
				`'Metadata' has the key '${key}' twice`,
				'Give every metadata entry its own key',
			);
		}
		metadata[key] = String(entry.value ?? '');
	}

	return {
		medium,
		channel,
		contact,
		text,
		...(entries.length ? { metadata } : {}),
	};
}

/** Where and under which key one item's message is recorded, or undefined when Send Once is off. */
interface SendOnceTarget {
	scope: string;
	key: string;
	windows: RecordWindows;
}

/** The item's Send Once mode; version 1 has none (off). */
function sendOnceModeOf(context: IExecuteFunctions, i: number): SendOnceMode {
	if (context.getNode().typeVersion < 2) return 'off';
	return String(context.getNodeParameter('sendOnce', i, 'message')) as SendOnceMode;
}

function sendOnceTargetOf(
	this: IExecuteFunctions,
	i: number,
	message: MessageIdentity,
): SendOnceTarget | undefined {
	const mode = sendOnceModeOf(this, i);
	if (mode === 'off') return undefined;
	const retentionMs = sendOnceWindowMs(this.getNodeParameter('sendOncePeriodHours', i, undefined));
	if (retentionMs === undefined) {
		throw fieldError.call(
			this,
			i,
			`'Send Once Period (Hours)' must be a number of hours above 0 and at most ${MAX_SEND_ONCE_HOURS}`,
			`Enter how long a sent message blocks the same message, e.g. ${DEFAULT_SEND_ONCE_HOURS}`,
		);
	}
	let key: string;
	if (mode === 'customKey') {
		key = String(this.getNodeParameter('sendOnceKey', i, '')).trim();
		if (key === '') {
			throw fieldError.call(
				this,
				i,
				"'Send Once Key' is empty",
				"Enter a key that names the message, e.g. {{ $json.contact }}-{{ $today.toISODate() }}, or set 'Send Once' to 'Same Message Once' or 'Off'",
			);
		}
	} else {
		key = messageSendOnceKey(message);
	}
	return {
		scope: sendOnceScopeOf(this.getWorkflow().id),
		key,
		windows: { ...DEFAULT_RECORD_WINDOWS, retentionMs },
	};
}

/** How one item's send ended, before it becomes an output row. */
type SendResult =
	| {
			kind: 'sent';
			response: unknown;
			attempts: number;
			uncertainAttempts: number;
			at: number;
			/** The Send Once claim this run holds on the message. */
			claimId?: number;
	  }
	| { kind: 'alreadySent'; at: number; detail: string }
	/** Another run holds the key, or one stopped while it held it: the message may be out. */
	| { kind: 'heldElsewhere'; since?: number; stopped?: boolean };

function heldElsewhereNote(since: number | undefined, stopped: boolean): string {
	const at = since === undefined ? '' : ` at ${new Date(since).toISOString()}`;
	const who = stopped
		? `a run that stopped (a crash or restart) was sending this message${at}`
		: `another run claimed this message${at}: it is sending it now, or it stopped (a crash or restart) while sending it`;
	return `Not sent by this run: ${who}. The service may have it: check before sending it again, e.g. with Send Once set to Off.`;
}

export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	const options = this.getNodeParameter('options', 0, {}) as SendOptions;
	const limit = resolveRateLimit(options);
	const pacer = new SendPacer(limit);
	const retryAmbiguousFailures = options.retryAmbiguousFailures ?? true;
	const timeoutMs = (options.sendTimeout ?? DEFAULT_SEND_TIMEOUT_SECONDS) * 1000;
	const maxRateLimitWaitMs =
		(options.rateLimitMaxWaitMinutes ?? DEFAULT_RATE_LIMIT_WAIT_MINUTES) * 60_000;
	if (sendOnceModeOf(this, 0) !== 'off')
		await durableRecord.warnIfKeyExpiresSoon(this, { readAfresh: true });

	/** A record call before the send: its failure says that the message was not sent. */
	const beforeSending = async <T>(recordCall: Promise<T>): Promise<T> =>
		await recordCall.catch((error: unknown) => {
			if (error instanceof NodeOperationError) error.description = withNotSent(error.description);
			throw error;
		});

	const releaseQuietly = async (once: SendOnceTarget, claimId: number) => {
		await durableRecord.release(this, once.scope, once.key, claimId).catch((error: Error) => {
			this.logger.warn(
				`Contact Center: releasing send once key ${once.key} failed: ${error.message}`,
			);
		});
	};

	/**
	 * Sends one message, paced and retried. With Send Once the key is claimed right before the
	 * request (after the pacing wait) and kept until the answer is recorded, so a crash leaves a
	 * claim only on a message that may really be out; a refusal that sent nothing gives it up.
	 */
	const sendWithRetries = async (
		body: IDataObject,
		once: SendOnceTarget | undefined,
	): Promise<SendResult> => {
		let uncertainAttempts = 0;
		let retries = 0;
		let refusals = 0;
		let waitedForRoomMs = 0;
		let claimId: number | undefined;
		for (let attempt = 1; ; attempt++) {
			await sleep(pacer.reserveSlot());
			if (once && claimId === undefined) {
				const claim = await beforeSending(
					durableRecord.claim(this, once.scope, once.key, once.windows),
				);
				if (claim.state === 'done')
					return { kind: 'alreadySent', at: claim.at, detail: claim.detail };
				if (claim.state === 'running') return { kind: 'heldElsewhere', since: claim.since };
				if (claim.abandonedAt !== undefined) {
					await releaseQuietly(once, claim.claimId);
					return { kind: 'heldElsewhere', since: claim.abandonedAt, stopped: true };
				}
				claimId = claim.claimId;
			}
			const outcome = await contactCenterApiRequest
				.call(this, 'POST', '/proactive-messaging/', { body, timeoutMs })
				.then(
					(response) => ({ response, error: undefined }),
					(error: unknown) => ({ response: undefined, error }),
				);
			if (outcome.error === undefined) {
				pacer.recordAccepted();
				return {
					kind: 'sent',
					response: outcome.response,
					attempts: attempt,
					uncertainAttempts,
					at: Date.now(),
					claimId,
				};
			}
			const { error } = outcome;
			const uncertain =
				error instanceof ServiceRequestError && mayHaveReachedService(error.failure);
			if (uncertain) {
				uncertainAttempts++;
				// The service may have counted it against its limit.
				pacer.recordAccepted();
			}
			let delay: number | undefined;
			if (error instanceof ServiceRequestError && error.failure.kind === 'rateLimited') {
				refusals++;
				delay = rateLimitDelayMs(
					refusals,
					limit,
					waitedForRoomMs,
					maxRateLimitWaitMs,
					error.failure.retryAfterMs,
				);
				if (delay !== undefined) waitedForRoomMs += delay;
			} else if (
				error instanceof ServiceRequestError &&
				isRetryable(error.failure) &&
				(retryAmbiguousFailures || !uncertain)
			) {
				retries++;
				delay = retryDelayMs(retries, pacer.intervalMs, error.failure.retryAfterMs);
			}
			// A claim stays on a message that may be out, so that no later run sends it again.
			if (once && claimId !== undefined && uncertainAttempts === 0) {
				await releaseQuietly(once, claimId);
				claimId = undefined;
			}
			if (delay === undefined) {
				if (!(error instanceof ServiceRequestError)) throw error;
				throw new ServiceRequestError(error.failure, attempt, uncertainAttempts);
			}
			pacer.postpone(delay);
		}
	};

	const results = await processItems.call(this, {
		errorContext: () => ({ operation: 'send' }),
		failedItemFields: (i, error) => {
			const outcomeFields = { sent: false, ...outcomeOfError(error) };
			try {
				const { medium, channel, contact, messageType } = readMessage.call(this, i);
				return { ...outcomeFields, medium, channel, contact, messageType };
			} catch {
				// A field that cannot be read is what failed the item: its error is reported as such.
				return outcomeFields;
			}
		},
		run: async (i) => {
			let body: ReturnType<typeof buildSendBody>;
			let once: SendOnceTarget | undefined;
			try {
				body = buildSendBody.call(this, i);
				once = sendOnceTargetOf.call(this, i, body);
			} catch (error) {
				const refusal = toNodeError(this.getNode(), error, i, { operation: 'send' });
				refusal.description = withNotSent(refusal.description);
				throw refusal;
			}
			const { messageType } = readMessage.call(this, i);
			const message = {
				medium: body.medium,
				channel: body.channel,
				contact: body.contact,
				messageType,
				...(once ? { sendOnceKey: once.key } : {}),
			};
			const earlier = once
				? await beforeSending(durableRecord.check(this, once.scope, once.key, once.windows))
				: undefined;
			const result: SendResult =
				earlier?.state === 'done'
					? { kind: 'alreadySent', at: earlier.at, detail: earlier.detail }
					: await sendWithRetries(body, once);
			if (result.kind === 'alreadySent') {
				const detail = parseSentDetail(result.detail, result.at);
				return {
					correlationId: detail.correlationId,
					sent: true,
					outcome: 'already sent' satisfies SendOutcome,
					possibleDuplicate: false,
					...message,
					attempts: 0,
					sentAt: detail.sentAt,
				};
			}
			if (result.kind === 'heldElsewhere') {
				return {
					sent: false,
					outcome: 'may have been sent' satisfies SendOutcome,
					possibleDuplicate: false,
					...message,
					attempts: 0,
					note: heldElsewhereNote(result.since, result.stopped === true),
				};
			}
			const { response, attempts, uncertainAttempts, at, claimId } = result;
			const correlationId = (response as IDataObject | undefined)?.correlationId;
			if (typeof correlationId !== 'string' || correlationId === '') {
				const unconfirmed = new UnconfirmedSendError(
					this.getNode(),
					`The service accepted the message but returned no correlationId: ${JSON.stringify(response)}`,
					{
						description: `The service probably queued it. ${MAY_HAVE_BEEN_SENT}`,
						itemIndex: i,
					},
				);
				unconfirmed.uncertainAttempts = uncertainAttempts;
				throw unconfirmed;
			}
			const sentAt = new Date(at).toISOString();
			if (once) {
				// Until its row is in, the message counts as sent in this process; the claim holds
				// it for the other processes, so that no run sends it again.
				await durableRecord.markDoneAndKeepTrying(
					this,
					once.scope,
					once.key,
					sentDetailText({ correlationId, sentAt }),
					claimId,
				);
			}
			return {
				correlationId,
				sent: true,
				outcome: 'sent' satisfies SendOutcome,
				possibleDuplicate: uncertainAttempts > 0,
				...message,
				attempts,
				sentAt,
			};
		},
	});

	if (options.waitForFinalStatus) {
		await addFinalStatuses.call(this, results, {
			timeoutMs: (options.finalStatusTimeout ?? 120) * 1000,
			pollIntervalMs: (options.statusPollInterval ?? 5) * 1000,
		});
	}
	return results;
}
