import { NodeOperationError, type INode } from 'n8n-workflow';

import { operationError } from '../../nodes/shared/operationError';

const node: INode = {
	id: 'node-1',
	name: 'Contact Center Trigger',
	type: 'n8n-nodes-contact-center.contactCenterTrigger',
	typeVersion: 1.1,
	position: [0, 0],
	parameters: {},
};

const message =
	"The record could not be used: n8n's API did not answer the record's read call (no answer: connect ECONNREFUSED 127.0.0.1:5678, tried for 15 s)";

describe('an operation error keeps its message', () => {
	test("n8n-workflow's NodeOperationError replaces a message naming a system error code", () => {
		expect(new NodeOperationError(node, message).message).toBe(
			'The service refused the connection - perhaps it is offline',
		);
	});

	test('operationError keeps the message, with its description', () => {
		const error = operationError(node, message, { description: 'Check n8n.' });
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.message).toBe(message);
		expect(error.description).toBe('Check n8n.');
	});
});
