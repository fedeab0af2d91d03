import { deepCopy, type IDataObject, type IHttpRequestOptions } from 'n8n-workflow';

import { RECORD_CREDENTIAL, type RecordContext } from './client';
import { state } from './state';

// For work in the background (once/waitingWrites.ts, an index load): an execution's helpers would
// keep its whole context alive while n8n's API is away. This holds a copy of the node, the logger
// and the key this process last read from the node's credential, so a key pasted meanwhile counts.
export function contextWithoutExecution(context: RecordContext): RecordContext {
	const node = deepCopy(context.getNode());
	const credentialId = node.credentials?.[RECORD_CREDENTIAL]?.id ?? undefined;
	return {
		getNode: () => node,
		logger: context.logger,
		helpers: { httpRequest: requestWithoutExecution },
		async getCredentials() {
			const target = credentialId === undefined ? undefined : state.credentials.get(credentialId);
			if (target === undefined)
				throw new Error('the record credential was not read by any run of this process yet');
			const { baseUrl, apiKey, tableName: dataTableName, storageLimitBytes } = target;
			const storageLimitMb = storageLimitBytes / (1024 * 1024);
			return { baseUrl, apiKey, dataTableName, customStorageLimit: true, storageLimitMb };
		},
	} as unknown as RecordContext;
}

type FetchOptions = { method?: string; headers?: IDataObject; qs?: IDataObject; body?: unknown };
type FetchError = Error & { cause?: { code?: string; message?: string } };

/** One call to n8n's API with Node's fetch; the answer's body is its JSON, else its text. */
export async function fetchApi(url: string, options: FetchOptions & { timeout: number }) {
	const { method = 'GET', headers, qs, body, timeout } = options;
	const target = new URL(url);
	for (const [name, value] of Object.entries(qs ?? {}))
		target.searchParams.set(name, String(value));
	const json: Record<string, string> =
		body === undefined ? {} : { 'content-type': 'application/json' };
	const response = await fetch(target, {
		method,
		headers: { ...(headers as Record<string, string>), ...json },
		body: body === undefined ? undefined : JSON.stringify(body),
		signal: AbortSignal.timeout(timeout),
	}).catch((error: FetchError) => {
		// fetch says "fetch failed"; its cause says why (e.g. "connect ECONNREFUSED 127.0.0.1:5678").
		const { message, code } = error.cause ?? {};
		throw Object.assign(new Error(message ?? error.message), { code: code ?? error.name });
	});
	const text = await response.text();
	try {
		return { response, data: JSON.parse(text) as unknown };
	} catch {
		// Safe to ignore: an answer that is not JSON is kept as its text.
		return { response, data: text === '' ? undefined : text };
	}
}

/** Fails with the fields n8n's `httpRequest` (`json: true`) fails with, for the record's retries. */
async function requestWithoutExecution(options: IHttpRequestOptions): Promise<unknown> {
	const timeout = options.timeout ?? 30_000;
	const { response, data } = await fetchApi(options.url, { ...options, timeout });
	if (response.ok) return data;
	const headers: Record<string, string> = {};
	response.headers.forEach((value, name) => {
		headers[name] = value;
	});
	throw Object.assign(new Error(`Request failed with status code ${response.status}`), {
		httpCode: String(response.status),
		response: { status: response.status, data, headers },
	});
}
