import type { Icon, ICredentialTestRequest, ICredentialType, INodeProperties } from 'n8n-workflow';

/**
 * OAuth2 client credentials for the service's REST API (interfaces A and B).
 * n8n's own oAuth2Api machinery fetches the token, stores it with the credential, reuses it and,
 * on a 401, fetches a new one and replays the request.
 */
export class ContactCenterOAuth2Api implements ICredentialType {
	name = 'contactCenterOAuth2Api';

	extends = ['oAuth2Api'];

	displayName = 'Contact Center OAuth2 API';

	icon: Icon = {
		light: 'file:../icons/contactCenter.svg',
		dark: 'file:../icons/contactCenter.dark.svg',
	};

	documentationUrl =
		'https://github.com/n8n-nodes-contact-center/n8n-nodes-contact-center?tab=readme-ov-file#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://api.eu.example-contact-center.com',
			description:
				'Base address of your regional deployment (the US and EU deployments differ), without a trailing slash and without a path',
		},
		{
			displayName: 'Grant Type',
			name: 'grantType',
			type: 'hidden',
			default: 'clientCredentials',
		},
		{
			displayName: 'Access Token URL',
			name: 'accessTokenUrl',
			type: 'hidden',
			default: '={{$self["baseUrl"].replace(/\\/+$/, "")}}/oauth2/token',
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
	];

	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl.replace(/\\/+$/, "")}}',
			url: '/reporting-metrics/agent-availability',
			qs: { userPresenceStatus: 'available' },
		},
	};
}
