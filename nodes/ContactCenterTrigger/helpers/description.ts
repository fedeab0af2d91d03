import type {
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	INodeCredentialTestResult,
	INodeProperties,
} from 'n8n-workflow';

import { decodeSigningSecret } from './signature';

export const SIGNING_SECRET_CREDENTIAL = 'contactCenterSigningSecretApi';

/** Value of the Events option that stands for every write back type other than the documented two. */
export const OTHER_WRITE_BACK_TYPES = 'other';

export type Endpoint = 'lookup' | 'writeBack' | 'notification';

/**
 * n8n's nodes panel lists a trigger's entries from the options of its first property labelled
 * "Event", "Events" or "Trigger On" (triggersCategory in the editor's useActionsGeneration.ts):
 * this label makes each endpoint one entry there. Only the label changed; saved workflows store
 * `endpoint` and its values.
 */
export const endpointProperty: INodeProperties = {
	displayName: 'Trigger On',
	name: 'endpoint',
	type: 'options',
	noDataExpression: true,
	options: [
		{
			name: 'Lookup',
			action: 'On lookup request',
			value: 'lookup',
			description:
				'The service asks for the attributes of a contact (Lookup button in the conversation view)',
		},
		{
			name: 'Write Back',
			action: 'On conversation write back',
			value: 'writeBack',
			description: 'The service sends a conversation when it is resolved or set to pending',
		},
		{
			name: 'Notification',
			action: 'On notification',
			value: 'notification',
			description: 'The service reports an error, e.g. while importing lookup data',
		},
	],
	default: 'lookup',
	description:
		'Which of the CRM integration URLs this trigger serves. Each gives its own URL: use one trigger per URL you configure in the service.',
};

export const notificationNotice: INodeProperties = {
	displayName:
		'Paste this node\'s Production URL (see "Webhook URLs" above) into the service as the Notification URL under Settings -> Integration & APIs -> CRM and activate the workflow. Every notification is answered 204 (no content).',
	name: 'notificationNotice',
	type: 'notice',
	default: '',
	displayOptions: { show: { endpoint: ['notification'] } },
};

export const ifNoResponseProperty: INodeProperties = {
	displayName: 'If No Response Is Sent',
	name: 'ifNoResponse',
	type: 'options',
	noDataExpression: true,
	displayOptions: { show: { endpoint: ['lookup'] } },
	options: [
		{
			name: 'Answer 404 (No Lookup Found)',
			value: 'notFound',
			description:
				'The service shows that no lookup was found for the contact and keeps its attributes',
		},
		{
			name: 'Answer 500 (Error)',
			value: 'serverError',
			description: 'The service treats the lookup as failed',
		},
	],
	default: 'notFound',
	description:
		'How the lookup is answered when the run ends without reaching a "Respond to Lookup" operation, for example because a search returned no item and the branch stopped. A failed run is always answered 500.',
};

export const eventsProperty: INodeProperties = {
	displayName: 'Events',
	name: 'events',
	type: 'multiOptions',
	displayOptions: { show: { endpoint: ['writeBack'] } },
	options: [
		{
			name: 'Conversation Resolved',
			value: 'CONVERSATION_RESOLVED',
			description: 'An agent resolved a conversation',
		},
		{
			name: 'Conversation Set to Pending',
			value: 'CONVERSATION_SET_TO_PENDING',
			description: 'An agent set a conversation to pending',
		},
		{
			name: 'Any Other Type',
			value: OTHER_WRITE_BACK_TYPES,
			description: 'Write back types the service may add later; they are passed on as sent',
		},
	],
	default: ['CONVERSATION_RESOLVED', 'CONVERSATION_SET_TO_PENDING', OTHER_WRITE_BACK_TYPES],
	description:
		'Write back types that run the workflow. A delivery of another type is answered 200 and runs nothing.',
};

export const simplifyProperty: INodeProperties = {
	displayName: 'Simplify',
	name: 'simplify',
	type: 'boolean',
	displayOptions: { show: { endpoint: ['writeBack'] } },
	default: false,
	description:
		'Whether to flatten a resolved or pending conversation into one CRM row (conversation, channel, contact and agent fields, contact attributes as an object, the transcript, notes and topics as text) instead of passing the payload on as sent. Other types are always passed on as sent.',
};

export const credentialProblemDescription =
	'Open the "Contact Center Signing Secret API" credential and paste the secret key exactly as the service shows it under Settings -> Integration & APIs -> CRM: an even number of hex digits (0-9, a-f). Until then every call is refused, so no unverified call runs the workflow.';

export const credentialTestMethods = {
	/**
	 * The service has no API that could confirm a signing secret, so the test checks what can be
	 * checked without one: that the secret decodes from hexadecimal into a key.
	 */
	async contactCenterSigningSecretTest(
		this: ICredentialTestFunctions,
		credential: ICredentialsDecrypted,
	): Promise<INodeCredentialTestResult> {
		const decoded = decodeSigningSecret(credential.data?.secret);
		if (!decoded.ok) {
			return {
				status: 'Error',
				message: `Contact Center Signing Secret API: ${decoded.detail}. Paste the key exactly as the service shows it.`,
			};
		}
		return {
			status: 'OK',
			message: `The secret is valid hexadecimal (${decoded.key.length}-byte key). Whether it is the right one shows on the first signed call.`,
		};
	},
};
