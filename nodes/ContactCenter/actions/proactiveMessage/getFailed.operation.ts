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
import { isRetryable } from '../../helpers/serviceError';
import { contactCenterApiRequest, ServiceRequestError } from '../../transport';
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
 * The service's details of the messages with `status`: `details`, `none` when it gives none (an
 * empty list), or `notRead` when it could not answer just then (a 429, a 5xx, no answer), which is
 * not the same as giving none. Details are documented for FAILED only, whose errors are the item's
 * (thrown); DELIVERING_FAILED is asked all the same, and a refusal there means the service gives none.
 */
export type StatusDetails =
	| { kind: 'details'; details: FailedMessage[] }
	| { kind: 'none' }
	| { kind: 'notRead'; why: string };

export async function readStatusDetails(
	this: IExecuteFunctions,
	correlationId: string,
	status: string,
): Promise<StatusDetails> {
	const request = contactCenterApiRequest.call(
		this,
		'GET',
		`/proactive-messaging/${encodeURIComponent(correlationId)}/${status}`,
	);
	const detailsOf = (body: unknown): StatusDetails => {
		const details = normalizeFailedMessages(body, correlationId, status);
		return details.length > 0 ? { kind: 'details', details } : { kind: 'none' };
	};
	if (status === 'FAILED') return detailsOf(await request);
	return await request.then(detailsOf, (error: unknown): StatusDetails => {
		if (!(error instanceof ServiceRequestError) || isRetryable(error.failure))
			return { kind: 'notRead', why: whyNotRead(error) };
		// An answer that refuses this status: the service gives no details for it.
		return { kind: 'none' };
	});
}

/** Why details could not be read, in a few words: the HTTP status and the service's words. */
export function whyNotRead(error: unknown): string {
	const failure = error instanceof ServiceRequestError ? error.failure : undefined;
	const words = failure?.messages.join('; ') || (error as Error).message;
	if (failure?.status !== undefined) return `HTTP ${failure.status}${words ? `: ${words}` : ''}`;
	return `no answer: ${words}`;
}

/** The `reason` of a row whose details could not be read: never empty, so that it is not taken for "none given". */
export const detailsNotReadReason = (why: string) =>
	`The service's details could not be read (${why}); run Get Failed again later for the reason`;

/**
 * Details not read in a run, said once in the run (a warning under the output) and once in n8n's
 * log, however many rows they concern: a rate limit hit by a list of thousands is one line.
 */
export class DetailsNotRead {
	private count = 0;
	private lastWhy = '';

	note(why: string): void {
		this.count++;
		this.lastWhy = why;
	}

	report(context: IExecuteFunctions): void {
		if (this.count === 0) return;
		const reads = this.count === 1 ? '1 read' : `${this.count} reads`;
		const message = `The service's details of failed messages could not be read (${reads}, the last: ${this.lastWhy}): the reason of their rows says so, it is not the service's. Run Get Failed again later for the reasons.`;
		context.addExecutionHints({ message, type: 'warning', location: 'outputPane' });
		context.logger.warn(`Contact Center "${context.getNode().name}": ${message}`, {
			workflowId: context.getWorkflow().id,
		});
	}
}

/**
 * One row per message of the send that did not reach its contact, FAILED or DELIVERING_FAILED,
 * read from the status counts: the service's details where it gives them, else the mapped contact.
 * `reason` is the service's, or empty when it gives none (it documents none for DELIVERING_FAILED),
 * so that a sheet can filter on it; where the details could not be read, it says so and why.
 */
export async function getMessagesNotReceived(
	this: IExecuteFunctions,
	correlationId: string,
	contact: string,
	notRead: DetailsNotRead,
): Promise<IDataObject[]> {
	const overview = await getStatusOverview.call(this, correlationId);
	const rows: IDataObject[] = [];
	for (const status of NOT_RECEIVED_STATUSES) {
		const count = Number(overview[status] ?? 0);
		if (!(count > 0)) continue;
		const read = await readStatusDetails.call(this, correlationId, status);
		if (read.kind === 'details') {
			for (const detail of read.details) {
				rows.push({
					contact: detail.contact || contact,
					status: detail.status,
					reason: detail.reason,
					correlationId,
				});
			}
			continue;
		}
		if (read.kind === 'notRead') notRead.note(read.why);
		const reason = read.kind === 'notRead' ? detailsNotReadReason(read.why) : '';
		for (let message = 0; message < count; message++) {
			rows.push({ contact, status, reason, correlationId });
		}
	}
	return rows;
}

export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	const notRead = new DetailsNotRead();
	const rows = await executePerCorrelationId.call(this, async function (correlationId, itemIndex) {
		return await getMessagesNotReceived.call(
			this,
			correlationId,
			readSentToContact.call(this, itemIndex),
			notRead,
		);
	});
	notRead.report(this);
	return rows;
}
