import { NodeOperationError, type INode } from 'n8n-workflow';

/** What a node without a credential of this type is told, by the credential's display name. */
export const credentialNotSelected = (displayName: string): string =>
	`No "${displayName}" credential is selected in this node`;

/**
 * Where n8n's editor shows the node's credential fields: n8n puts them before the last parameter
 * named under a credential's `displayOptions.show` (resource, operation; Trigger On), as n8n 2.41.1's
 * ParameterInputList does.
 */
export function credentialFieldPlace(node: INode): string {
	if (node.type.endsWith('contactCenterTrigger')) {
		return 'at the top of its Parameters tab, above Trigger On';
	}
	return 'near the top of its Parameters tab, between Resource and Operation';
}

/** The record credential of Send is needed only by Send Once: Off is the other way out. */
function otherWayOut(node: INode, type: string): string {
	if (type !== 'contactCenterRecordApi' || !node.type.endsWith('.contactCenter')) return '';
	const { resource = 'proactiveMessage', operation = 'send' } = node.parameters;
	return resource === 'proactiveMessage' && operation === 'send'
		? ' Or set Send Once to Off: no record is needed then, but a rerun or Retry sends again what was already sent.'
		: '';
}

/**
 * Throws when the node has no credential of this type selected, in the words the node's editor
 * shows (the credential's display name) and saying where its field is, instead of n8n-core's
 * "Node does not have any credentials set for "<internal type>"".
 */
export function assertCredentialSelected(node: INode, type: string, displayName: string): void {
	if (node.credentials?.[type]) return;
	throw new NodeOperationError(node, credentialNotSelected(displayName), {
		description: `Open the node "${node.name}" and pick a credential in its "${displayName}" field, ${credentialFieldPlace(node)}, or create one there.${otherWayOut(node, type)}`,
	});
}
