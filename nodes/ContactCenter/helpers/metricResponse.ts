import type { IDataObject } from 'n8n-workflow';

const isRecord = (value: unknown): value is Record<string, unknown> =>
	typeof value === 'object' && value !== null && !Array.isArray(value);

function toValue(value: unknown): number | null | undefined {
	if (value === null) return null;
	if (typeof value === 'number' && Number.isFinite(value)) return value;
	if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) {
		return Number(value);
	}
	return undefined;
}

function firstArrayIn(body: unknown): unknown[] | undefined {
	if (Array.isArray(body)) return body;
	if (!isRecord(body)) return undefined;
	for (const value of Object.values(body)) {
		if (Array.isArray(value)) return value;
	}
	return isRecord(body.dataPoint) ? firstArrayIn(body.dataPoint) : undefined;
}

/** Spreadsheet-ready: nested values become JSON text so that every field fits one cell. */
function flatten(entry: unknown): IDataObject {
	if (!isRecord(entry)) return { value: toValue(entry) ?? (entry as IDataObject['value']) };
	const row: IDataObject = {};
	for (const [key, value] of Object.entries(entry)) {
		row[key] =
			isRecord(value) || Array.isArray(value)
				? JSON.stringify(value)
				: (value as IDataObject[string]);
	}
	if ('value' in entry) row.value = toValue(entry.value) ?? (row.value as IDataObject[string]);
	return row;
}

export interface MetricReading {
	/** One row for a plain data point; one per interval when the service returned a list. */
	rows: IDataObject[];
	/** Set when the body held neither a data point nor a list: the raw body as JSON text. */
	unrecognizedResponse?: string;
}

/**
 * Reads a metric response: `{dataPoint: {value}}` (spec 2.6), or, for grouped volume metrics whose
 * shape is undocumented, whatever list the body holds. Never throws on an unexpected shape.
 */
export function readMetricResponse(body: unknown): MetricReading {
	const list = firstArrayIn(body);
	if (list !== undefined) return { rows: list.map(flatten) };
	if (isRecord(body) && isRecord(body.dataPoint) && 'value' in body.dataPoint) {
		const value = toValue(body.dataPoint.value);
		if (value !== undefined) return { rows: [{ value }] };
	}
	return { rows: [{ value: null }], unrecognizedResponse: JSON.stringify(body ?? null) };
}
