import { NodeOperationError, type INode } from 'n8n-workflow';

type Options = ConstructorParameters<typeof NodeOperationError>[2];

/**
 * A NodeOperationError that keeps its message. n8n-workflow replaces a message containing a system
 * error code (ECONNREFUSED, ECONNRESET, ETIMEDOUT, …) with a generic one, such as "The service
 * refused the connection - perhaps it is offline", which would hide which call failed and where;
 * the messages made here already say that, with the code.
 */
export function operationError(
	node: INode,
	message: string,
	options?: Options,
): NodeOperationError {
	const error = new NodeOperationError(node, message, options);
	error.message = message;
	return error;
}
