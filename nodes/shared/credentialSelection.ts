import { NodeOperationError, type INode } from 'n8n-workflow';

/** What a node without a credential of this type is told, by the credential's display name. */
export const credentialNotSelected = (displayName: string): string =>
	`No "${displayName}" credential is selected in this node`;

/**
 * Throws when the node has no credential of this type selected, in the words the node's editor
 * shows (the credential's display name), instead of n8n-core's "Node does not have any
 * credentials set for "<internal type>"".
 */
export function assertCredentialSelected(node: INode, type: string, displayName: string): void {
	if (node.credentials?.[type]) return;
	throw new NodeOperationError(node, credentialNotSelected(displayName), {
		description: `Open the node "${node.name}" and pick a credential under "${displayName}" at its top, or choose "Create new credential" there and fill in the dialog.`,
	});
}
