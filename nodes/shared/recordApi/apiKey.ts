/**
 * What the package can tell of an n8n API key without a call. n8n's API keys are JWTs whose `exp`
 * claim holds the expiry chosen in n8n's "Create API key" dialog (read in n8n's
 * public-api-key.service.js: `jwtService.sign({ sub, iss: 'n8n', aud: 'public-api', jti },
 * { expiresIn })`); a key made with Expiration "Never" has no `exp`, and older keys (`n8n_api_…`,
 * n8n's PREFIX_LEGACY_API_KEY) are not JWTs at all.
 */

const DAY_MS = 24 * 60 * 60 * 1000;

/** A key this close to its expiry makes the credential's Test warn. */
export const TEST_WARNS_WITHIN_DAYS = 30;
/** A key this close to its expiry makes every run that uses it warn (execution hint and n8n's log). */
export const RUN_WARNS_WITHIN_DAYS = 7;

export type KeyExpiry =
	| { kind: 'expires'; at: number }
	| { kind: 'never' }
	/** Not a JWT (a legacy `n8n_api_…` key, or not an n8n key at all): its expiry cannot be read. */
	| { kind: 'unknown' };

function base64UrlDecode(part: string): string | undefined {
	if (!/^[A-Za-z0-9_-]+$/.test(part)) return undefined;
	return Buffer.from(part.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8');
}

/** The key's JWT payload (no signature check: n8n checks it), or undefined for a key that is not a JWT. */
function payloadOf(apiKey: string): Record<string, unknown> | undefined {
	const parts = apiKey.trim().split('.');
	if (parts.length !== 3) return undefined;
	const payloadText = base64UrlDecode(parts[1]);
	if (payloadText === undefined) return undefined;
	try {
		const payload: unknown = JSON.parse(payloadText);
		return typeof payload === 'object' && payload !== null && !Array.isArray(payload)
			? (payload as Record<string, unknown>)
			: undefined;
	} catch {
		return undefined;
	}
}

/** The id of the n8n user the key belongs to (its `sub` claim). */
export function keyUserIdOf(apiKey: string): string | undefined {
	const sub = payloadOf(apiKey)?.sub;
	return typeof sub === 'string' && sub !== '' ? sub : undefined;
}

/** When the key expires, read from its JWT payload. */
export function keyExpiryOf(apiKey: string): KeyExpiry {
	const payload = payloadOf(apiKey);
	if (payload === undefined) return { kind: 'unknown' };
	const exp = payload.exp;
	if (exp === undefined) return { kind: 'never' };
	if (typeof exp !== 'number' || !Number.isFinite(exp)) return { kind: 'unknown' };
	return { kind: 'expires', at: exp * 1000 };
}

/** A date as users read it in n8n's API key list: `2026-11-28 14:05 UTC`. */
export function formatExpiry(at: number): string {
	return `${new Date(at).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** "in 3 days", "in 5 hours", "within the hour" (whole units, rounded down). */
export function timeUntil(at: number, now: number): string {
	const ms = at - now;
	if (ms >= DAY_MS) {
		const days = Math.floor(ms / DAY_MS);
		return `in ${days} day${days === 1 ? '' : 's'}`;
	}
	const hours = Math.floor(ms / (60 * 60 * 1000));
	if (hours >= 1) return `in ${hours} hour${hours === 1 ? '' : 's'}`;
	return 'within the hour';
}

/** When the key expired, or undefined while it has not (or never expires). */
export const expiredAt = (expiry: KeyExpiry, now: number): number | undefined =>
	expiry.kind === 'expires' && expiry.at <= now ? expiry.at : undefined;

/** When the key expires, if that is within `days` from now (and not past), else undefined. */
export const expiresWithinDays = (
	expiry: KeyExpiry,
	days: number,
	now: number,
): number | undefined =>
	expiry.kind === 'expires' && expiry.at > now && expiry.at - now <= days * DAY_MS
		? expiry.at
		: undefined;

/** How to make a key that can do only what the record needs, in the words of n8n's screens. */
export const RECORD_KEY_STEPS =
	'In n8n open Settings -> n8n API -> Create API key: a Label, Expiration "Never", Scopes "Custom" with "Data tables" ticked; Save, copy the key and paste it into the "Contact Center Record API" credential\'s n8n API Key field.';

export function expiredMessage(at: number): string {
	return `The n8n API key of the "Contact Center Record API" credential expired on ${formatExpiry(at)}`;
}

export function expiresSoonMessage(at: number, now: number): string {
	return `The n8n API key of the "Contact Center Record API" credential expires on ${formatExpiry(at)} (${timeUntil(at, now)}). After that, write backs are answered 503 and Send Once fails until the credential has a new key.`;
}
