import { retryAfterMs } from '../../shared/retryAfter';

/**
 * The service answers errors in three documented shapes (spec 7), with status codes that are
 * mostly undocumented, sometimes even on a 2xx. This turns whatever came back into one description.
 */
export type ServiceFailureKind =
	| 'validation'
	| 'notFound'
	| 'rateLimited'
	| 'unauthorized'
	| 'serverError'
	| 'networkError'
	| 'unexpectedResponse';

export interface ServiceFailure {
	kind: ServiceFailureKind;
	/** HTTP status, when a response came back. */
	status?: number;
	/** The service's own words, as sent. */
	messages: string[];
	/** From a Retry-After header, when present. */
	retryAfterMs?: number;
	/** The system error code of a network error (ECONNREFUSED, ECONNRESET, ...), when known. */
	networkCode?: string;
	body?: unknown;
}

export interface RawResponse {
	status?: number;
	body?: unknown;
	headers?: Record<string, unknown>;
	networkCode?: string;
	networkMessage?: string;
}

const RATE_LIMIT_WORDS = /rate.?limit|too many (requests|messages)|throttl|quota/i;
const NOT_FOUND_WORDS = /not (be )?found|no .*found|nothing (was )?found|unknown correlation/i;

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseBody(body: unknown): unknown {
	if (typeof body !== 'string') return body;
	try {
		return JSON.parse(body);
	} catch {
		// Safe to ignore: a body that is not JSON is kept as the service's text.
		return body;
	}
}

/** The messages of an `{errors: [...]}` body, or undefined when the body is not of that shape. */
export function errorsArrayOf(body: unknown): string[] | undefined {
	const parsed = parseBody(body);
	if (!isRecord(parsed) || !Array.isArray(parsed.errors)) return undefined;
	return parsed.errors.map((entry) => (typeof entry === 'string' ? entry : JSON.stringify(entry)));
}

function messagesOf(body: unknown): string[] {
	const errors = errorsArrayOf(body);
	if (errors) return errors;
	const parsed = parseBody(body);
	if (isRecord(parsed)) {
		const message = parsed.message ?? parsed.error_description ?? parsed.error;
		if (typeof message === 'string' && message !== '') return [message];
	}
	if (typeof parsed === 'string' && parsed.trim() !== '') return [parsed.trim().slice(0, 500)];
	return [];
}

export function classifyFailure(response: RawResponse): ServiceFailure {
	const { status, body, headers } = response;
	if (status === undefined) {
		return {
			kind: 'networkError',
			messages: [
				[response.networkCode, response.networkMessage].filter(Boolean).join(': ') || 'no response',
			],
			...(response.networkCode ? { networkCode: response.networkCode } : {}),
		};
	}
	const messages = messagesOf(body);
	const failure = (kind: ServiceFailureKind): ServiceFailure => ({
		kind,
		status,
		messages,
		body: parseBody(body),
		...(retryAfterMs(headers) !== undefined ? { retryAfterMs: retryAfterMs(headers) } : {}),
	});
	if (status === 429 || messages.some((m) => RATE_LIMIT_WORDS.test(m)))
		return failure('rateLimited');
	if (status === 401 || status === 403) return failure('unauthorized');
	if (status >= 500) return failure('serverError');
	if (status === 404 || messages.some((m) => NOT_FOUND_WORDS.test(m))) return failure('notFound');
	if (status >= 400 || errorsArrayOf(body)) return failure('validation');
	return failure('unexpectedResponse');
}

/** A 2xx answer can still carry `{errors: [...]}`: the status codes of that shape are undocumented. */
export function failureInSuccessfulResponse(
	status: number,
	body: unknown,
): ServiceFailure | undefined {
	return errorsArrayOf(body) ? classifyFailure({ status, body }) : undefined;
}

export function isRetryable(failure: ServiceFailure): boolean {
	return (
		failure.kind === 'rateLimited' ||
		failure.kind === 'serverError' ||
		failure.kind === 'networkError'
	);
}

/**
 * Network errors raised before a request could be sent: no connection was made, so the service
 * cannot have received anything. Any other network error (a reset, a time-out) can happen after the
 * service read the request.
 */
const NOT_SENT_NETWORK_CODES = new Set([
	'ECONNREFUSED',
	'ENOTFOUND',
	'EAI_AGAIN',
	'EHOSTUNREACH',
	'ENETUNREACH',
	'EHOSTDOWN',
	'ENETDOWN',
	'EADDRNOTAVAIL',
	'UND_ERR_CONNECT_TIMEOUT',
	'CERT_HAS_EXPIRED',
	'DEPTH_ZERO_SELF_SIGNED_CERT',
	'SELF_SIGNED_CERT_IN_CHAIN',
	'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
	'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/**
 * Whether a failed call may still have been carried out by the service: a 5xx can come after the
 * service queued a message, and a reset or time-out after it read the request. Refusals (4xx, the
 * rate limit) and connections that were never made cannot.
 */
export function mayHaveReachedService(failure: ServiceFailure): boolean {
	if (failure.kind === 'serverError') return true;
	if (failure.kind === 'networkError') {
		return failure.networkCode === undefined || !NOT_SENT_NETWORK_CODES.has(failure.networkCode);
	}
	return false;
}
