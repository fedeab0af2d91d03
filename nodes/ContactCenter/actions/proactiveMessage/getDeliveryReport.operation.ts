import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	IPairedItemData,
} from 'n8n-workflow';

import {
	deliverySummary,
	reportRow,
	rowOfUnsentItem,
	textAt,
	type ReportOutput,
} from '../../helpers/deliveryReport';
import { processItems } from '../../helpers/items';
import {
	currentStatusOf,
	NOT_RECEIVED_STATUSES,
	type Received,
} from '../../helpers/statusOverview';
import {
	correlationIdAsEntered,
	correlationIdProperty,
	readCorrelationId,
	readIncludeInputFields,
	readSentToContact,
	sentToContactProperty,
	statusErrorContext,
	statusOptionsProperty,
	withDeliveryNotes,
} from './common';
import {
	DetailsNotRead,
	detailsNotReadReason,
	readStatusDetails,
	whyNotRead,
	type StatusDetails,
} from './getFailed.operation';
import { getStatusOverview } from './getStatus.operation';

const OPERATION = 'getDeliveryReport';
const show = { resource: ['proactiveMessage'], operation: [OPERATION] };
const DEFAULT_NAME_FIELD = 'firstName';

export const description: INodeProperties[] = [
	correlationIdProperty(OPERATION),
	sentToContactProperty(
		OPERATION,
		"The contact the message was sent to, copied into each row (the service's status counts name none) and naming a contact without a name in the summary. The default takes it from Send's output.",
	),
	{
		displayName: 'Output',
		name: 'output',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'One Row per Contact',
				value: 'perContact',
				description: 'Received, status and reason per contact, for a sheet',
			},
			{
				name: 'Summary',
				value: 'summary',
				description: 'One item: who got it, who did not, for a message',
			},
		],
		default: 'perContact',
		description: 'Whether to output one row per input item or one item that sums them all up',
		displayOptions: { show },
	},
	{
		displayName: 'Name Field',
		name: 'nameField',
		type: 'string',
		default: DEFAULT_NAME_FIELD,
		placeholder: 'e.g. firstName',
		hint: 'A contact without this field is named by its Contact',
		description:
			'The input field whose value names each contact in the summary; nested fields in dot notation, e.g. customer.name',
		displayOptions: { show: { ...show, output: ['summary'] } },
	},
	{
		...statusOptionsProperty(OPERATION),
		displayOptions: { show: { ...show, output: ['perContact'] } },
	},
];

/**
 * The service's reason a message with `status` did not reach its contact (several joined by '; '),
 * '' for any other status or when it gives none. A reason that cannot be read does not fail the
 * row (the status is what was asked for): it says so and why, and `notRead` says it once in the run.
 */
export async function notReceivedReason(
	this: IExecuteFunctions,
	correlationId: string,
	status: string,
	notRead: DetailsNotRead,
): Promise<string> {
	if (!NOT_RECEIVED_STATUSES.includes(status)) return '';
	const read = await readStatusDetails
		.call(this, correlationId, status)
		.catch((error: unknown): StatusDetails => ({ kind: 'notRead', why: whyNotRead(error) }));
	if (read.kind === 'none') return '';
	if (read.kind === 'details')
		return read.details
			.map((detail) => detail.reason)
			.filter(Boolean)
			.join('; ');
	notRead.note(read.why);
	return detailsNotReadReason(read.why);
}

async function readReportRow(
	this: IExecuteFunctions,
	itemIndex: number,
	notRead: DetailsNotRead,
): Promise<IDataObject> {
	const contact = readSentToContact.call(this, itemIndex);
	if (correlationIdAsEntered.call(this, itemIndex) === '') {
		const unsent = rowOfUnsentItem(this.getInputData()[itemIndex]?.json, contact);
		if (unsent) return unsent;
	}
	const correlationId = readCorrelationId.call(this, itemIndex);
	const overview = await getStatusOverview.call(this, correlationId);
	const status = currentStatusOf(overview);
	const reason = await notReceivedReason.call(this, correlationId, status, notRead);
	return reportRow(overview, contact, reason);
}

/** The report's rows, one per input item; with Continue On Fail a row whose status was not read is unconfirmed. */
async function reportRows(
	this: IExecuteFunctions,
	includeInputFields: boolean,
): Promise<INodeExecutionData[]> {
	const notRead = new DetailsNotRead();
	const rows = await processItems.call(this, {
		errorContext: (i) => statusErrorContext.call(this, i),
		failedItemFields: (i) => ({
			received: 'unconfirmed',
			status: '',
			reason: '',
			contact: readSentToContact.call(this, i),
			correlationId: correlationIdAsEntered.call(this, i),
		}),
		includeInputFields,
		run: async (i) => await readReportRow.call(this, i, notRead),
	});
	notRead.report(this);
	return withDeliveryNotes(rows);
}

export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	const output = this.getNodeParameter('output', 0, 'perContact') as ReportOutput;
	if (output !== 'summary') return await reportRows.call(this, readIncludeInputFields.call(this));
	const inputItems = this.getInputData();
	const entries = (await reportRows.call(this, false)).map(({ json, pairedItem }) => {
		const itemIndex = (pairedItem as IPairedItemData).item;
		const nameField = String(this.getNodeParameter('nameField', itemIndex, DEFAULT_NAME_FIELD));
		return {
			name:
				textAt(inputItems[itemIndex]?.json, nameField) ||
				String(json.contact ?? '') ||
				`item ${itemIndex + 1}`,
			received: json.received as Received,
			notRead: 'error' in json,
		};
	});
	return [
		{
			json: deliverySummary(entries),
			pairedItem: inputItems.map((_, item) => ({ item })),
		},
	];
}
