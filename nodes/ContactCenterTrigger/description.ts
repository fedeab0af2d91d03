import type {
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	INodeCredentialTestResult,
	INodeProperties,
} from 'n8n-workflow';

import { decodeSigningSecret } from './signature';

export const SIGNING_SECRET_CREDENTIAL = 'contactCenterSigningSecretApi';

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
			description: 'An agent clicks Lookup; the service asks for attributes',
		},
		{
			name: 'Write Back',
			action: 'On conversation write back',
			value: 'writeBack',
			description: 'A conversation was resolved or set to pending',
		},
		{
			name: 'Notification',
			action: 'On notification',
			value: 'notification',
			description: 'The service reports an error, e.g. in a data import',
		},
	],
	default: 'lookup',
	description:
		'Which of the CRM integration URLs this trigger serves. Each gives its own URL: use one trigger per URL you configure in the service.',
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
