import { createHmac, timingSafeEqual } from 'crypto';

/** Header that carries the HMAC-SHA256 of the raw request body (spec 5, interface C). */
export const SIGNATURE_HEADER = 'x-service-signature';

/** Length in hex characters of an HMAC-SHA256 digest. */
const SIGNATURE_HEX_LENGTH = 64;

const HEX = /^[0-9a-fA-F]*$/;

export type SecretDecodeResult =
	| { ok: true; key: Buffer }
	| { ok: false; problem: 'empty' | 'notHex' | 'oddLength'; detail: string };

/**
 * Turns the hexadecimal secret the service issued into the binary HMAC key (spec 5.3).
 * Surrounding whitespace (a stray space or line break from copy and paste) is ignored;
 * anything else that is not an even number of hex digits is refused, so that a broken
 * secret can never produce a check that passes.
 */
export function decodeSigningSecret(secret: unknown): SecretDecodeResult {
	const hex = typeof secret === 'string' ? secret.trim() : '';
	if (hex === '') {
		return { ok: false, problem: 'empty', detail: 'the secret is empty' };
	}
	if (!HEX.test(hex)) {
		return {
			ok: false,
			problem: 'notHex',
			detail: 'the secret contains characters other than 0-9 and a-f',
		};
	}
	if (hex.length % 2 !== 0) {
		return {
			ok: false,
			problem: 'oddLength',
			detail: `the secret has an odd number of hex digits (${hex.length}), so a digit is missing or one too many`,
		};
	}
	return { ok: true, key: Buffer.from(hex, 'hex') };
}

/** The signature the service computes: hex of HMAC-SHA256(key, raw body bytes). */
export function computeSignature(key: Buffer, rawBody: Buffer): string {
	return createHmac('sha256', key).update(rawBody).digest('hex');
}

export type SignatureFailure = 'missing' | 'empty' | 'repeated' | 'malformed' | 'mismatch';

export type SignatureCheck = { valid: true } | { valid: false; reason: SignatureFailure };

/** What a request's header map holds under a name: one value, several, or nothing. */
export type HeaderValue = string | string[] | undefined;

/** Reads a header case-insensitively from a plain header map (Node lower-cases names, others may not). */
export function readHeader(
	headers: Record<string, unknown> | undefined,
	name: string,
): HeaderValue {
	if (headers === undefined || headers === null) return undefined;
	const wanted = name.toLowerCase();
	const values: string[] = [];
	for (const [key, value] of Object.entries(headers)) {
		if (key.toLowerCase() !== wanted || value === undefined || value === null) continue;
		if (Array.isArray(value)) values.push(...value.map(String));
		else values.push(String(value));
	}
	if (values.length === 0) return undefined;
	return values.length === 1 ? values[0] : values;
}

/**
 * Checks the `X-Service-Signature` header against the raw body bytes, before anything parses them.
 * The header must hold exactly one 64-digit hex value (either case). A header sent twice arrives
 * either as an array or, through Node's HTTP parser, joined with ", ": both are refused, as is a
 * missing or malformed value. The digests are compared with `timingSafeEqual`, in constant time.
 */
export function verifySignature(rawBody: Buffer, header: HeaderValue, key: Buffer): SignatureCheck {
	if (header === undefined) return { valid: false, reason: 'missing' };
	let value: string;
	if (Array.isArray(header)) {
		if (header.length === 0) return { valid: false, reason: 'missing' };
		if (header.length > 1) return { valid: false, reason: 'repeated' };
		value = header[0];
	} else {
		value = header;
	}
	value = value.trim();
	if (value === '') return { valid: false, reason: 'empty' };
	if (value.includes(',')) return { valid: false, reason: 'repeated' };
	if (value.length !== SIGNATURE_HEX_LENGTH || !HEX.test(value)) {
		return { valid: false, reason: 'malformed' };
	}
	const expected = createHmac('sha256', key).update(rawBody).digest();
	const given = Buffer.from(value, 'hex');
	if (given.length !== expected.length) return { valid: false, reason: 'malformed' };
	return timingSafeEqual(expected, given) ? { valid: true } : { valid: false, reason: 'mismatch' };
}

/** Explanation sent with a 401, so that whoever operates the sender can tell what went wrong. */
export function describeSignatureFailure(reason: SignatureFailure): string {
	switch (reason) {
		case 'missing':
			return 'The X-Service-Signature header is missing';
		case 'empty':
			return 'The X-Service-Signature header is empty';
		case 'repeated':
			return 'The X-Service-Signature header was sent more than once';
		case 'malformed':
			return 'The X-Service-Signature header is not a 64-digit hexadecimal HMAC-SHA256';
		case 'mismatch':
			return 'The X-Service-Signature header does not match the body and the signing secret';
	}
}
