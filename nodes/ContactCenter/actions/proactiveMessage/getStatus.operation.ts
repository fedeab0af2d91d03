import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { normalizeStatusOverview } from '../../helpers/statusOverview';
import { contactCenterApiRequest } from '../../transport';
import { correlationIdProperty, executePerCorrelationId } from './common';

export const description: INodeProperties[] = [correlationIdProperty('getStatus')];

export async function getStatusOverview(this: IExecuteFunctions, correlationId: string) {
	const body = await contactCenterApiRequest.call(
		this,
		'GET',
		`/proactive-messaging/${encodeURIComponent(correlationId)}`,
	);
	return normalizeStatusOverview(body, correlationId);
}

export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	return await executePerCorrelationId.call(this, getStatusOverview);
}
