import type { IDataObject } from 'n8n-workflow';

/** Write back types whose `data` structure is documented (spec 2.11, 6.1). */
export const KNOWN_WRITE_BACK_TYPES = ['CONVERSATION_RESOLVED', 'CONVERSATION_SET_TO_PENDING'];

const asObject = (value: unknown): IDataObject =>
	value !== null && typeof value === 'object' && !Array.isArray(value)
		? (value as IDataObject)
		: {};

const asArray = (value: unknown): IDataObject[] =>
	Array.isArray(value) ? value.map(asObject) : [];

const asText = (value: unknown): string | null =>
	value === undefined || value === null
		? null
		: typeof value === 'string'
			? value
			: JSON.stringify(value);

/**
 * Flattens a CONVERSATION_RESOLVED / CONVERSATION_SET_TO_PENDING payload into one CRM row:
 * scalar columns for the conversation, channel, contact and agent, the contact attributes as an
 * `{attribute: value}` object, and the transcript, notes and topics as text. Payloads of other
 * (unknown) types are returned as sent: their `data` structure is not documented.
 */
export function simplifyWriteBack(payload: IDataObject): IDataObject {
	if (!KNOWN_WRITE_BACK_TYPES.includes(String(payload.type))) return payload;
	const data = asObject(payload.data);
	const medium = asObject(data.medium);
	const channel = asObject(data.channel);
	const contact = asObject(data.contactProfile);
	const conversation = asObject(data.conversation);
	const agent = asObject(data.agent);
	const messages = asArray(data.messages);

	const contactAttributes: IDataObject = {};
	for (const attribute of asArray(data.contactAttributes)) {
		if (typeof attribute.attribute === 'string')
			contactAttributes[attribute.attribute] = asText(attribute.value);
	}
	const agentName = [agent.firstName, agent.lastName]
		.filter((part) => typeof part === 'string' && part !== '')
		.join(' ');

	return {
		idempotencyKey: asText(payload.idempotencyKey),
		type: asText(payload.type),
		version: (payload.version as number | undefined) ?? null,
		conversationId: asText(conversation.id),
		conversationCreatedAt: asText(conversation.createdAt),
		previousStatus: asText(conversation.previousStatus),
		currentStatus: asText(conversation.currentStatus),
		statusUpdatedAt: asText(data.statusUpdatedAt),
		statusUpdatedReason: asText(data.statusUpdatedReason),
		mediumId: asText(medium.id),
		channelId: asText(channel.id),
		channelName: asText(channel.name),
		contactProfileId: asText(contact.id),
		contactMediumProfileId: asText(contact.mediumContactProfileId),
		contactPrimaryIdentifier: asText(contact.primaryIdentifier),
		contactSecondaryIdentifier: asText(contact.secondaryIdentifier),
		contactPictureUrl: asText(contact.pictureUrl),
		agentId: asText(agent.id),
		agentName: agentName === '' ? null : agentName,
		agentEmail: asText(agent.email),
		contactAttributes,
		messageCount: messages.length,
		transcript: messages
			.map((message) => `${asText(message.direction) ?? 'UNKNOWN'}: ${asText(message.text) ?? ''}`)
			.join('\n'),
		notes: asArray(data.notes)
			.map((note) => asText(note.text) ?? '')
			.filter((text) => text !== '')
			.join('\n\n'),
		topics: asArray(data.topics)
			.map((topic) => asText(topic.name) ?? '')
			.filter((name) => name !== '')
			.join(', '),
	};
}
