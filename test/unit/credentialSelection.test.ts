import type { INode } from 'n8n-workflow';

import { assertCredentialSelected } from '../../nodes/shared/credentialSelection';

const nodeOf = (type: string, parameters: INode['parameters']): INode => ({
	id: 'n',
	name: 'My Node',
	type: `n8n-nodes-contact-center.${type}`,
	typeVersion: 1,
	position: [0, 0],
	parameters,
});

/** The error's description for a node without the credential. */
const descriptionFor = (node: INode) => {
	try {
		assertCredentialSelected(node, 'contactCenterOAuth2Api', 'Contact Center OAuth2 API');
	} catch (error) {
		return (error as { description?: string }).description;
	}
	return undefined;
};

describe('where a missing credential is picked, as n8n 2.41.1 places the field', () => {
	test.each([
		['Send (the defaults)', nodeOf('contactCenter', {}), 'below Metadata and above Send Once'],
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

	test('a node that has the credential passes', () => {
		const node = nodeOf('contactCenter', {});
		node.credentials = { contactCenterOAuth2Api: { id: '1', name: 'oauth' } };
		expect(descriptionFor(node)).toBeUndefined();
	});
});
