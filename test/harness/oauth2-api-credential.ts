import type { ICredentialType } from 'n8n-workflow';

/**
 * The parts of n8n-nodes-base's `oAuth2Api` credential (the parent our OAuth2 credential extends)
 * that n8n-core's OAuth2 flow reads. n8n-nodes-base is not a dependency, so the defaults are
 * replicated here; property names, types and defaults match n8n's OAuth2Api.credentials.ts.
 * Its `ignoreSSLIssues`, `tokenExpiredStatusCode` and JWE fields are `doNotInherit` in n8n, so
 * credentials extending it never see them and they are left out.
 */
export const oAuth2ApiCredentialType: ICredentialType = {
	name: 'oAuth2Api',
	displayName: 'OAuth2 API',
	genericAuth: true,
	properties: [
		{
			displayName: 'Grant Type',
			name: 'grantType',
			type: 'options',
			options: [
				{ name: 'Authorization Code', value: 'authorizationCode' },
				{ name: 'Client Credentials', value: 'clientCredentials' },
				{ name: 'PKCE', value: 'pkce' },
			],
			default: 'authorizationCode',
		},
		{
			displayName: 'Authorization URL',
			name: 'authUrl',
			type: 'string',
			displayOptions: { show: { grantType: ['authorizationCode', 'pkce'] } },
			default: '',
		},
		{ displayName: 'Access Token URL', name: 'accessTokenUrl', type: 'string', default: '' },
		{ displayName: 'Client ID', name: 'clientId', type: 'string', default: '' },
		{
			displayName: 'Client Secret',
			name: 'clientSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
		},
		{ displayName: 'Scope', name: 'scope', type: 'string', default: '' },
		{
			displayName: 'Auth URI Query Parameters',
			name: 'authQueryParameters',
			type: 'string',
			displayOptions: { show: { grantType: ['authorizationCode', 'pkce'] } },
			default: '',
		},
		{
			displayName: 'Authentication',
			name: 'authentication',
			type: 'options',
			options: [
				{ name: 'Body', value: 'body' },
				{ name: 'Header', value: 'header' },
			],
			default: 'header',
		},
		{
			displayName: 'Send Additional Body Properties',
			name: 'sendAdditionalBodyProperties',
			type: 'boolean',
			displayOptions: { show: { grantType: ['clientCredentials'], authentication: ['body'] } },
			default: false,
		},
		{
			displayName: 'Additional Body Properties',
			name: 'additionalBodyProperties',
			type: 'json',
			displayOptions: {
				show: {
					grantType: ['clientCredentials'],
					authentication: ['body'],
					sendAdditionalBodyProperties: [true],
				},
			},
			default: '',
		},
	],
};
