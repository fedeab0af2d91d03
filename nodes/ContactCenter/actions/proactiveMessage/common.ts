import {
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeProperties,
} from 'n8n-workflow';

import { withDeliveryNote } from '../../helpers/deliveryNote';
import { processItems } from '../../helpers/items';
import type { ErrorContext } from '../../helpers/nodeErrors';

export function correlationIdProperty(operation: string): INodeProperties {
	return {
		displayName: 'Correlation ID',
		name: 'correlationId',
		type: 'string',
		required: true,
		default: '={{ $json.correlationId }}',
		placeholder: 'e.g. 3f2a9c4e-8b1d-4e6f-9a2b-7c5d1e0f4a3b',
		description: "The correlationId that Send returned; the default takes it from Send's output",
		displayOptions: { show: { resource: ['proactiveMessage'], operation: [operation] } },
	};
}

/**
 * The contact a send went to, for status rows: the status overview names none, and the service
 * gives details (with the contact) for some statuses only. Send's output carries it as `contact`.
 */
export function sentToContactProperty(operation: string, description: string): INodeProperties {
	return {
		displayName: 'Contact',
		name: 'sentToContact',
		type: 'string',
		default: '={{ $json.contact }}',
		placeholder: 'e.g. +31612345678',
		description,
		displayOptions: { show: { resource: ['proactiveMessage'], operation: [operation] } },
	};
}

export function readSentToContact(this: IExecuteFunctions, itemIndex: number): string {
	const value = this.getNodeParameter('sentToContact', itemIndex, '') as unknown;
	return value === undefined || value === null ? '' : String(value).trim();
}

/**
 * The value as entered, for error messages and failed rows: it never throws. An expression that
 * found nothing reads as empty, never as the text "undefined" or "null".
 */
export function correlationIdAsEntered(this: IExecuteFunctions, itemIndex: number): string {
	const value = this.getNodeParameter('correlationId', itemIndex, '') as unknown;
	const text = value === undefined || value === null ? '' : String(value).trim();
	return text === 'undefined' || text === 'null' ? '' : text;
}

export function readCorrelationId(this: IExecuteFunctions, itemIndex: number): string {
	const correlationId = correlationIdAsEntered.call(this, itemIndex);
	if (correlationId === '') {
		throw new NodeOperationError(this.getNode(), "'Correlation ID' is empty", {
			description:
				"Map the correlationId that Send returned, for example {{ $json.correlationId }} (the default) right after Send; after other nodes, {{ $('Send').item.json.correlationId }} with the name of your Send node. Nothing was called.",
			itemIndex,
		});
	}
	return correlationId;
}

/**
 * Include Input Fields, in the Options of an operation: on by default, so that a row names whom it
 * is about (e.g. the first name and customer ID of the list Send sent to) without a Merge.
 */
export const includeInputFieldsOption: INodeProperties = {
	displayName: 'Include Input Fields',
	name: 'includeInputFields',
	type: 'boolean',
	default: true,
	description:
		"Whether each output item keeps its input item's fields (e.g. first name, customer ID), right after the status columns",
};

/** The Options of Get Status and Get Failed: Include Input Fields. */
export function statusOptionsProperty(operation: string): INodeProperties {
	return {
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: { show: { resource: ['proactiveMessage'], operation: [operation] } },
		options: [includeInputFieldsOption],
	};
}

/** Whether the operation's rows carry their input item's fields (on unless turned off). */
export function readIncludeInputFields(this: IExecuteFunctions): boolean {
	const options = this.getNodeParameter('options', 0, {}) as { includeInputFields?: boolean };
	return options.includeInputFields ?? true;
}

/** What a status call of the item was about, for its error's description. */
export function statusErrorContext(this: IExecuteFunctions, itemIndex: number): ErrorContext {
	return { operation: 'status', correlationId: correlationIdAsEntered.call(this, itemIndex) };
}

/** Runs `read` once per input item for the item's correlation id (Get Status, Get Failed). */
export async function executePerCorrelationId(
	this: IExecuteFunctions,
	read: (
		this: IExecuteFunctions,
		correlationId: string,
		itemIndex: number,
	) => Promise<IDataObject | IDataObject[]>,
): Promise<INodeExecutionData[]> {
	const rows = await processItems.call(this, {
		errorContext: (i) => statusErrorContext.call(this, i),
		failedItemFields: (i) => ({ correlationId: correlationIdAsEntered.call(this, i) }),
		includeInputFields: readIncludeInputFields.call(this),
		run: async (i) => await read.call(this, readCorrelationId.call(this, i), i),
	});
	return withDeliveryNotes(rows);
}

/** Rows that carry Send's columns (Include Input Fields) say what their status means in Send's note. */
export function withDeliveryNotes(rows: INodeExecutionData[]): INodeExecutionData[] {
	return rows.map((row) => ({ ...row, json: withDeliveryNote(row.json) }));
}
