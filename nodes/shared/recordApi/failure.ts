import { retryAfterMs } from '../retryAfter';

/**
 * A failed call to n8n's public API as n8n-core's httpRequest throws it: axios-shaped, with the
 * answer under `response` (some versions nest it under `cause`) and a system error `code` when
 * nothing was answered.
 */
export interface HttpFailure {
	message?: string;
	code?: string;
	httpCode?: string;
	response?: { status?: number; data?: unknown; headers?: Record<string, unknown> };
	cause?: {
		message?: string;
		code?: string;
		response?: { status?: number; data?: unknown; headers?: Record<string, unknown> };
	};
}

/** The HTTP status n8n answered, 0 when there was no answer. */
export const statusOf = (error: HttpFailure): number =>
	Number(error.httpCode ?? error.response?.status ?? error.cause?.response?.status ?? 0) || 0;

/**
 * The failure's message with n8n's own explanation from the answer's body, when it gave one
 * (httpRequest's message is only "Request failed with status code 400").
 */
export function failureMessage(error: HttpFailure): string {
	const message = error.message || 'request failed';
	const body = error.response?.data ?? error.cause?.response?.data;
	const explanation =
		typeof body === 'object' && body !== null && 'message' in body
			? (body as { message: unknown }).message
			: undefined;
	if (typeof explanation !== 'string' || explanation === '' || message.includes(explanation))
		return message;
	return `${message}: ${explanation}`;
}

/** n8n refused a data table write because all data tables together reached its size limit. */
export const isSizeLimitFailure = (message: string): boolean =>
	/data table size limit exceeded/i.test(message);

/**
 * What a failed record call means, which decides whether to try again and what the error says:
 * - `rateLimited`: 429, n8n's rate limit of the API key (n8n 2.47 and later);
 * - `unavailable`: no answer (refused, reset, timed out) or a 5xx: n8n's API or its database;
 * - `credential`: 401 or 403, the key;
 * - `notFound`: 404, the table is gone (or is another user's);
 * - `refused`: any other answer, e.g. a 400 for n8n's data table size limit.
 */
export type RecordFailureKind =
	| 'rateLimited'
	| 'unavailable'
	| 'credential'
	| 'notFound'
	| 'refused';

export interface RecordFailure {
	kind: RecordFailureKind;
	/** The HTTP status, 0 when nothing was answered. */
	status: number;
	message: string;
	retryAfterMs?: number;
	/** The limit n8n named in its answer's rate-limit headers, as sent (e.g. `100;w=60`). */
	limit?: string;
}

const RATE_LIMIT_HEADERS = [
	'ratelimit-policy',
	'ratelimit-limit',
	'x-ratelimit-limit',
	'ratelimit',
];

function limitOf(headers: Record<string, unknown> | undefined): string | undefined {
	const byName = new Map(
		Object.entries(headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]),
	);
	const name = RATE_LIMIT_HEADERS.find((header) => byName.get(header) !== undefined);
	return name === undefined ? undefined : String(byName.get(name));
}

export function classifyRecordFailure(error: HttpFailure, now = Date.now()): RecordFailure {
	const status = statusOf(error);
	const message = failureMessage(error);
	if (status === 0) {
		const code = error.code ?? error.cause?.code;
		return {
			kind: 'unavailable',
			status,
			message: code && !message.includes(code) ? `${code}: ${message}` : message,
		};
	}
	const body = error.response?.data ?? error.cause?.response?.data;
	if (status === 404 && (typeof body !== 'object' || body === null)) {
		// Not n8n's public API answering (it answers a missing table in JSON): the route is not
		// there, as while n8n starts up (its server listens before it mounts the API).
		return {
			kind: 'unavailable',
			status,
			message: `${message}${textOf(body)}: n8n's public API is not there (n8n is starting up, or the n8n API URL is wrong)`,
		};
	}
	const headers = error.response?.headers ?? error.cause?.response?.headers;
	const wait = retryAfterMs(headers, now);
	const limit = limitOf(headers);
	const failure = (kind: RecordFailureKind): RecordFailure => ({
		kind,
		status,
		message,
		...(wait !== undefined ? { retryAfterMs: wait } : {}),
		...(limit !== undefined ? { limit } : {}),
	});
	if (status === 429) return failure('rateLimited');
	if (status >= 500 || status === 408) return failure('unavailable');
	if (status === 401 || status === 403) return failure('credential');
	if (status === 404) return failure('notFound');
	return failure('refused');
}

