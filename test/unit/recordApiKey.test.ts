import { createHmac } from 'node:crypto';

import {
	expiresSoonMessage,
	expiredAt,
	expiresWithinDays,
	formatExpiry,
	keyExpiryOf,
	timeUntil,
} from '../../nodes/shared/recordApi/apiKey';

const DAY = 24 * 60 * 60 * 1000;
const base64Url = (value: object | string) =>
	Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

/** A key shaped as n8n's public-api-key.service.js signs it. */
function n8nApiKey(claims: Record<string, unknown>): string {
	const head = `${base64Url({ alg: 'HS256', typ: 'JWT' })}.${base64Url({ sub: 'user-1', iss: 'n8n', aud: 'public-api', jti: 'x', ...claims })}`;
	return `${head}.${createHmac('sha256', 'secret').update(head).digest('base64url')}`;
}

describe('the expiry of an n8n API key, read without a call', () => {
	const now = Date.UTC(2026, 10, 25, 12, 0, 0);

	test('reads the exp claim of a key made with an expiration date', () => {
		const at = now + 3 * DAY;
		expect(keyExpiryOf(n8nApiKey({ exp: at / 1000 }))).toEqual({ kind: 'expires', at });
	});

	test('a key made with Expiration "Never" never expires', () => {
		expect(keyExpiryOf(n8nApiKey({}))).toEqual({ kind: 'never' });
	});

	test('a legacy key, a key cut short or garbage has an unknown expiry', () => {
		expect(keyExpiryOf('n8n_api_0123456789abcdef')).toEqual({ kind: 'unknown' });
		expect(keyExpiryOf(n8nApiKey({ exp: 1 }).split('.').slice(0, 2).join('.'))).toEqual({
			kind: 'unknown',
		});
		expect(keyExpiryOf(`a.${base64Url('not json')}.c`)).toEqual({ kind: 'unknown' });
		expect(keyExpiryOf(`a.${base64Url({ exp: 'soon' })}.c`)).toEqual({ kind: 'unknown' });
		expect(keyExpiryOf('a.b!d.c')).toEqual({ kind: 'unknown' });
	});

	test('tells expired keys and keys that expire within a number of days apart', () => {
		const past = keyExpiryOf(n8nApiKey({ exp: (now - 1000) / 1000 }));
		const inThreeDays = keyExpiryOf(n8nApiKey({ exp: (now + 3 * DAY) / 1000 }));
		const inForty = keyExpiryOf(n8nApiKey({ exp: (now + 40 * DAY) / 1000 }));
		const never = keyExpiryOf(n8nApiKey({}));
		expect([past, inThreeDays, inForty, never].map((e) => expiredAt(e, now) !== undefined)).toEqual(
			[true, false, false, false],
		);
		expect(
			[past, inThreeDays, inForty, never].map((e) => expiresWithinDays(e, 30, now) !== undefined),
		).toEqual([false, true, false, false]);
		expect(expiresWithinDays(inThreeDays, 2, now)).toBeUndefined();
	});

	test('says the date in UTC and the time left in whole units', () => {
		expect(formatExpiry(Date.UTC(2026, 10, 28, 14, 5, 59))).toBe('2026-11-28 14:05 UTC');
		expect(timeUntil(now + 3 * DAY + 5000, now)).toBe('in 3 days');
		expect(timeUntil(now + DAY, now)).toBe('in 1 day');
		expect(timeUntil(now + 5 * 3600_000 + 1, now)).toBe('in 5 hours');
		expect(timeUntil(now + 59 * 60_000, now)).toBe('within the hour');
		expect(expiresSoonMessage(now + 3 * DAY, now)).toContain(
			'expires on 2026-11-28 12:00 UTC (in 3 days)',
		);
	});
});
