import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { toNodeError, type ErrorContext } from './nodeErrors';

export interface ItemHandler {
	/** What the item's call is doing, so that an error can say what to fix. */
	errorContext: (itemIndex: number) => ErrorContext;
	/** Zero, one or more output rows for one input item. */
	run: (itemIndex: number) => Promise<IDataObject | IDataObject[]>;
	/** Fields that keep a failed item joinable to its input row when Continue On Fail is on. */
	failedItemFields?: (itemIndex: number, error: unknown) => IDataObject;
	/** Whether each output row carries its input item's fields (Include Input Fields). */
	includeInputFields?: boolean;
}

/** The columns that say what became of a row's message: they stay before the input's fields. */
const STATUS_COLUMNS = ['outcome', 'received', 'status', 'reason', 'error'];

/**
 * The row's status columns first (those of STATUS_COLUMNS it has, in its order), then the input
 * item's fields, then the row's other columns: the user's own fields (first name, customer ID)
 * show next to what happened, without scrolling. A column of the row wins over an input field of
 * the same name, as with Set's Include Other Input Fields.
 */
export function withInputFields(row: IDataObject, input: IDataObject | undefined): IDataObject {
	const merged: IDataObject = {};
	for (const [key, value] of Object.entries(row)) {
		if (STATUS_COLUMNS.includes(key)) merged[key] = value;
	}
	for (const [key, value] of Object.entries(input ?? {})) {
		if (!(key in row)) merged[key] = value;
	}
	for (const [key, value] of Object.entries(row)) merged[key] = value;
	return merged;
}

/**
 * Runs one handler per input item. Each output row is paired with its input item; with Continue
 * On Fail every failing input item yields exactly one row that carries the error, otherwise the
 * first failure stops the node with an error that names the item.
 */
export async function processItems(
	this: IExecuteFunctions,
	handler: ItemHandler,
): Promise<INodeExecutionData[]> {
	const returnData: INodeExecutionData[] = [];
	const inputItems = this.getInputData();
	const itemCount = inputItems.length;
	const withInput = (json: IDataObject, itemIndex: number) =>
		handler.includeInputFields ? withInputFields(json, inputItems[itemIndex]?.json) : json;
	for (let itemIndex = 0; itemIndex < itemCount; itemIndex++) {
		try {
			const rows = await handler.run(itemIndex);
			for (const json of Array.isArray(rows) ? rows : [rows]) {
				returnData.push({ json: withInput(json, itemIndex), pairedItem: { item: itemIndex } });
			}
		} catch (error) {
			const context = orFallback(() => handler.errorContext(itemIndex), {
				operation: 'unknown',
			} as const);
			const nodeError = toNodeError(this.getNode(), error, itemIndex, context);
			if (!this.continueOnFail()) throw nodeError;
			const failed: IDataObject = {
				...orFallback(() => handler.failedItemFields?.(itemIndex, error) ?? {}, {}),
				error: nodeError.message,
				...(nodeError.description ? { errorDescription: nodeError.description } : {}),
			};
			returnData.push({ json: withInput(failed, itemIndex), pairedItem: { item: itemIndex } });
		}
	}
	return returnData;
}

/**
 * Describing a failed item reads its parameters again; that must not fail a second time (for
 * example on a broken expression) and hide the error being reported.
 */
function orFallback<T>(read: () => T, fallback: T): T {
	try {
		return read();
	} catch {
		// Safe to ignore: see above; the item's own error is the one reported.
		return fallback;
	}
}
