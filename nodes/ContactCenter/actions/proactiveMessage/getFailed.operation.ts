import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

import {
	normalizeFailedMessages,
	NOT_RECEIVED_STATUSES,
	type FailedMessage,
} from '../../helpers/statusOverview';
import { contactCenterApiRequest } from '../../transport';
import {
	correlationIdProperty,
	executePerCorrelationId,
	readSentToContact,
	sentToContactProperty,
	statusOptionsProperty,
} from './common';
import { getStatusOverview } from './getStatus.operation';

export const description: INodeProperties[] = [
	{
		displayName:
			'No item when no message failed: to go on then, turn on Always Output Data (Settings)',
		name: 'getFailedNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { resource: ['proactiveMessage'], operation: ['getFailed'] } },
	},
	correlationIdProperty('getFailed'),
	sentToContactProperty(
		'getFailed',
		"The contact the message was sent to, for the rows the service gives no details for (it documents details for FAILED only, not for DELIVERING_FAILED). The default takes it from Send's output or Get Status's.",
	),
	statusOptionsProperty('getFailed'),
];

/**
 * The service's details of the messages with `status`, or undefined when it gives none (an empty
 * list). Details are documented for FAILED only, whose errors are the item's; DELIVERING_FAILED is
 * asked all the same, and an error there means the service gives none.
 */
export async function readStatusDetails(
	this: IExecuteFunctions,
	correlationId: string,
	status: string,
): Promise<FailedMessage[] | undefined> {
	const request = contactCenterApiRequest.call(
		this,
		'GET',
		`/proactive-messaging/${encodeURIComponent(correlationId)}/${status}`,
	);
	const body = status === 'FAILED' ? await request : await request.catch(() => undefined);
	const details = normalizeFailedMessages(body, correlationId, status);
	return details.length > 0 ? details : undefined;
}

/**
 * One row per message of the send that did not reach its contact, FAILED or DELIVERING_FAILED,
 * read from the status counts: the service's details where it gives them, else the mapped contact.
 * `reason` is the service's, or empty when it gives none (it documents none for DELIVERING_FAILED),
 * so that a sheet can filter on it.
 */
export async function getMessagesNotReceived(
	this: IExecuteFunctions,
	correlationId: string,
	contact: string,
): Promise<IDataObject[]> {
	const overview = await getStatusOverview.call(this, correlationId);
	const rows: IDataObject[] = [];
	for (const status of NOT_RECEIVED_STATUSES) {
		const count = Number(overview[status] ?? 0);
		if (!(count > 0)) continue;
		const details = await readStatusDetails.call(this, correlationId, status);
		if (details) {
			for (const detail of details) {
				rows.push({
					contact: detail.contact || contact,
					status: detail.status,
					reason: detail.reason,
					correlationId,
				});
			}
			continue;
		}
		for (let message = 0; message < count; message++) {
			rows.push({ contact, status, reason: '', correlationId });
		}
	}
	return rows;
}

export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	return await executePerCorrelationId.call(this, async function (correlationId, itemIndex) {
		return await getMessagesNotReceived.call(
			this,
			correlationId,
			readSentToContact.call(this, itemIndex),
		);
	});
}
