import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

import { normalizeFailedMessages, type FailedMessage } from '../../helpers/statusOverview';
import { contactCenterApiRequest } from '../../transport';
import {
	correlationIdProperty,
	executePerCorrelationId,
	readSentToContact,
	sentToContactProperty,
} from './common';
import { getStatusOverview } from './getStatus.operation';

/** Statuses of messages that did not reach the contact: not sent (FAILED), sent but not delivered. */
export const NOT_RECEIVED_STATUSES: readonly string[] = ['FAILED', 'DELIVERING_FAILED'];

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
];

/** The reason of a row the service gave no details for: it says so, in the row. */
export const noDetailsGiven = (status: string) =>
	`No reason given: the service gives no details for ${status} messages`;
export const NO_REASON_IN_DETAILS = 'No reason given by the service';

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
 * read from the status counts: the service's details where it gives them, else the mapped contact
 * and a reason that says nothing was given (`detailsFromService: false`).
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
					correlationId,
					contact: detail.contact || contact,
					status: detail.status,
					reason: detail.reason || NO_REASON_IN_DETAILS,
					detailsFromService: true,
				});
			}
			continue;
		}
		for (let message = 0; message < count; message++) {
			rows.push({
				correlationId,
				contact,
				status,
				reason: noDetailsGiven(status),
				detailsFromService: false,
			});
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
