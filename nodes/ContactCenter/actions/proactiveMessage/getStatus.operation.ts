import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { normalizeStatusOverview, statusRow } from '../../helpers/statusOverview';
import { contactCenterApiRequest } from '../../transport';
import {
	correlationIdProperty,
	executePerCorrelationId,
	readSentToContact,
	sentToContactProperty,
	statusOptionsProperty,
} from './common';

export const description: INodeProperties[] = [
	correlationIdProperty('getStatus'),
	sentToContactProperty(
		'getStatus',
		"The contact the message was sent to, copied into the output row so that each status has its contact (the service's status counts name none). The default takes it from Send's output.",
	),
	statusOptionsProperty('getStatus'),
];

export async function getStatusOverview(this: IExecuteFunctions, correlationId: string) {
	const body = await contactCenterApiRequest.call(
		this,
		'GET',
		`/proactive-messaging/${encodeURIComponent(correlationId)}`,
	);
	return normalizeStatusOverview(body, correlationId);
}

export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	return await executePerCorrelationId.call(this, async function (correlationId, itemIndex) {
		const overview = await getStatusOverview.call(this, correlationId);
		return statusRow(overview, readSentToContact.call(this, itemIndex));
	});
}
