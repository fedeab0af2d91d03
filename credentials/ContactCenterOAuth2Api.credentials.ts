import type { Icon, ICredentialTestRequest, ICredentialType, INodeProperties } from 'n8n-workflow';

/** Reads Agent Availability, a metric without required parameters; also the test of contactCenterBaseUrlApi. */
export const credentialTestRequest: ICredentialTestRequest['request'] = {
	baseURL: '={{$credentials.baseUrl.replace(/\\/+$/, "")}}',
	url: '/reporting-metrics/agent-availability',
	qs: { userPresenceStatus: 'available' },
};

/**
 * OAuth2 client credentials for the service's REST API (interfaces A and B).
 * n8n's own oAuth2Api machinery fetches the token, stores it with the credential, reuses it and,
 * on a 401, fetches a new one and replays the request.
 *
 * Base URL comes from contactCenterBaseUrlApi, listed before oAuth2Api in `extends` so that the
 * dialog shows it first; fields redefined here keep oAuth2Api's position.
 */
export class ContactCenterOAuth2Api implements ICredentialType {
	name = 'contactCenterOAuth2Api';

	extends = ['contactCenterBaseUrlApi', 'oAuth2Api'];

	displayName = 'Contact Center OAuth2 API';

	icon: Icon = {
		light: 'file:../icons/contactCenter.svg',
		dark: 'file:../icons/contactCenter.dark.svg',
	};

	documentationUrl =
		'https://github.com/n8n-nodes-contact-center/n8n-nodes-contact-center/blob/main/docs/credentials.md';

	properties: INodeProperties[] = [
		{
			displayName: 'Grant Type',
			name: 'grantType',
			type: 'hidden',
			default: 'clientCredentials',
		},
		{
			// The token endpoint is at the root of the Base URL's host: a Base URL with a stray path
			// still gets a token, and the test request then fails with 404, which the test's rules
			// turn into "Check the Base URL".
			displayName: 'Access Token URL',
			name: 'accessTokenUrl',
			type: 'hidden',
			default:
				'={{$self["baseUrl"].trim().replace(/^(https?:\\/\\/[^\\/?#]+).*$/i, "$1")}}/oauth2/token',
		},
		{
			displayName: 'Client ID',
			name: 'clientId',
			type: 'string',
			default: '',
			required: true,
			description:
				'The client ID of a REST API key: in the service, Settings -> Integration & APIs -> Rest API Keys (admin users only). Create the key in the region of the Base URL.',
		},
		{
			displayName: 'Client Secret',
			name: 'clientSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description:
				'The client secret shown with that REST API key, in the same place as the Client ID',
		},
		{
			displayName: 'Scope',
			name: 'scope',
			type: 'hidden',
			default: 'client-read',
		},
		{
			displayName: 'Auth URI Query Parameters',
			name: 'authQueryParameters',
			type: 'hidden',
			default: '',
		},
		{
			// The token endpoint takes client_id and client_secret as form parameters.
			displayName: 'Authentication',
			name: 'authentication',
			type: 'hidden',
			default: 'body',
		},
		{
			displayName: 'Send Additional Body Properties',
			name: 'sendAdditionalBodyProperties',
			type: 'hidden',
			default: false,
		},
		{
			displayName: 'Additional Body Properties',
			name: 'additionalBodyProperties',
			type: 'hidden',
			default: '',
		},
	];

	test: ICredentialTestRequest = {
		request: credentialTestRequest,
		rules: [
			{
				type: 'responseCode',
				properties: {
					value: 404,
					message:
						'Check the Base URL: the service answered 404, so it has no API at this address. Use the address of your region (US or EU) without a path.',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 401,
					message:
						'The service refused the token: check Client ID and Client Secret, and that the REST API key belongs to the region of the Base URL.',
				},
			},
		],
	};
}
