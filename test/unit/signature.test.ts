import {
	computeSignature,
	decodeSigningSecret,
	describeSignatureFailure,
	readHeader,
	verifySignature,
} from '../../nodes/ContactCenterTrigger/signature';
import { DEFAULT_SIGNING_SECRET, signBody } from '../simulator';

// The simulator's default signing secret, a public test vector (not a real secret).
const VECTOR_HEX = '3f1c9a7be24d5086f7a3c1e9b0d2486a5ce7f3019b8d6a24e5c07f9132ab4d6e';
const BODY = Buffer.from('{"email":"ana@example.com"}');
// Computed independently: printf '%s' '{"email":"ana@example.com"}' |
//   openssl dgst -sha256 -mac HMAC -macopt hexkey:<VECTOR_HEX>
const BODY_SIGNATURE = 'cb37192a160cc01973446e090b62a4f98ea63bef36c9726a6de5364c20fa5c70';

function keyOf(secret: string): Buffer {
	const decoded = decodeSigningSecret(secret);
	if (!decoded.ok) throw new Error(`test secret does not decode: ${decoded.detail}`);
	return decoded.key;
}

const key = keyOf(VECTOR_HEX);

describe('signing secret decoding', () => {
	it('turns the hex secret into its binary key (not the text of the hex)', () => {
		expect(key).toEqual(Buffer.from(VECTOR_HEX, 'hex'));
		expect(key).toHaveLength(32);
	});

	it('accepts uppercase hex and ignores surrounding whitespace from copy and paste', () => {
		expect(keyOf(` ${VECTOR_HEX.toUpperCase()}\n`)).toEqual(key);
	});

	it('refuses an odd number of hex digits', () => {
		const decoded = decodeSigningSecret(VECTOR_HEX.slice(1));
		expect(decoded).toMatchObject({ ok: false, problem: 'oddLength' });
		expect(!decoded.ok && decoded.detail).toContain('odd number of hex digits (63)');
	});

	it.each([
		['a non-hex letter', `${VECTOR_HEX.slice(0, -2)}zz`],
		['a 0x prefix', `0x${VECTOR_HEX}`],
		['an inner space', `${VECTOR_HEX.slice(0, 32)} ${VECTOR_HEX.slice(32)}`],
		['base64 text', 'Pxyae+JNUIb3o8HpsNJIalzn8wGbjWok5cB/kTKrTW4='],
	])('refuses %s', (_label, secret) => {
		expect(decodeSigningSecret(secret)).toMatchObject({ ok: false, problem: 'notHex' });
	});

	it.each([[''], ['   '], [undefined], [null], [42]])(
		'refuses an empty or missing secret (%p)',
		(secret) => {
			expect(decodeSigningSecret(secret)).toMatchObject({ ok: false, problem: 'empty' });
		},
	);
});

