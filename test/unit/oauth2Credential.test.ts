/**
 * The Contact Center OAuth2 API credential dialog: its fields as n8n merges them (`extends` entries
 * in order, then the credential's own fields), and what its test says about a wrong Base URL.
 */
import type { IWorkflowExecuteAdditionalData } from 'n8n-workflow';

import { ContactCenterOAuth2Api } from '../../credentials/ContactCenterOAuth2Api.credentials';
import { CredentialStore } from '../harness/credential-store';

const TYPE = 'contactCenterOAuth2Api';

/** The fields the dialog shows for the stored defaults (n8n's internal oauthTokenData aside). */
function visibleFields(store: CredentialStore) {
	const properties = store.getCredentialsProperties(TYPE);
	const defaults = Object.fromEntries(properties.map(({ name, default: value }) => [name, value]));
	const shownFor = (show: Record<string, unknown[] | undefined> = {}) =>
		Object.entries(show).every(([name, values]) => values?.includes(defaults[name]));
	return properties.filter(
		(property) =>
			property.type !== 'hidden' &&
			property.name !== 'oauthTokenData' &&
			shownFor(property.displayOptions?.show),
	);
}

async function resolvedCredential(baseUrl: string) {
	const store = new CredentialStore({
		[TYPE]: { baseUrl, clientId: 'id', clientSecret: 'secret' },
	});
	return await store.getDecrypted(
		{} as IWorkflowExecuteAdditionalData,
		store.nodeCredentials()[TYPE],
		TYPE,
		'internal',
	);
}

describe('Contact Center OAuth2 API credential', () => {
	const store = new CredentialStore({});

	it('shows Base URL first, then Client ID and Client Secret, each with help text', () => {
		const fields = visibleFields(store);
		expect(fields.map((field) => field.displayName)).toEqual([
			'Base URL',
			'Client ID',
			'Client Secret',
		]);
		for (const field of fields) expect(field.description).toBeTruthy();
		expect(fields[0].description).toMatch(/US and EU/);
		expect(fields[1].description).toMatch(/Rest API Keys/);
	});

	it('hides the inherited OAuth2 fields that do not apply', () => {
		const hidden = store
			.getCredentialsProperties(TYPE)
			.filter((property) => property.type === 'hidden')
			.map((property) => property.name);
		expect(hidden).toEqual(
			expect.arrayContaining([
				'grantType',
				'accessTokenUrl',
				'scope',
				'authentication',
				'sendAdditionalBodyProperties',
				'additionalBodyProperties',
			]),
		);
	});

	it.each([
		'https://api.eu.example-contact-center.com',
		'https://api.eu.example-contact-center.com/',
		' https://api.eu.example-contact-center.com/api/v1 ',
	])('fetches the token at the root of the Base URL "%s"', async (baseUrl) => {
		const credential = await resolvedCredential(baseUrl);
		expect(credential.accessTokenUrl).toBe(
			'https://api.eu.example-contact-center.com/oauth2/token',
		);
		expect(credential.grantType).toBe('clientCredentials');
		expect(credential.authentication).toBe('body');
	});

	it('turns a 404 of the test request into a message that names the Base URL', () => {
		const { rules = [] } = new ContactCenterOAuth2Api().test;
		const notFound = rules.find(
			(rule) => rule.type === 'responseCode' && rule.properties.value === 404,
		);
		expect(notFound?.properties.message).toMatch(/^Check the Base URL/);
		const refused = rules.find(
			(rule) => rule.type === 'responseCode' && rule.properties.value === 401,
		);
		expect(refused?.properties.message).toMatch(/Client ID and Client Secret/);
	});
});
