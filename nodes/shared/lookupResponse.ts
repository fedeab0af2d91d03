import type { IDataObject } from 'n8n-workflow';

/** Value of one contact attribute in a lookup response (spec 2.10): a string, or null to delete it. */
export type AttributeValue = string | null;

export type AttributesResult =
	| { ok: true; attributes: Record<string, AttributeValue> }
	| { ok: false; alias: string; detail: string };

export interface LookupFoundBody extends IDataObject {
	autoConfirm: boolean;
	attributes: Record<string, AttributeValue>;
}

/**
 * Coerces one attribute value to what the service accepts: strings stay, numbers and booleans
 * become their text, null and undefined become null (the service deletes a CRM-managed value that
 * is null). Objects and arrays have no string form the service would understand.
 */
export function toAttributeValue(
	value: unknown,
	emptyAsNull: boolean,
): { ok: true; value: AttributeValue } | { ok: false; detail: string } {
	if (value === undefined || value === null) return { ok: true, value: null };
	if (typeof value === 'string')
		return { ok: true, value: value === '' && emptyAsNull ? null : value };
	if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
		return { ok: true, value: String(value) };
	}
	return {
		ok: false,
		detail: `is ${Array.isArray(value) ? 'an array' : 'an object'}; the service accepts only text or null`,
	};
}

/** Builds the `attributes` object from alias/value pairs or a JSON object. */
export function buildAttributes(
	entries: Array<[alias: unknown, value: unknown]>,
	emptyAsNull: boolean,
): AttributesResult {
	const attributes: Record<string, AttributeValue> = {};
	for (const [rawAlias, rawValue] of entries) {
		const alias = typeof rawAlias === 'string' ? rawAlias.trim() : String(rawAlias ?? '').trim();
		if (alias === '') return { ok: false, alias: '', detail: 'has an empty alias' };
		const converted = toAttributeValue(rawValue, emptyAsNull);
		if (!converted.ok) return { ok: false, alias, detail: converted.detail };
		attributes[alias] = converted.value;
	}
	return { ok: true, attributes };
}

/** The 200 body of a lookup that found the contact (spec 2.10). */
export function buildLookupFoundBody(
	attributes: Record<string, AttributeValue>,
	autoConfirm: boolean,
): LookupFoundBody {
	return { autoConfirm, attributes };
}

export interface LookupHttpResponse extends IDataObject {
	statusCode: number;
	headers: IDataObject;
	body: IDataObject | Buffer;
}

/**
 * Set in the run's flow context by "Respond to Lookup", so that the trigger answers
 * with its fallback only when nothing answered.
 */
export const LOOKUP_ANSWERED_FLAG = 'contactCenterLookupAnswered';

/**
 * The HTTP answer handed to n8n through `sendResponse`: 200 with the body, or 404 with an empty
 * body (an empty Buffer: n8n sends it as is, without a JSON content type).
 */
export function buildLookupHttpResponse(found: LookupFoundBody | undefined): LookupHttpResponse {
	if (found === undefined) {
		return { statusCode: 404, headers: {}, body: Buffer.alloc(0) };
	}
	return {
		statusCode: 200,
		headers: { 'content-type': 'application/json; charset=utf-8' },
		body: found,
	};
}
