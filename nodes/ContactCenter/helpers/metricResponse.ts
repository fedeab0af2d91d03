import type { IDataObject } from 'n8n-workflow';

import {
	formatInTimeZone,
	localColumnOf,
	sheetsDateTime,
	toInstant,
	type Instant,
} from './dateTime';

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

/** An ISO-8601 date-time that names its offset (Z or ±hh:mm), as a bucket's start is given. */
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i;

/**
 * The field of a bucket that holds its start: `timestamp` (the undocumented grouped shape as seen),
 * else its first field holding an ISO-8601 date-time with an offset.
 */
function startFieldOf(bucket: IDataObject): string | undefined {
	const isInstant = (value: unknown) => typeof value === 'string' && ISO_INSTANT.test(value.trim());
	if (isInstant(bucket.timestamp)) return 'timestamp';
	return Object.keys(bucket).find((key) => isInstant(bucket[key]));
}

export interface IntervalContext {
	metric: string;
	unit: string;
	/** The zone the intervals were counted in: the Timezone sent with the call. */
	timeZone: string;
	/** The filters as sent; only those set appear in the row. */
	filters: Record<string, string | undefined>;
	/** The workflow's zone, for the start's column as Google Sheets reads it (`<field>Local`). */
	workflowTimeZone: string;
}

/**
 * One interval of a grouped metric as one row: the metric, the interval's start as the service
 * gives it and the same start in the zone the intervals were counted in (`<field>InTimezone`,
 * e.g. 2026-11-20T03:00:00-05:00) and that zone by name (`timezone`: an offset does not say which
 * zone Workflow Time Zone was), the start in the workflow's zone as Google Sheets reads it
 * (`<field>Local`, e.g. 2026-11-20 03:00:00), then the service's other fields (value) as given, the unit and
 * the filters that were set. The range and interval are not repeated in every row.
 */
export function intervalRow(bucket: IDataObject, context: IntervalContext): IDataObject {
	const row: IDataObject = { metric: context.metric };
	const startField = startFieldOf(bucket);
	if (startField !== undefined) {
		row[startField] = bucket[startField];
		const start = toInstant(bucket[startField], 'UTC') as Instant;
		row[`${startField}InTimezone`] = formatInTimeZone(start.epochMs, context.timeZone);
	}
	row.timezone = context.timeZone;
	if (startField !== undefined) {
		const start = toInstant(bucket[startField], 'UTC') as Instant;
		row[localColumnOf(startField)] = sheetsDateTime(start.epochMs, context.workflowTimeZone);
	}
	for (const [key, value] of Object.entries(bucket)) if (key !== startField) row[key] = value;
	row.unit = context.unit;
	for (const [name, value] of Object.entries(context.filters)) {
		if (value !== undefined) row[name] = value;
	}
	return row;
}
