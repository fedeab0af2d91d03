/**
 * A failed call to n8n's public API as n8n-core's httpRequest throws it: axios-shaped, with the
 * answer under `response` (some versions nest it under `cause`).
 */
export interface HttpFailure {
	message?: string;
	httpCode?: string;
	response?: { status?: number; data?: unknown };
	cause?: { response?: { status?: number; data?: unknown } };
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
