import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { processItems } from '../../helpers/items';
import { normalizeFailedMessages } from '../../helpers/statusOverview';
import { contactCenterApiRequest } from '../../transport';
import { correlationIdAsEntered, correlationIdProperty, readCorrelationId } from './common';

export const description: INodeProperties[] = [correlationIdProperty('getFailed')];

export async function getFailedMessages(this: IExecuteFunctions, correlationId: string) {
	const body = await contactCenterApiRequest.call(
		this,
		'GET',
		`/proactive-messaging/${encodeURIComponent(correlationId)}/FAILED`,
	);
	return normalizeFailedMessages(body, correlationId);
}

export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	return await processItems.call(this, {
		errorContext: (i) => ({
			operation: 'status',
			correlationId: correlationIdAsEntered.call(this, i),
		}),
		failedItemFields: (i) => ({ correlationId: correlationIdAsEntered.call(this, i) }),
		run: async (i) => await getFailedMessages.call(this, readCorrelationId.call(this, i)),
	});
}
