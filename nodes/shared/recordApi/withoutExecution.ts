import { deepCopy, type IDataObject, type IHttpRequestOptions } from 'n8n-workflow';

import { RECORD_CREDENTIAL, type RecordContext } from './client';
import { state } from './state';

/**
 * A record context that belongs to no execution, for record writes retried in the background
 * (see once/table.ts writeLater): n8n's request helpers and credential reads are an execution's
 * and keep its whole context alive, for as long as n8n's API may be away. This one holds a copy of
 * the node's settings, n8n's logger (one per process) and nothing else; its calls are plain HTTP
 * with the key this process last read from the node's record credential, so a key the user pasted
 * meanwhile counts here too.
 */
export function contextWithoutExecution(context: RecordContext): RecordContext {
	const node = deepCopy(context.getNode());
	const { logger } = context;
	const credentialId = node.credentials?.[RECORD_CREDENTIAL]?.id ?? undefined;
	return {
		getNode: () => node,
		logger,
		helpers: { httpRequest: requestWithoutExecution },
		async getCredentials() {
			const target = credentialId === undefined ? undefined : state.credentials.get(credentialId);
			if (target === undefined)
				throw new Error('the record credential was not read by any run of this process yet');
			return {
				baseUrl: target.baseUrl,
				apiKey: target.apiKey,
				dataTableName: target.tableName,
				storageLimitMb: target.storageLimitBytes / (1024 * 1024),
			};
		},
	} as unknown as RecordContext;
}

const jsonOrText = (text: string): unknown => {
	if (text === '') return undefined;
	try {
		return JSON.parse(text) as unknown;
	} catch {
		// Not JSON (a proxy's error page): the failure's message carries it as text.
		return text;
	}
};

/**
 * One call as n8n's `helpers.httpRequest` makes it with `json: true`, and failing with the same
 * fields (`httpCode`, `response`, `code`), so that the record's retries and errors read it alike.
 */
async function requestWithoutExecution(options: IHttpRequestOptions): Promise<unknown> {
	const url = new URL(options.url);
	for (const [name, value] of Object.entries((options.qs ?? {}) as IDataObject))
		url.searchParams.set(name, String(value));
	const hasBody = options.body !== undefined;
	let response: Response;
	try {
		response = await fetch(url, {
			method: options.method ?? 'GET',
			headers: {
				...(options.headers as Record<string, string>),
				...(hasBody ? { 'content-type': 'application/json' } : {}),
			},
			body: hasBody ? JSON.stringify(options.body) : undefined,
			signal: AbortSignal.timeout(options.timeout ?? 30_000),
		});
	} catch (error) {
		const cause = (error as { cause?: { code?: string; message?: string } }).cause;
		throw Object.assign(new Error(cause?.message ?? (error as Error).message), {
			code: cause?.code ?? (error as { name?: string }).name,
		});
	}
	const data = jsonOrText(await response.text());
	if (response.ok) return data;
	throw Object.assign(new Error(`Request failed with status code ${response.status}`), {
		httpCode: String(response.status),
		response: { status: response.status, data, headers: headersOf(response.headers) },
	});
}

function headersOf(headers: Headers): Record<string, string> {
	const plain: Record<string, string> = {};
	headers.forEach((value, name) => {
		plain[name] = value;
	});
	return plain;
}
