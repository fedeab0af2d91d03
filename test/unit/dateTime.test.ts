import {
	formatInTimeZone,
	isValidTimeZone,
	timeZoneNames,
	toInstant,
	type Instant,
	sheetsDateTime,
	withLocalTimes,
} from '../../nodes/ContactCenter/helpers/dateTime';

const instant = (value: unknown, timeZone: string) => toInstant(value, timeZone) as Instant;

describe('toInstant', () => {
	it('keeps a value that carries an offset as written', () => {
		expect(toInstant('2026-11-20T08:00:00Z', 'Europe/Amsterdam')).toEqual({
			epochMs: Date.parse('2026-11-20T08:00:00Z'),
			iso: '2026-11-20T08:00:00Z',
		});
		expect(instant('2026-11-20T08:00:00-0500', 'UTC').epochMs).toBe(
			Date.parse('2026-11-20T13:00:00Z'),
		);
	});

	it('reads a wall clock without offset in the given zone, across daylight saving', () => {
		expect(toInstant('2026-07-01T12:00:00', 'Europe/Amsterdam')).toEqual({
			epochMs: Date.parse('2026-07-01T10:00:00Z'),
			iso: '2026-07-01T12:00:00+02:00',
		});
		expect(instant('2026-01-01', 'America/New_York').iso).toBe('2026-01-01T00:00:00-05:00');
	});

	it('accepts a Date and a Luxon-like DateTime', () => {
		const date = new Date('2026-11-20T08:00:00Z');
		expect(toInstant(date, 'UTC')).toEqual({
			epochMs: date.getTime(),
			iso: '2026-11-20T08:00:00+00:00',
		});
		expect(instant({ toISO: () => '2026-11-20T09:00:00.000+01:00' }, 'UTC').epochMs).toBe(
			date.getTime(),
		);
	});

	it.each(['', 'tomorrow', '2026-02-30T10:00:00', '2026-11-20T25:00:00', '20261120'])(
		'says why %p is not a date-time',
		(value) => {
			expect(toInstant(value, 'UTC')).toHaveProperty('invalid');
		},
	);
});

describe('time zones', () => {
	it('knows IANA names only', () => {
		expect(isValidTimeZone('Asia/Kolkata')).toBe(true);
		expect(isValidTimeZone('Mars/Olympus')).toBe(false);
	});

	it('formats with half-hour offsets', () => {
		expect(formatInTimeZone(Date.parse('2026-11-20T08:00:00Z'), 'Asia/Kolkata')).toBe(
			'2026-11-20T13:30:00+05:30',
		);
	});
});

describe('timeZoneNames', () => {
	it('lists UTC first, once, then every IANA zone Node knows, each valid', () => {
		const names = timeZoneNames();
		expect(names[0]).toBe('UTC');
		expect(names.filter((name) => name === 'UTC')).toHaveLength(1);
		expect(names).toEqual(expect.arrayContaining(['Europe/Amsterdam', 'America/New_York']));
		expect(names.every(isValidTimeZone)).toBe(true);
	});
});

describe('withLocalTimes', () => {
	it('adds each time column in the workflow zone as Google Sheets reads a date, right after it', () => {
		const row = {
			outcome: 'accepted',
			sentAt: '2026-11-20T14:00:00.000Z',
			note: '',
		};
		const local = withLocalTimes(row, ['sentAt'], 'America/New_York');
		expect(local).toEqual({ ...row, sentAtLocal: '2026-11-20 09:00:00' });
		expect(Object.keys(local)).toEqual(['outcome', 'sentAt', 'sentAtLocal', 'note']);
	});

	it('names a UTC column without its suffix, and keeps an empty cell empty', () => {
		const row = { fromUtc: null, toUtc: '2026-07-01T08:30:00.000Z', sentAt: '', other: 'x' };
		expect(withLocalTimes(row, ['fromUtc', 'toUtc', 'sentAt'], 'Europe/Amsterdam')).toEqual({
			fromUtc: null,
			fromLocal: null,
			toUtc: '2026-07-01T08:30:00.000Z',
			toLocal: '2026-07-01 10:30:00',
			sentAt: '',
			sentAtLocal: '',
			other: 'x',
		});
		expect(sheetsDateTime(Date.UTC(2026, 0, 1, 0, 0, 0), 'Asia/Kolkata')).toBe(
			'2026-01-01 05:30:00',
		);
	});
});
