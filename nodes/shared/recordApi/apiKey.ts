// n8n's API keys are JWTs whose `exp` is the expiry chosen in n8n's "Create API key" dialog
// (public-api-key.service.js); Expiration "Never" has none; legacy `n8n_api_…` keys are no JWTs.

const DAY_MS = 24 * 60 * 60 * 1000;
export const RECORD_CREDENTIAL_DISPLAY_NAME = 'Contact Center Record API';
const THE_KEY = `The n8n API key of the "${RECORD_CREDENTIAL_DISPLAY_NAME}" credential`;

/** The credential's n8n API URL, trailing slashes left out. */
export const baseUrlOf = (value: unknown) =>
	String(value ?? '')
		.trim()
		.replace(/\/+$/, '');

/** How close to its expiry a key makes the credential's Test, and every run that uses it, warn. */
export const TEST_WARNS_WITHIN_DAYS = 30;
const RUN_WARNS_WITHIN_DAYS = 7;

/** `unknown`: not a JWT (a legacy key, or not an n8n key at all). */
export type KeyExpiry = { kind: 'expires'; at: number } | { kind: 'never' } | { kind: 'unknown' };

/** The key's JWT payload, unchecked (n8n checks the signature). */
function payloadOf(apiKey: string): Record<string, unknown> | undefined {
	const parts = apiKey.trim().split('.');
	if (parts.length !== 3 || !/^[A-Za-z0-9_-]+$/.test(parts[1])) return undefined;
	try {
		const payload: unknown = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
		return typeof payload === 'object' && payload !== null && !Array.isArray(payload)
			? (payload as Record<string, unknown>)
			: undefined;
	} catch {
		// Safe to ignore: a key whose payload is not JSON has no claims to read; n8n judges the key.
		return undefined;
	}
}

/** The id of the n8n user the key belongs to (its `sub` claim). */
export function keyUserIdOf(apiKey: string): string | undefined {
	const sub = payloadOf(apiKey)?.sub;
	return typeof sub === 'string' && sub !== '' ? sub : undefined;
}

export function keyExpiryOf(apiKey: string): KeyExpiry {
	const payload = payloadOf(apiKey);
	if (payload === undefined) return { kind: 'unknown' };
	if (payload.exp === undefined) return { kind: 'never' };
	const exp = payload.exp;
	return typeof exp === 'number' && Number.isFinite(exp)
		? { kind: 'expires', at: exp * 1000 }
		: { kind: 'unknown' };
}

/** As n8n's API key list shows it: `2026-11-28 14:05 UTC`. */
export const formatExpiry = (at: number) =>
	`${new Date(at).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/** "in 3 days", "in 5 hours", "within the hour" (whole units, rounded down). */
export function timeUntil(at: number, now: number): string {
	const days = Math.floor((at - now) / DAY_MS);
	const hours = Math.floor((at - now) / (60 * 60 * 1000));
	if (days >= 1) return `in ${days} day${days === 1 ? '' : 's'}`;
	return hours >= 1 ? `in ${hours} hour${hours === 1 ? '' : 's'}` : 'within the hour';
}

export const expiredAt = (expiry: KeyExpiry, now: number): number | undefined =>
	expiry.kind === 'expires' && expiry.at <= now ? expiry.at : undefined;

/** When the key expires, if that is within `days` from now and not past. */
export const expiresWithinDays = (expiry: KeyExpiry, days: number, now: number) =>
	expiry.kind === 'expires' && expiry.at > now && expiry.at - now <= days * DAY_MS
		? expiry.at
		: undefined;

/** How to make a key that can do only what the record needs, in the words of n8n's screens. */
export const RECORD_KEY_STEPS = `In n8n open Settings -> n8n API -> Create API key: a Label, Expiration "Never", Scopes "Custom" with "Data tables" ticked; Save, copy the key and paste it into the "${RECORD_CREDENTIAL_DISPLAY_NAME}" credential's n8n API Key field.`;

export const expiredMessage = (at: number) => `${THE_KEY} expired on ${formatExpiry(at)}`;
export const expiresSoonMessage = (at: number, now: number) =>
	`${THE_KEY} expires on ${formatExpiry(at)} (${timeUntil(at, now)}). After that, write backs are answered 503 and Send Once fails until the credential has a new key.`;

/** The warning of a run that uses a key expiring within a week, else undefined. */
export function runWarningOf(expiry: KeyExpiry, now = Date.now()): string | undefined {
	const at = expiresWithinDays(expiry, RUN_WARNS_WITHIN_DAYS, now);
	return at === undefined ? undefined : expiresSoonMessage(at, now);
}
