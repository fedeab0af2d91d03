import { NodeOperationError, type IExecuteFunctions, type INodeProperties } from 'n8n-workflow';

export function correlationIdProperty(operation: string): INodeProperties {
	return {
		displayName: 'Correlation ID',
		name: 'correlationId',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. 3f2a9c4e-8b1d-4e6f-9a2b-7c5d1e0f4a3b',
		description:
			'The correlationId that Send returned, usually dragged in from the output of the Send step',
		displayOptions: { show: { resource: ['proactiveMessage'], operation: [operation] } },
	};
}

/** The value as entered, for error messages and failed rows: it never throws. */
export function correlationIdAsEntered(this: IExecuteFunctions, itemIndex: number): string {
	return String(this.getNodeParameter('correlationId', itemIndex, '')).trim();
}

export function readCorrelationId(this: IExecuteFunctions, itemIndex: number): string {
	const correlationId = correlationIdAsEntered.call(this, itemIndex);
	if (correlationId === '') {
		throw new NodeOperationError(this.getNode(), "'Correlation ID' is empty", {
			description:
				'Map the correlationId that Send returned, for example {{ $json.correlationId }}',
			itemIndex,
		});
	}
	return correlationId;
}
