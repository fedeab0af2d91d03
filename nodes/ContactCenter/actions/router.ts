import { NodeOperationError, type IExecuteFunctions, type INodeExecutionData } from 'n8n-workflow';

import { assertCredentialSelected } from '../../shared/credentialSelection';
import { CREDENTIAL_TYPE } from '../transport';
import * as crmLookup from './crmLookup';
import * as metric from './metric';
import * as proactiveMessage from './proactiveMessage';

type Operation = { execute: (this: IExecuteFunctions) => Promise<INodeExecutionData[]> };

const resources: Record<string, Record<string, Operation>> = {
	proactiveMessage: {
		send: proactiveMessage.send,
		getStatus: proactiveMessage.getStatus,
		getFailed: proactiveMessage.getFailed,
		getDeliveryReport: proactiveMessage.getDeliveryReport,
	},
	metric: {
		get: metric.get,
		getSnapshot: metric.getSnapshot,
	},
	crmLookup: { respond: crmLookup.respond },
};

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const resource = this.getNodeParameter('resource', 0) as string;
	const operation = this.getNodeParameter('operation', 0) as string;
	const selected = resources[resource]?.[operation];
	if (!selected) {
		throw new NodeOperationError(
			this.getNode(),
			`The operation '${operation}' of resource '${resource}' is not supported`,
			{ description: 'Choose a resource and operation from the lists of the node' },
		);
	}
	// Respond to Lookup calls no API; every other operation needs the service's credential.
	if (resource !== 'crmLookup') {
		assertCredentialSelected(this.getNode(), CREDENTIAL_TYPE, 'Contact Center OAuth2 API');
	}
	return [await selected.execute.call(this)];
}