describe('X-Service-Signature check', () => {
	it('matches an independently computed HMAC-SHA256 vector', () => {
		expect(computeSignature(key, BODY)).toBe(BODY_SIGNATURE);
		expect(verifySignature(BODY, BODY_SIGNATURE, key)).toEqual({ valid: true });
	});

	it('agrees with the simulator that signs the service side', () => {
		expect(DEFAULT_SIGNING_SECRET).toBe(VECTOR_HEX);
		expect(signBody(VECTOR_HEX, BODY)).toBe(BODY_SIGNATURE);
	});

	it('accepts the signature in uppercase hex', () => {
		expect(verifySignature(BODY, BODY_SIGNATURE.toUpperCase(), key)).toEqual({ valid: true });
	});

	it('accepts surrounding whitespace in the header value', () => {
		expect(verifySignature(BODY, ` ${BODY_SIGNATURE} `, key)).toEqual({ valid: true });
	});

	it('refuses a tampered body, one byte changed', () => {
		const tampered = Buffer.from(BODY);
		tampered[tampered.length - 3] ^= 0x01;
		expect(verifySignature(tampered, BODY_SIGNATURE, key)).toEqual({
			valid: false,
			reason: 'mismatch',
		});
	});

	it('refuses a body that differs only in whitespace (the raw bytes are signed, not the JSON)', () => {
		const reformatted = Buffer.from('{"email": "ana@example.com"}');
		expect(verifySignature(reformatted, BODY_SIGNATURE, key)).toEqual({
			valid: false,
			reason: 'mismatch',
		});
	});

	it('refuses a tampered signature, one hex digit changed', () => {
		const last = BODY_SIGNATURE.at(-1) === '0' ? '1' : '0';
		const tampered = `${BODY_SIGNATURE.slice(0, -1)}${last}`;
		expect(verifySignature(BODY, tampered, key)).toEqual({ valid: false, reason: 'mismatch' });
	});

	it('refuses a signature made with another secret', () => {
		const otherKey = keyOf('00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff');
		const signedWithOther = computeSignature(otherKey, BODY);
		expect(verifySignature(BODY, signedWithOther, key)).toEqual({
			valid: false,
			reason: 'mismatch',
		});
	});

	it('refuses a signature keyed with the hex text instead of the decoded bytes', () => {
		const textKeyed = computeSignature(Buffer.from(VECTOR_HEX, 'utf8'), BODY);
		expect(verifySignature(BODY, textKeyed, key)).toEqual({ valid: false, reason: 'mismatch' });
	});

	it('checks an empty body like any other', () => {
		const empty = Buffer.alloc(0);
		const signature = signBody(VECTOR_HEX, empty);
		expect(verifySignature(empty, signature, key)).toEqual({ valid: true });
		expect(verifySignature(empty, BODY_SIGNATURE, key)).toEqual({
			valid: false,
			reason: 'mismatch',
		});
	});

	it.each([[undefined], [[]]])('refuses a missing header (%p)', (header) => {
		expect(verifySignature(BODY, header, key)).toEqual({ valid: false, reason: 'missing' });
	});

	it.each([[''], ['   '], [['']]])(
		'reports an empty header as empty, not missing (%p)',
		(header) => {
			expect(verifySignature(BODY, header, key)).toEqual({ valid: false, reason: 'empty' });
			expect(describeSignatureFailure('empty')).toBe('The X-Service-Signature header is empty');
		},
	);

	it('refuses a header sent twice, as an array', () => {
		expect(verifySignature(BODY, [BODY_SIGNATURE, BODY_SIGNATURE], key)).toEqual({
			valid: false,
			reason: 'repeated',
		});
	});

	it("refuses a header sent twice, as Node's parser joins it", () => {
		expect(verifySignature(BODY, `${BODY_SIGNATURE}, ${BODY_SIGNATURE}`, key)).toEqual({
			valid: false,
			reason: 'repeated',
		});
	});

	it('accepts a header given as an array of one value', () => {
		expect(verifySignature(BODY, [BODY_SIGNATURE], key)).toEqual({ valid: true });
	});

	it.each([
		['too short', BODY_SIGNATURE.slice(0, 62)],
		['too long', `${BODY_SIGNATURE}00`],
		['not hex', `${BODY_SIGNATURE.slice(0, 62)}zz`],
		['prefixed', `sha256=${BODY_SIGNATURE}`],
		['base64', Buffer.from(BODY_SIGNATURE, 'hex').toString('base64')],
	])('refuses a malformed header: %s', (_label, header) => {
		expect(verifySignature(BODY, header, key)).toEqual({ valid: false, reason: 'malformed' });
	});
});

describe('reading the header', () => {
	it('finds it case-insensitively and keeps repeated values apart', () => {
		expect(readHeader({ 'X-Service-Signature': 'a' }, 'x-service-signature')).toBe('a');
		expect(readHeader({ 'x-service-signature': ['a', 'b'] }, 'X-Service-Signature')).toEqual([
			'a',
			'b',
		]);
		expect(
			readHeader({ 'x-service-signature': 'a', 'X-SERVICE-SIGNATURE': 'b' }, 'x-service-signature'),
		).toEqual(['a', 'b']);
		expect(readHeader({ other: 'a' }, 'x-service-signature')).toBeUndefined();
		expect(readHeader(undefined, 'x-service-signature')).toBeUndefined();
	});
});
