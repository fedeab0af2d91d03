import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { normalizeFailedMessages } from '../../helpers/statusOverview';
import { contactCenterApiRequest } from '../../transport';
import { correlationIdProperty, executePerCorrelationId } from './common';

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
	return await executePerCorrelationId.call(this, getFailedMessages);
}
