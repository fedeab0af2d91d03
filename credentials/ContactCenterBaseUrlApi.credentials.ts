import type { Icon, ICredentialTestRequest, ICredentialType, INodeProperties } from 'n8n-workflow';

import { credentialTestRequest } from './ContactCenterOAuth2Api.credentials';

/**
 * The Base URL field of the Contact Center OAuth2 API credential, in a credential type of its own
 * only so that the dialog shows it first: n8n lists an extending credential's fields in the order
 * of its `extends` entries, then its own new fields last. Hidden from the credential list; nodes
 * use `contactCenterOAuth2Api`, which extends this type and oAuth2Api.
 *
 * n8n's lint and scanner require a test on every credential class. Never tested on its own (it is
 * hidden), it carries the request that the OAuth2 credential's test sends.
 */
export class ContactCenterBaseUrlApi implements ICredentialType {
	name = 'contactCenterBaseUrlApi';

	displayName = 'Contact Center Base URL API';

	hidden = true;

	icon: Icon = {
		light: 'file:../icons/contactCenter.svg',
		dark: 'file:../icons/contactCenter.dark.svg',
	};

	documentationUrl =
		'https://github.com/n8n-nodes-contact-center/n8n-nodes-contact-center/blob/main/docs/credentials.md';

	properties: INodeProperties[] = [
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://api.eu.example-contact-center.com',
			description:
				'The address of your regional deployment: the US and EU deployments have different ones (e.g. https://api.eu.example-contact-center.com), without a path or trailing slash.',
		},
	];

	test: ICredentialTestRequest = { request: credentialTestRequest };
}
