import type { IDataObject } from 'n8n-workflow';

export interface Instant {
	epochMs: number;
	/** What is sent to the service: ISO-8601 with an explicit offset. */
	iso: string;
}

/** Why a value could not be read as a date-time. */
export interface InvalidDateTime {
	invalid: string;
}

const ISO_PATTERN =
	/^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?(Z|[+-]\d{2}:?\d{2})?$/i;

export function isValidTimeZone(timeZone: string): boolean {
	try {
		new Intl.DateTimeFormat('en-US', { timeZone });
		return true;
	} catch {
		// Safe to ignore: Intl refusing the name is the answer.
		return false;
	}
}

/** The IANA time zone names this Node.js knows, UTC first (Intl lists only the zones of places). */
export function timeZoneNames(): string[] {
	return ['UTC', ...Intl.supportedValuesOf('timeZone').filter((zone) => zone !== 'UTC')];
}

/** Milliseconds to add to a UTC instant to get the wall clock of `timeZone` at that instant. */
function timeZoneOffsetMs(epochMs: number, timeZone: string): number {
	const parts = new Intl.DateTimeFormat('en-US', {
		timeZone,
		hourCycle: 'h23',
		year: 'numeric',
		month: '2-digit',
		day: '2-digit',
		hour: '2-digit',
		minute: '2-digit',
		second: '2-digit',
	}).formatToParts(new Date(epochMs));
	const part = (type: string) => Number(parts.find((p) => p.type === type)?.value);
	const wallClockAsUtc = Date.UTC(
		part('year'),
		part('month') - 1,
		part('day'),
		part('hour'),
		part('minute'),
		part('second'),
	);
	return wallClockAsUtc - (epochMs - (epochMs % 1000));
}

function formatOffset(offsetMs: number): string {
	const totalMinutes = Math.round(offsetMs / 60000);
	const sign = totalMinutes < 0 ? '-' : '+';
	const absolute = Math.abs(totalMinutes);
	const pad = (n: number) => String(n).padStart(2, '0');
	return `${sign}${pad(Math.floor(absolute / 60))}:${pad(absolute % 60)}`;
}

/** ISO-8601 of an instant as the wall clock of `timeZone` with its offset, e.g. 2026-11-20T09:00:00+01:00. */
export function formatInTimeZone(epochMs: number, timeZone: string): string {
	const offsetMs = timeZoneOffsetMs(epochMs, timeZone);
	const wallClock = new Date(epochMs + offsetMs).toISOString().slice(0, 19);
	return `${wallClock}${formatOffset(offsetMs)}`;
}

function isDateLike(value: object): value is { toISO: () => string | null } {
	return typeof (value as { toISO?: unknown }).toISO === 'function';
}

/**
 * Reads a date-time as n8n hands it to a node: an ISO string with or without offset (the date
 * picker gives none: it means the workflow's time zone), a JavaScript Date or a Luxon DateTime.
 */
export function toInstant(value: unknown, timeZone: string): Instant | InvalidDateTime {
	if (value instanceof Date) {
		if (Number.isNaN(value.getTime())) return { invalid: 'it is an invalid date' };
		return { epochMs: value.getTime(), iso: formatInTimeZone(value.getTime(), timeZone) };
	}
	if (value !== null && typeof value === 'object' && isDateLike(value)) {
		return toInstant(value.toISO() ?? '', timeZone);
	}
	const text = String(value ?? '').trim();
	const match = ISO_PATTERN.exec(text);
	if (!match) {
		return { invalid: `'${text}' is not an ISO-8601 date-time` };
	}
	const [, year, month, day, hour = '00', minute = '00', second = '00', fraction = '0', offset] =
		match;
	const wallClockAsUtc = Date.UTC(
		Number(year),
		Number(month) - 1,
		Number(day),
		Number(hour),
		Number(minute),
		Number(second),
		Number(fraction.padEnd(3, '0').slice(0, 3)),
	);
	const check = new Date(wallClockAsUtc);
	if (
		check.getUTCMonth() !== Number(month) - 1 ||
		check.getUTCDate() !== Number(day) ||
		Number(hour) > 23 ||
		Number(minute) > 59 ||
		Number(second) > 59
	) {
		return { invalid: `'${text}' is not a valid calendar date and time` };
	}
	if (offset !== undefined) {
		const offsetMs =
			offset.toUpperCase() === 'Z'
				? 0
				: (offset.startsWith('-') ? -1 : 1) *
					(Number(offset.slice(1, 3)) * 60 + Number(offset.slice(-2))) *
					60000;
		return { epochMs: wallClockAsUtc - offsetMs, iso: text.replace(' ', 'T') };
	}
	// A wall clock in a zone with daylight saving: the offset at the guessed instant may differ from
	// the offset at the real instant, so the guess is corrected once.
	const firstGuess = wallClockAsUtc - timeZoneOffsetMs(wallClockAsUtc, timeZone);
	const epochMs = wallClockAsUtc - timeZoneOffsetMs(firstGuess, timeZone);
	return { epochMs, iso: formatInTimeZone(epochMs, timeZone) };
}

/** The one form of every date-time in a metric output: UTC, e.g. 2026-11-20T08:00:00.000Z. */
export function toUtcIso(epochMs: number | undefined): string | null {
	return epochMs === undefined ? null : new Date(epochMs).toISOString();
}

/** A moment as Google Sheets reads a date and time: the wall clock of `timeZone`, e.g. 2026-11-20 09:00:00. */
export function sheetsDateTime(epochMs: number, timeZone: string): string {
	return formatInTimeZone(epochMs, timeZone).slice(0, 19).replace('T', ' ');
}

/** The column beside `column` that holds its moment in the workflow's zone: sentAt gives sentAtLocal, fromUtc fromLocal. */
export const localColumnOf = (column: string) => `${column.replace(/Utc$/, '')}Local`;

/**
 * The row with, right after each of `columns`, the same moment in `timeZone` (the workflow's) as
 * Google Sheets reads it (localColumnOf). An empty cell (null or '') stays empty, and so does one
 * that holds no date-time.
 */
export function withLocalTimes(
	row: IDataObject,
	columns: readonly string[],
	timeZone: string,
): IDataObject {
	const result: IDataObject = {};
	for (const [column, value] of Object.entries(row)) {
		result[column] = value;
		if (!columns.includes(column)) continue;
		const instant = typeof value === 'string' && value !== '' ? toInstant(value, 'UTC') : undefined;
		result[localColumnOf(column)] =
			instant !== undefined && 'epochMs' in instant
				? sheetsDateTime(instant.epochMs, timeZone)
				: value === null
					? null
					: '';
	}
	return result;
}
