import { intervalRow, readMetricResponse } from '../../nodes/ContactCenter/helpers/metricResponse';
import {
	classifyFailure,
	failureInSuccessfulResponse,
	isRetryable,
	mayHaveReachedService,
} from '../../nodes/ContactCenter/helpers/serviceError';
import { retryAfterMs } from '../../nodes/shared/retryAfter';
import {
	normalizeFailedMessages,
	normalizeStatusOverview,
} from '../../nodes/ContactCenter/helpers/statusOverview';

describe('classifyFailure: the error shapes of spec 7', () => {
	it('reads send validation errors (errors array) and keeps the service words', () => {
		const failure = classifyFailure({
			status: 400,
			body: { errors: ['contactReference: must not be blank', 'medium: must not be null'] },
		});
		expect(failure).toMatchObject({
			kind: 'validation',
			status: 400,
			messages: ['contactReference: must not be blank', 'medium: must not be null'],
		});
		expect(isRetryable(failure)).toBe(false);
	});

	it('reads the timestamp/path/status/error/message shape', () => {
		const body = {
			timestamp: '2026-11-22T10:00:00Z',
			path: '/proactive-messaging/',
			status: 400,
			error: 'Bad Request',
			message: 'medium: unknown value SMS',
		};
		expect(classifyFailure({ status: 400, body })).toMatchObject({
			kind: 'validation',
			messages: ['medium: unknown value SMS'],
		});
	});

	it('reads the metrics errors with errorType null, even with a 200', () => {
		const body = { errors: ['Bad request parameters: invalid timezone'], errorType: null };
		expect(failureInSuccessfulResponse(200, body)).toMatchObject({
			kind: 'validation',
			messages: ['Bad request parameters: invalid timezone'],
		});
		expect(failureInSuccessfulResponse(200, { dataPoint: { value: 3 } })).toBeUndefined();
	});

	it('treats an unknown correlation id as not found, whatever the status', () => {
		expect(
			classifyFailure({
				status: 400,
				body: { errors: ['No proactive messages found for correlationId x'] },
			}).kind,
		).toBe('notFound');
		expect(classifyFailure({ status: 404, body: '' }).kind).toBe('notFound');
	});

	it('treats 429 and a rate-limit message alike, with Retry-After', () => {
		const by429 = classifyFailure({ status: 429, body: '', headers: { 'Retry-After': '3' } });
		expect(by429).toMatchObject({ kind: 'rateLimited', retryAfterMs: 3000 });
		expect(classifyFailure({ status: 400, body: { errors: ['Rate limit exceeded'] } }).kind).toBe(
			'rateLimited',
		);
		expect(isRetryable(by429)).toBe(true);
	});

	it('retries server and network errors, not 401', () => {
		expect(isRetryable(classifyFailure({ status: 503, body: 'busy' }))).toBe(true);
		expect(
			isRetryable(classifyFailure({ networkCode: 'ECONNRESET', networkMessage: 'socket hang up' })),
		).toBe(true);
		expect(classifyFailure({ status: 401, body: '' })).toMatchObject({
			kind: 'unauthorized',
			messages: [],
		});
	});

	it('tells failures the service may have carried out from those it cannot have', () => {
		const network = (networkCode: string) => classifyFailure({ networkCode, networkMessage: '' });
		expect(mayHaveReachedService(classifyFailure({ status: 500, body: '' }))).toBe(true);
		expect(mayHaveReachedService(network('ECONNRESET'))).toBe(true);
		expect(mayHaveReachedService(network('ECONNABORTED'))).toBe(true);
		expect(mayHaveReachedService(classifyFailure({}))).toBe(true);
		expect(mayHaveReachedService(network('ECONNREFUSED'))).toBe(false);
		expect(mayHaveReachedService(network('ENOTFOUND'))).toBe(false);
		expect(mayHaveReachedService(classifyFailure({ status: 429, body: '' }))).toBe(false);
		expect(mayHaveReachedService(classifyFailure({ status: 400, body: { errors: ['x'] } }))).toBe(
			false,
		);
	});

	it('reads Retry-After as seconds or as an HTTP date', () => {
		expect(retryAfterMs({ 'retry-after': '1.5' })).toBe(1500);
		expect(retryAfterMs({ 'retry-after': new Date(10_000).toUTCString() }, 4000)).toBe(6000);
		expect(retryAfterMs({})).toBeUndefined();
	});
});

