import { NodeOperationError, type INode } from 'n8n-workflow';

/** What a node without a credential of this type is told, by the credential's display name. */
export const credentialNotSelected = (displayName: string): string =>
	`No "${displayName}" credential is selected in this node`;

/**
 * Where n8n's editor shows the node's credential fields: n8n puts them before the last parameter
 * their display depends on (resource, operation, Send Once; Trigger On), as seen in n8n 2.41.1.
 */
export function credentialFieldPlace(node: INode): string {
	if (node.type.endsWith('contactCenterTrigger')) {
		return 'at the top of its Parameters tab, above Trigger On';
	}
	const { resource = 'proactiveMessage', operation = 'send' } = node.parameters;
	return resource === 'proactiveMessage' && operation === 'send'
		? 'in the middle of its Parameters tab, below Metadata and above Send Once'
		: 'near the top of its Parameters tab, between Resource and Operation';
}

/**
 * Throws when the node has no credential of this type selected, in the words the node's editor
 * shows (the credential's display name) and saying where its field is, instead of n8n-core's
 * "Node does not have any credentials set for "<internal type>"".
 */
export function assertCredentialSelected(node: INode, type: string, displayName: string): void {
	if (node.credentials?.[type]) return;
	throw new NodeOperationError(node, credentialNotSelected(displayName), {
		description: `Open the node "${node.name}" and pick a credential in its "${displayName}" field, ${credentialFieldPlace(node)}, or create one there.`,
	});
}
