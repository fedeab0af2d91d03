import { retryAfterMs } from '../retryAfter';

type Answer = { status?: number; data?: unknown; headers?: Record<string, unknown> };
type Failed = { message?: string; code?: string; response?: Answer };
/** A failed call as n8n-core's httpRequest throws it: axios-shaped, some versions under `cause`. */
export type HttpFailure = Failed & { httpCode?: string; cause?: Failed };

const answered = <K extends keyof Answer>(error: HttpFailure, field: K) =>
	error.response?.[field] ?? error.cause?.response?.[field];

/** The HTTP status n8n answered, 0 when there was no answer. */
export const statusOf = (error: HttpFailure): number =>
	Number(error.httpCode ?? answered(error, 'status') ?? 0) || 0;

/** The message with n8n's explanation from the answer (httpRequest's names only the status). */
export function failureMessage(error: HttpFailure): string {
	const message = error.message || 'request failed';
	const said = (answered(error, 'data') as { message?: unknown } | null | undefined)?.message;
	if (typeof said !== 'string' || said === '' || message.includes(said)) return message;
	return `${message}: ${said}`;
}

/** n8n refused a data table write because all data tables together reached its size limit. */
export const isSizeLimitFailure = (message: string): boolean =>
	/data table size limit exceeded/i.test(message);

// notFound: the table is gone (or another user's); refused: other answers, e.g. the size limit's.
type TransientKind = 'rateLimited' | 'unavailable';
export type RecordFailureKind = TransientKind | 'credential' | 'notFound' | 'refused';

/** A failure a later try may not meet: n8n's API limited or did not answer the call. */
export const isTransient = (kind: RecordFailureKind | undefined): kind is TransientKind =>
	kind === 'rateLimited' || kind === 'unavailable';

export interface RecordFailure {
	kind: RecordFailureKind;
	status: number;
	message: string;
	retryAfterMs?: number;
	limit?: string; // as n8n's rate-limit headers name it, e.g. `100;w=60`
}

const LIMIT_HEADERS = ['ratelimit-policy', 'ratelimit-limit', 'x-ratelimit-limit', 'ratelimit'];
function limitOf(headers: Record<string, unknown> | undefined): string | undefined {
	const byName = new Map(Object.entries(headers ?? {}).map(([name, v]) => [name.toLowerCase(), v]));
	const limit = LIMIT_HEADERS.map((name) => byName.get(name)).find((value) => value !== undefined);
	return limit === undefined ? undefined : String(limit);
}

/** A text answer (a proxy's error page, n8n starting up) in a few words, markup left out. */
const words = (text: string) => text.replace(/(<[^>]*>|\s)+/g, ' ').trim();
const textOf = (body: unknown) =>
	typeof body === 'string' && body.trim() !== '' ? ` (${words(body).slice(0, 120)})` : '';

function kindOf(status: number): RecordFailureKind {
	if (status === 429) return 'rateLimited';
	if (status >= 500 || status === 408) return 'unavailable';
	if (status === 401 || status === 403) return 'credential';
	return status === 404 ? 'notFound' : 'refused';
}

export function classifyRecordFailure(error: HttpFailure, now = Date.now()): RecordFailure {
	const status = statusOf(error);
	const message = failureMessage(error);
	const code = error.code ?? error.cause?.code;
	if (status === 0) {
		const text = code && !message.includes(code) ? `${code}: ${message}` : message;
		return { kind: 'unavailable', status, message: text };
	}
	const body = answered(error, 'data');
	// n8n's API answers a missing table in JSON: other 404s come before n8n mounts its API.
	if (status === 404 && (typeof body !== 'object' || body === null)) {
		const text = `${message}${textOf(body)}: n8n's public API is not there (n8n is starting up, or the n8n API URL is wrong)`;
		return { kind: 'unavailable', status, message: text };
	}
	const headers = answered(error, 'headers');
	const wait = retryAfterMs(headers, now);
	const limit = limitOf(headers);
	const failure: RecordFailure = { kind: kindOf(status), status, message };
	if (wait !== undefined) failure.retryAfterMs = wait;
	if (limit !== undefined) failure.limit = limit;
	return failure;
}

// A 2xx answer in words is not n8n's API: while n8n migrates its database at a start it answers
// every call 200 "n8n is starting up. Please wait" without carrying it out.
export function textAnswerFailure(answer: unknown): RecordFailure | undefined {
	if (typeof answer !== 'string' || answer.trim() === '') return undefined;
	const message = `n8n answered in words, not JSON${textOf(answer)}`;
	return { kind: 'unavailable', status: 200, message };
}

// retryBudgetMs: how long one record call keeps trying. A delivery waits for up to three record
// calls and a write back answered 503 is redelivered an hour later: 15 s rides out a short rate
// limit and a restart of n8n's main instance (5 to 12 s measured). pendingRetryMs: the first wait
// of a write retried in the background (doubling, up to a minute).
export const DEFAULT_RECORD_TIMING = {
	retryBudgetMs: 15_000,
	attemptTimeoutMs: 10_000,
	pendingRetryMs: 5_000,
} as const;

export type RecordTiming = { -readonly [name in keyof typeof DEFAULT_RECORD_TIMING]: number };

const FIRST_BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 4_000;

// The wait before trying a failed call again, or undefined to give up: a 429's Retry-After if it
// fits in the budget, else a back-off with jitter (processes do not come back together), the last
// try at the budget's end.
export function recordRetryDelayMs(
	failure: RecordFailure,
	retriesSoFar: number,
	remainingMs: number,
	random: () => number = Math.random,
): number | undefined {
	if (!isTransient(failure.kind)) return undefined;
	const backOff = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** retriesSoFar);
	const jitter = Math.round(random() * 0.25 * backOff);
	const asked = failure.kind === 'rateLimited' ? failure.retryAfterMs : undefined;
	if (asked !== undefined)
		return asked <= remainingMs ? Math.min(asked + jitter, remainingMs) : undefined;
	return remainingMs >= FIRST_BACKOFF_MS ? Math.min(backOff + jitter, remainingMs) : undefined;
}

/** The words of a record call that failed for good, with n8n's own answer. */
export function recordFailureText(
	failure: RecordFailure,
	call: { method: string; path: string },
	triedForMs: number,
): string {
	const tried = triedForMs >= 1000 ? `, tried for ${Math.round(triedForMs / 1000)} s` : '';
	const calls = call.method === 'GET' ? 'read' : 'write';
	const { kind, status, message, limit, retryAfterMs: wait } = failure;
	if (kind === 'rateLimited') {
		const asked = wait === undefined ? '' : `; it asked to wait ${Math.ceil(wait / 1000)} s`;
		return `n8n's API rate-limited the record's ${calls} calls${limit === undefined ? '' : ` (limit ${limit})`}: 429 ${message}${asked}${tried}`;
	}
	if (kind === 'unavailable')
		return `n8n's API did not answer the record's ${calls} call (${status || 'no answer'}: ${message}${tried})`;
	return `n8n's API answered ${status}: ${message}`;
}