describe('normalizeStatusOverview', () => {
	it('makes total a number when the service sends a string', () => {
		const overview = normalizeStatusOverview(
			{ correlationId: 'c1', total: '3', statuses: { SENT: 1, DELIVERED: '2' } },
			'c1',
		);
		expect(overview).toEqual({
			correlationId: 'c1',
			total: 3,
			PROCESSING: 0,
			FAILED: 0,
			SENT: 1,
			DELIVERED: 2,
			DELIVERING_FAILED: 0,
		});
	});

	it('sums the statuses when total is missing or unreadable, and keeps unknown statuses', () => {
		const overview = normalizeStatusOverview(
			{ total: 'many', statuses: { FAILED: 1, QUEUED_ELSEWHERE: 2 } },
			'c2',
		);
		expect(overview).toMatchObject({
			correlationId: 'c2',
			total: 3,
			FAILED: 1,
			QUEUED_ELSEWHERE: 2,
		});
	});

	it('never crashes on an empty or odd body', () => {
		expect(normalizeStatusOverview(undefined, 'c3')).toMatchObject({
			correlationId: 'c3',
			total: 0,
		});
		expect(normalizeStatusOverview('text', 'c3').total).toBe(0);
	});
});

describe('normalizeFailedMessages', () => {
	it('gives one row per failed message with its correlation id', () => {
		expect(
			normalizeFailedMessages(
				[{ status: 'FAILED', contact: '+1555', reason: 'Invalid number' }],
				'c1',
			),
		).toEqual([
			{ correlationId: 'c1', status: 'FAILED', contact: '+1555', reason: 'Invalid number' },
		]);
	});

	it('accepts an object wrapping the list, and nothing', () => {
		expect(normalizeFailedMessages({ items: [{ contact: '+1', reason: 'x' }] }, 'c1')).toHaveLength(
			1,
		);
		expect(normalizeFailedMessages([], 'c1')).toEqual([]);
		expect(normalizeFailedMessages(null, 'c1')).toEqual([]);
	});
});

describe('readMetricResponse', () => {
	it('reads the data point of spec 2.6, null included', () => {
		expect(readMetricResponse({ dataPoint: { value: 12 } })).toEqual({ rows: [{ value: 12 }] });
		expect(readMetricResponse({ dataPoint: { value: null } })).toEqual({ rows: [{ value: null }] });
	});

	it('gives one row per interval for any list-shaped grouped response', () => {
		expect(
			readMetricResponse({
				dataPoints: [
					{ timestamp: 't1', value: 1 },
					{ timestamp: 't2', value: '2' },
				],
			}).rows,
		).toEqual([
			{ timestamp: 't1', value: 1 },
			{ timestamp: 't2', value: 2 },
		]);
		expect(readMetricResponse([3, 4]).rows).toEqual([{ value: 3 }, { value: 4 }]);
		expect(
			readMetricResponse({ dataPoint: { intervals: [{ start: 's', count: { n: 1 } }] } }).rows,
		).toEqual([{ start: 's', count: '{"n":1}' }]);
	});

	it('says what came back when the shape is unknown', () => {
		expect(readMetricResponse({ surprise: true })).toEqual({
			rows: [{ value: null }],
			unrecognizedResponse: '{"surprise":true}',
		});
		expect(readMetricResponse(undefined).unrecognizedResponse).toBe('null');
	});
});

describe('intervalRow', () => {
	const context = {
		metric: 'inboundMessageVolume',
		unit: 'messages',
		timeZone: 'America/New_York',
		workflowTimeZone: 'Europe/Amsterdam',
		filters: { mediumId: 'fb', channelId: undefined },
	};

	it('puts the start as given and in the zone first, then the zone by name, then the value; only the filters set', () => {
		const row = intervalRow({ value: 7, timestamp: '2026-11-20T08:00:00.000Z' }, context);
		expect(row).toEqual({
			metric: 'inboundMessageVolume',
			timestamp: '2026-11-20T08:00:00.000Z',
			timestampInTimezone: '2026-11-20T03:00:00-05:00',
			timezone: 'America/New_York',
			timestampLocal: '2026-11-20 09:00:00',
			value: 7,
			unit: 'messages',
			mediumId: 'fb',
		});
		expect(Object.keys(row).slice(0, 4)).toEqual([
			'metric',
			'timestamp',
			'timestampInTimezone',
			'timezone',
		]);
	});

	it('finds a start under another name, with any offset, and keeps every field the service gave', () => {
		expect(
			intervalRow(
				{ count: 2, start: '2026-07-01T00:00:00+0200', label: 'x' },
				{ ...context, filters: {} },
			),
		).toEqual({
			metric: 'inboundMessageVolume',
			start: '2026-07-01T00:00:00+0200',
			startInTimezone: '2026-06-30T18:00:00-04:00',
			timezone: 'America/New_York',
			startLocal: '2026-07-01 00:00:00',
			count: 2,
			label: 'x',
			unit: 'messages',
		});
	});

	it('adds no zoned start when no field holds a date-time with an offset, still the zone', () => {
		expect(intervalRow({ value: 1, day: 'monday' }, { ...context, filters: {} })).toEqual({
			metric: 'inboundMessageVolume',
			timezone: 'America/New_York',
			value: 1,
			day: 'monday',
			unit: 'messages',
		});
	});
});
