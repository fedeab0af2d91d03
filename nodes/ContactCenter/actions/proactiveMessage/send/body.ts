import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { buildTemplateShorthand } from '../../../helpers/templateShorthand';

export const MEDIUMS = ['MESSAGEBIRD', 'TWILIO', 'WHATSAPP'] as const;

const PHONE_NUMBER_WITHOUT_PLUS = /^\(?\d[\d\s().-]{5,}$/;

/** A field of Send that the service would refuse: `message` names the field, `fix` says what to enter. */
export class SendFieldError extends Error {
	constructor(
		message: string,
		readonly fix: string,
	) {
		super(message);
	}
}

/** Who gets the message and how, as entered for one item. */
export interface MessageAddress {
	medium: string;
	channel: string;
	contact: string;
	messageType: string;
}

/** The request body of spec 2.1. */
export interface SendBody extends IDataObject {
	medium: string;
	channel: string;
	contact: string;
	text: string;
	metadata?: IDataObject;
}

export interface MetadataEntry {
	key?: unknown;
	value?: unknown;
}

/** Reads the item's address fields; it checks nothing, so that a failed item can still name them. */
export function readMessageAddress(this: IExecuteFunctions, i: number): MessageAddress {
	const medium = String(this.getNodeParameter('medium', i));
	const channel = String(this.getNodeParameter('channel', i, '')).trim();
	// Contact's default reads input fields that may be missing: undefined is an empty Contact.
	const contact = String(this.getNodeParameter('contact', i, '') ?? '').trim();
	const messageType =
		medium === 'WHATSAPP' ? String(this.getNodeParameter('messageType', i, 'text')) : 'text';
	return { medium, channel, contact, messageType };
}

/** Builds the item's request body, refusing what the service would refuse. */
export function buildSendBody(this: IExecuteFunctions, i: number): SendBody {
	const { medium, channel, contact, messageType } = readMessageAddress.call(this, i);
	checkAddress({ medium, channel, contact, messageType });
	const text =
		messageType === 'template'
			? readTemplateText.call(this, i)
			: checkedText(String(this.getNodeParameter('text', i, '')));
	const metadata = metadataOf(this.getNodeParameter('metadata.entry', i, []) as MetadataEntry[]);
	return { medium, channel, contact, text, ...(metadata ? { metadata } : {}) };
}

function readTemplateText(this: IExecuteFunctions, i: number): string {
	const variables = this.getNodeParameter('templateBodyVariables.variable', i, []) as Array<{
		value?: unknown;
	}>;
	return buildTemplateShorthand({
		namespace: String(this.getNodeParameter('templateNamespace', i, '')).trim(),
		templateName: String(this.getNodeParameter('templateName', i, '')).trim(),
		language: String(this.getNodeParameter('templateLanguage', i, '')).trim(),
		fallback: String(this.getNodeParameter('templateFallback', i, '')),
		bodyVariables: variables.map((variable) => String(variable.value ?? '')),
	});
}

export function checkAddress({ medium, channel, contact }: MessageAddress): void {
	if (!(MEDIUMS as readonly string[]).includes(medium)) {
		throw new SendFieldError(
			`'Medium' has an unknown value '${medium}'`,
			`Use one of ${MEDIUMS.join(', ')}`,
		);
	}
	if (channel === '') {
		throw new SendFieldError(
			"'Channel' is empty",
			'Enter the channel name as listed in the service under Settings -> Channels',
		);
	}
	if (contact === '') {
		throw new SendFieldError(
			"'Contact' is empty",
			"Enter the phone number (with + and country code) or contact reference to message. By default Contact reads the input's phone, mobile or contact field: name the input's field in Contact, e.g. {{ $json.telephone }}",
		);
	}
	if (PHONE_NUMBER_WITHOUT_PLUS.test(contact)) {
		throw new SendFieldError(
			`'Contact' '${contact}' looks like a phone number without the leading +`,
			'Write phone numbers in international format: + then the country code, e.g. +31612345678',
		);
	}
}

export function checkedText(text: string): string {
	if (text.trim() === '') {
		throw new SendFieldError("'Text' is empty", 'Enter the message text to send');
	}
	return text;
}

/** The Metadata entries as the body's object, every value as text; undefined when there are none. */
export function metadataOf(entries: MetadataEntry[]): IDataObject | undefined {
	if (entries.length === 0) return undefined;
	const metadata: IDataObject = {};
	for (const [index, entry] of entries.entries()) {
		const key = String(entry.key ?? '').trim();
		if (key === '') {
			throw new SendFieldError(
				`'Metadata' entry ${index + 1} has no key`,
				'Give every metadata entry a key, or remove the entry',
			);
		}
		if (key in metadata) {
			throw new SendFieldError(
				`'Metadata' has the key '${key}' twice`,
				'Give every metadata entry its own key',
			);
		}
		metadata[key] = String(entry.value ?? '');
	}
	return metadata;
}
