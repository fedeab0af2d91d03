import type { ICredentialsDecrypted, INodeCredentialTestResult } from 'n8n-workflow';

import {
	RECORD_KEY_STEPS,
	TEST_WARNS_WITHIN_DAYS,
	baseUrlOf,
	expiredAt,
	expiredMessage,
	expiresWithinDays,
	formatExpiry,
	keyExpiryOf,
	keyUserIdOf,
	timeUntil,
} from './apiKey';
import { fetchApi } from './withoutExecution';

const fail = (message: string): INodeCredentialTestResult => ({ status: 'Error', message });

// The credential has no `authenticate` block, so that no other node (HTTP Request, an AI agent's
// tool) can send the key anywhere. A usable key passes with its notes: n8n's dialog shows no OK's
// message (2.41.1's `useCredentialForm`), but its REST API does, and runs warn within 7 days.
export async function testRecordCredential(
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	const now = Date.now();
	const baseUrl = baseUrlOf(credential.data?.baseUrl);
	const apiKey = String(credential.data?.apiKey ?? '').trim();
	if (!/^https?:\/\//i.test(baseUrl)) {
		return fail(
			`n8n API URL "${baseUrl}" is not an http(s) URL. Enter this n8n's address followed by /api/v1, e.g. https://n8n.example.com/api/v1.`,
		);
	}
	if (apiKey === '') return fail(`n8n API Key is empty. ${RECORD_KEY_STEPS}`);
	const expiry = keyExpiryOf(apiKey);
	const expired = expiredAt(expiry, now);
	if (expired !== undefined) return fail(`${expiredMessage(expired)}. ${RECORD_KEY_STEPS}`);

	// A credential test's context offers only the legacy `request` helper, which n8n's package
	// scanner refuses (inline exceptions not honoured): so fetch, to the credential's own URL.
	const headers = { 'X-N8N-API-KEY': apiKey, accept: 'application/json' };
	const get = async (path: string, qs: Record<string, string>) =>
		await fetchApi(`${baseUrl}${path}`, { headers, qs, timeout: 15_000 });
	const tables = await get('/data-tables', { limit: '1' }).catch(
		(error: Error & { cause?: { message?: string } }) =>
			String(error.cause?.message ?? error.message),
	);
	if (typeof tables === 'string') {
		return fail(
			`n8n API URL ${baseUrl} cannot be reached (${tables}). Enter an address every n8n process can reach, e.g. http://localhost:5678/api/v1 or your editor's URL followed by /api/v1.`,
		);
	}
	const refusals: Partial<Record<number, string>> = {
		401: `Check the key you pasted into n8n API Key: n8n refused it (HTTP 401). It must be the whole key, of this n8n, and not deleted in Settings -> n8n API. ${RECORD_KEY_STEPS}`,
		403: `The API key may not list data tables (403): its scopes leave out data tables. ${RECORD_KEY_STEPS}`,
		404: `${baseUrl} has no n8n public API with data tables (404). The n8n API URL is this n8n's address followed by /api/v1; the public API must be enabled (N8N_PUBLIC_API_DISABLED not true) and n8n must be 2.36 or later.`,
	};
	const { status } = tables.response;
	if (refusals[status] !== undefined) return fail(refusals[status]);
	if (status < 200 || status >= 300) {
		const answer = JSON.stringify(tables.data === undefined ? '' : tables.data).slice(0, 300);
		return fail(
			`n8n answered ${status} when listing data tables at ${baseUrl}/data-tables: ${answer}`,
		);
	}
	// The role of the key's own user; a key that may not read it (403) is the usual case, and says
	// nothing. A call that fails without an answer is noted: the role was not checked.
	const userId = keyUserIdOf(apiKey);
	const query = { includeRole: 'true' };
	const user =
		userId === undefined
			? undefined
			: await get(`/users/${encodeURIComponent(userId)}`, query).catch(
					(error: Error & { cause?: { message?: string } }) =>
						String(error.cause?.message ?? error.message),
				);
	const roleNotRead = typeof user === 'string' ? user : undefined;
	const body = typeof user === 'object' && user.response.status === 200 ? user.data : undefined;
	const { role, data } = (body ?? {}) as { role?: unknown; data?: { role?: unknown } };
	const ownRole = role ?? data?.role;
	const soon = expiresWithinDays(expiry, TEST_WARNS_WITHIN_DAYS, now);
	const notes = [
		soon !== undefined &&
			`it expires on ${formatExpiry(soon)} (${timeUntil(soon, now)}); after that, write backs are answered 503 and Send Once fails. Replace it before then: ${RECORD_KEY_STEPS}`,
		(ownRole === 'global:owner' || ownRole === 'global:admin') &&
			`it can do more than the record needs: it is a key of this n8n's ${ownRole === 'global:owner' ? 'owner' : 'admin'} with scopes beyond data tables, so it can read and change every workflow and user of this n8n. ${RECORD_KEY_STEPS}`,
		roleNotRead !== undefined &&
			`whether it is a key of this n8n's owner or an admin (which can do more than the record needs) could not be checked: reading its user failed (${roleNotRead}).`,
	].filter((note) => typeof note === 'string');
	const works = `The key works: it reads this n8n's data tables${expiry.kind === 'expires' ? ` and expires on ${formatExpiry(expiry.at)}` : ''}.`;
	const noted = notes.map((note, index) => `(${index + 1}) ${note}`).join(' ');
	return { status: 'OK', message: notes.length === 0 ? works : `${works} Note: ${noted}` };
}
