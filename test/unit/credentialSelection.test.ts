import type { INode } from 'n8n-workflow';

import { assertCredentialSelected } from '../../nodes/shared/credentialSelection';

const nodeOf = (type: string, parameters: INode['parameters']): INode => ({
	id: 'n',
	name: 'My Node',
	type: `n8n-nodes-contact-center.${type}`,
	typeVersion: type === 'contactCenterTrigger' ? 1.1 : 1,
	position: [0, 0],
	parameters,
});

/** The error's description for a node without the credential. */
const descriptionFor = (
	node: INode,
	type = 'contactCenterOAuth2Api',
	displayName = 'Contact Center OAuth2 API',
) => {
	try {
		assertCredentialSelected(node, type, displayName);
	} catch (error) {
		return (error as { description?: string }).description;
	}
	return undefined;
};

describe('where a missing credential is picked, as n8n 2.41.1 places the field', () => {
	test.each([
		['Send (the defaults)', nodeOf('contactCenter', {}), 'between Resource and Operation'],
		[
			'Get Status',
			nodeOf('contactCenter', { resource: 'proactiveMessage', operation: 'getStatus' }),
			'between Resource and Operation',
		],
		[
			'Get Metric',
			nodeOf('contactCenter', { resource: 'metric', operation: 'get' }),
			'between Resource and Operation',
		],
		['the trigger', nodeOf('contactCenterTrigger', { endpoint: 'writeBack' }), 'above Trigger On'],
	])('%s', (_name, node, place) => {
		expect(descriptionFor(node)).toContain(
			`Open the node "My Node" and pick a credential in its "Contact Center OAuth2 API" field`,
		);
		expect(descriptionFor(node)).toContain(place);
	});

	test('Send without a record credential also gives the other way out: Send Once Off', () => {
		const send = descriptionFor(
			nodeOf('contactCenter', {}),
			'contactCenterRecordApi',
			'Contact Center Record API',
		);
		expect(send).toContain('"Contact Center Record API" field, near the top');
		expect(send).toContain('Or set Send Once to Off');
		const writeBack = descriptionFor(
			nodeOf('contactCenterTrigger', { endpoint: 'writeBack' }),
			'contactCenterRecordApi',
			'Contact Center Record API',
		);
		expect(writeBack).not.toContain('Send Once');
		expect(descriptionFor(nodeOf('contactCenter', {}))).not.toContain('Send Once');
	});

	test('a node that has the credential passes', () => {
		const node = nodeOf('contactCenter', {});
		node.credentials = { contactCenterOAuth2Api: { id: '1', name: 'oauth' } };
		expect(descriptionFor(node)).toBeUndefined();
	});
});
