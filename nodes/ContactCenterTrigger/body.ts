import type { IDataObject } from 'n8n-workflow';

export type BodyParseResult = { ok: true; value: IDataObject } | { ok: false; detail: string };

/**
 * Parses the raw body the signature was checked over. The service sends a JSON object on all three
 * endpoints (spec 2.9, 2.11, 2.12); anything else is a malformed request. A UTF-8 byte order mark
 * is tolerated, as n8n's own body parser does.
 */
export function parseJsonObjectBody(rawBody: Buffer): BodyParseResult {
	let text = rawBody.toString('utf8');
	if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
	if (text.trim() === '') return { ok: false, detail: 'The request body is empty' };
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch (error) {
		return { ok: false, detail: `The request body is not valid JSON: ${(error as Error).message}` };
	}
	if (value === null || typeof value !== 'object' || Array.isArray(value)) {
		return { ok: false, detail: 'The request body is JSON but not a JSON object' };
	}
	return { ok: true, value: value as IDataObject };
}