const textOf = (body: unknown) =>
	typeof body === 'string' && body.trim() !== ''
		? ` (${body
				.replace(/<[^>]*>/g, ' ')
				.replace(/\s+/g, ' ')
				.trim()
				.slice(0, 120)})`
		: '';

/**
 * A 2xx answer in words rather than JSON is not n8n's public API answering: n8n answers every
 * call with "n8n is starting up. Please wait" (200) while it migrates its database at a start,
 * without carrying the call out. Undefined for any other answer.
 */
export function textAnswerFailure(answer: unknown): RecordFailure | undefined {
	if (typeof answer !== 'string' || answer.trim() === '') return undefined;
	return {
		kind: 'unavailable',
		status: 200,
		message: `n8n answered in words, not JSON${textOf(answer)}`,
	};
}

/**
 * How long the record waits for n8n's API. Constants for users; tests of the record shorten them.
 *
 * `retryBudgetMs`: how long one record call keeps trying before it gives up. The service's
 * time-out for a write back is not documented; a delivery makes up to three record calls before
 * its answer, and a write back that waits is better off than one answered 503 (its redelivery
 * comes an hour later). 15 s rides out a rate limit of a few seconds and a restart of n8n's main
 * instance (measured 5 to 12 s here) and keeps a delivery's answer within about half a minute.
 *
 * `attemptTimeoutMs`: how long one attempt may take.
 *
 * `pendingRetryMs`: the first wait before a write n8n's API did not take is tried again in the
 * background (a `done` row, see record.finishAndKeepTrying, or the delete of a released claim's row); each
 * next wait doubles, up to a minute.
 */
export const DEFAULT_RECORD_TIMING = {
	retryBudgetMs: 15_000,
	attemptTimeoutMs: 10_000,
	pendingRetryMs: 5_000,
} as const;

export type RecordTiming = { -readonly [name in keyof typeof DEFAULT_RECORD_TIMING]: number };

const FIRST_BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 4_000;

/**
 * How long to wait before trying a failed call again, or undefined to give up: a 429 waits as long
 * as its Retry-After asks when that fits in what is left of the budget (else gives up at once), a
 * 5xx or a call n8n did not answer backs off exponentially (250 ms doubling to 4 s, with jitter),
 * and when the next back-off would pass the end of the budget, the last try is made at its end, so
 * that an outage as long as the whole budget is ridden out.
 * Refusals (401, 403, 404, other 4xx) are not retried here.
 */
export function recordRetryDelayMs(
	failure: RecordFailure,
	retriesSoFar: number,
	remainingMs: number,
	random: () => number = Math.random,
): number | undefined {
	if (failure.kind !== 'rateLimited' && failure.kind !== 'unavailable') return undefined;
	const backOff = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** retriesSoFar);
	// Spread the retries of several processes, so that they do not come back together.
	const jitter = Math.round(random() * 0.25 * backOff);
	if (failure.kind === 'rateLimited' && failure.retryAfterMs !== undefined) {
		return failure.retryAfterMs <= remainingMs
			? Math.min(failure.retryAfterMs + jitter, remainingMs)
			: undefined;
	}
	return remainingMs >= FIRST_BACKOFF_MS ? Math.min(backOff + jitter, remainingMs) : undefined;
}

/** The words of a record call that failed for good: what happened, with n8n's own answer. */
export function recordFailureText(
	failure: RecordFailure,
	call: { method: string; path: string },
	triedForMs: number,
): string {
	const tried = triedForMs >= 1000 ? `, tried for ${Math.round(triedForMs / 1000)} s` : '';
	const kindOfCall = call.method === 'GET' ? 'read' : 'write';
	if (failure.kind === 'rateLimited') {
		const limit = failure.limit === undefined ? '' : ` (limit ${failure.limit})`;
		const asked =
			failure.retryAfterMs === undefined
				? ''
				: `; it asked to wait ${Math.ceil(failure.retryAfterMs / 1000)} s`;
		return `n8n's API rate-limited the record's ${kindOfCall} calls${limit}: 429 ${failure.message}${asked}${tried}`;
	}
	if (failure.kind === 'unavailable') {
		const answer = failure.status === 0 ? 'no answer' : `${failure.status}`;
		return `n8n's API did not answer the record's ${kindOfCall} call (${answer}: ${failure.message}${tried})`;
	}
	return `n8n's API answered ${failure.status}: ${failure.message}`;
}
