import {
	NodeOperationError,
	sleep,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeProperties,
} from 'n8n-workflow';

import { processItems } from '../../helpers/items';
import {
	DEFAULT_MESSAGES_PER_MINUTE,
	DEFAULT_RATE_WINDOW_MS,
	retryDelayMs,
	SendPacer,
} from '../../helpers/sendPacing';
import { isRetryable } from '../../helpers/serviceError';
import { buildTemplateShorthand } from '../../helpers/templateShorthand';
import { contactCenterApiRequest, ServiceRequestError } from '../../transport';
import { addFinalStatuses } from './finalStatus';

const show = (extra: Record<string, string[]> = {}) => ({
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

export const description: INodeProperties[] = [
	{
		displayName: 'Medium',
		name: 'medium',
		type: 'options',
		required: true,
		default: 'WHATSAPP',
		description: 'How the message is sent',
		options: [
			{ name: 'SMS via MessageBird', value: 'MESSAGEBIRD' },
			{ name: 'SMS via Twilio', value: 'TWILIO' },
			{ name: 'WhatsApp', value: 'WHATSAPP' },
		],
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
				description: 'How long to wait for the final statuses before returning what is known',
				displayOptions: { show: { waitForFinalStatus: [true] } },
			},
			{
				displayName: 'Messages Per Minute',
				name: 'messagesPerMinute',
				type: 'number',
				typeOptions: { minValue: 1 },
				default: DEFAULT_MESSAGES_PER_MINUTE,
				description:
					'Sends are spread evenly at this rate. The service allows 60 per minute per organization; change it only if your account has another limit. Messages refused by the limit are retried, up to 6 times.',
			},
			{
				displayName: 'Rate Window (Seconds)',
				name: 'rateWindowSeconds',
				type: 'number',
				typeOptions: { minValue: 0.1, numberPrecision: 1 },
				default: 60,
				description:
					'The period over which the service counts its limit: at most Messages Per Minute × window / 60 messages are sent in any such period. The service counts per minute; change it only for a contract that counts otherwise.',
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
					'Whether to wait, after sending, until no message is still processing, and add its final status (and failure reason) to the output',
			},
		],
	},
];

interface SendOptions {
	messagesPerMinute?: number;
	rateWindowSeconds?: number;
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

export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	const options = this.getNodeParameter('options', 0, {}) as SendOptions;
	const pacer = new SendPacer(
		options.messagesPerMinute ?? DEFAULT_MESSAGES_PER_MINUTE,
		options.rateWindowSeconds === undefined
			? DEFAULT_RATE_WINDOW_MS
			: options.rateWindowSeconds * 1000,
	);

	const sendWithRetries = async (body: IDataObject) => {
		for (let attempt = 1; ; attempt++) {
			await sleep(pacer.reserveSlot());
			const outcome = await contactCenterApiRequest
				.call(this, 'POST', '/proactive-messaging/', { body })
				.then(
					(response) => ({ response, error: undefined }),
					(error: unknown) => ({ response: undefined, error }),
				);
			if (outcome.error === undefined) {
				pacer.recordAccepted();
				return { response: outcome.response, attempts: attempt };
			}
			const { error } = outcome;
			if (!(error instanceof ServiceRequestError) || !isRetryable(error.failure)) throw error;
			const delay = retryDelayMs(attempt, pacer.intervalMs, error.failure.retryAfterMs);
			if (delay === undefined) throw new ServiceRequestError(error.failure, attempt);
			pacer.postpone(delay);
		}
	};

	const results = await processItems.call(this, {
		errorContext: () => ({ operation: 'send' }),
		failedItemFields: (i) => {
			const { medium, channel, contact, messageType } = readMessage.call(this, i);
			return { sent: false, medium, channel, contact, messageType };
		},
		run: async (i) => {
			const body = buildSendBody.call(this, i);
			const { response, attempts } = await sendWithRetries(body);
			const correlationId = (response as IDataObject | undefined)?.correlationId;
			if (typeof correlationId !== 'string' || correlationId === '') {
				throw new NodeOperationError(
					this.getNode(),
					`The service accepted the message but returned no correlationId: ${JSON.stringify(response)}`,
					{
						description:
							'The message was probably queued; check the messages export in the service before sending it again',
						itemIndex: i,
					},
				);
			}
			const { messageType } = readMessage.call(this, i);
			return {
				correlationId,
				sent: true,
				medium: body.medium,
				channel: body.channel,
				contact: body.contact,
				messageType,
				attempts,
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
