import type {
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	INodeCredentialTestResult,
} from 'n8n-workflow';

import {
	type KeyExpiry,
	TEST_WARNS_WITHIN_DAYS,
	expiredMessage,
	expiredAt,
	expiresWithinDays,
	formatExpiry,
	keyExpiryOf,
	keyUserIdOf,
	timeUntil,
	RECORD_KEY_STEPS,
} from './apiKey';

/**
 * One GET to n8n's public API with the key. A credential test's context (n8n-core's
 * CredentialTestContext) offers only the legacy `request` helper, which n8n's community package
 * scanner refuses (no-deprecated-workflow-functions, inline exceptions not honoured), so the test
 * uses Node's fetch; only this test does, to the credential's own n8n API URL.
 */
async function getFromApi(
	url: string,
	apiKey: string,
	query: Record<string, string>,
): Promise<ApiAnswer> {
	const target = new URL(url);
	for (const [name, value] of Object.entries(query)) target.searchParams.set(name, value);
	const response = await fetch(target, {
		headers: { 'X-N8N-API-KEY': apiKey, accept: 'application/json' },
		signal: AbortSignal.timeout(15_000),
	});
	const text = await response.text();
	let body: unknown = text;
	try {
		body = JSON.parse(text);
	} catch {
		// Not JSON: the text itself is the answer.
	}
	return { statusCode: response.status, body };
}

/** Why fetch failed: its cause (e.g. "connect ECONNREFUSED 127.0.0.1:5678") rather than "fetch failed". */
function reasonOf(error: unknown): string {
	const failure = error as Error & { cause?: { message?: string } };
	return failure.cause?.message ?? failure.message;
}

/** The role n8n answered for the key's own user, when the key may read it. */
function roleOf(answer: ApiAnswer | undefined): string | undefined {
	if (answer === undefined || answer.statusCode !== 200) return undefined;
	const body = answer.body as { role?: unknown; data?: { role?: unknown } } | undefined;
	const role = body?.role ?? body?.data?.role;
	return typeof role === 'string' ? role : undefined;
}

interface ApiAnswer {
	statusCode: number;
	body: unknown;
}

const fail = (message: string): INodeCredentialTestResult => ({ status: 'Error', message });

/** The credential's URL and key, or why they cannot be tried. */
function readCredential(
	credential: ICredentialsDecrypted,
	now: number,
): { baseUrl: string; apiKey: string; expiry: KeyExpiry } | INodeCredentialTestResult {
	const data = credential.data ?? {};
	const baseUrl = String(data.baseUrl ?? '')
		.trim()
		.replace(/\/+$/, '');
	const apiKey = String(data.apiKey ?? '').trim();
	if (!/^https?:\/\//i.test(baseUrl)) {
		return fail(
			`n8n API URL "${baseUrl}" is not an http(s) URL. Enter this n8n's address followed by /api/v1, e.g. https://n8n.example.com/api/v1.`,
		);
	}
	if (apiKey === '') return fail(`n8n API Key is empty. ${RECORD_KEY_STEPS}`);
	const expiry = keyExpiryOf(apiKey);
	const expired = expiredAt(expiry, now);
	if (expired !== undefined) return fail(`${expiredMessage(expired)}. ${RECORD_KEY_STEPS}`);
	return { baseUrl, apiKey, expiry };
}

/** Lists the data tables with the key; why the record cannot use it, or undefined when it can. */
async function dataTablesRefusal(
	baseUrl: string,
	apiKey: string,
): Promise<INodeCredentialTestResult | undefined> {
	let tables: ApiAnswer;
	try {
		tables = await getFromApi(`${baseUrl}/data-tables`, apiKey, { limit: '1' });
	} catch (error) {
		return fail(
			`n8n API URL ${baseUrl} cannot be reached (${reasonOf(error)}). Enter an address every n8n process can reach, e.g. http://localhost:5678/api/v1 or your editor's URL followed by /api/v1.`,
		);
	}
	switch (tables.statusCode) {
		case 401:
			return fail(
				`n8n refused the API key (HTTP 401): check the key you pasted. It must be the whole key, of this n8n, and not deleted in Settings -> n8n API. ${RECORD_KEY_STEPS}`,
			);
		case 403:
			return fail(
				`The API key may not list data tables (403): its scopes leave out data tables. ${RECORD_KEY_STEPS}`,
			);
		case 404:
			return fail(
				`${baseUrl} has no n8n public API with data tables (404). The n8n API URL is this n8n's address followed by /api/v1; the public API must be enabled (N8N_PUBLIC_API_DISABLED not true) and n8n must be 2.36 or later.`,
			);
	}
	if (tables.statusCode < 200 || tables.statusCode >= 300) {
		return fail(
			`n8n answered ${tables.statusCode} when listing data tables at ${baseUrl}/data-tables: ${JSON.stringify(tables.body).slice(0, 300)}`,
		);
	}
	return undefined;
}

/** What the user should know about a key that works: an expiry within 30 days, an owner's or admin's key. */
async function keyNotes(
	baseUrl: string,
	apiKey: string,
	expiry: KeyExpiry,
	now: number,
): Promise<string[]> {
	const notes: string[] = [];
	const expiresSoon = expiresWithinDays(expiry, TEST_WARNS_WITHIN_DAYS, now);
	if (expiresSoon !== undefined) {
		notes.push(
			`it expires on ${formatExpiry(expiresSoon)} (${timeUntil(expiresSoon, now)}); after that, write backs are answered 503 and Send Once fails. Replace it before then: ${RECORD_KEY_STEPS}`,
		);
	}
	const userId = keyUserIdOf(apiKey);
	// The role only adds a note to a passing test: a key that may not read its user is the usual case.
	const user =
		userId === undefined
			? undefined
			: await getFromApi(`${baseUrl}/users/${encodeURIComponent(userId)}`, apiKey, {
					includeRole: 'true',
				}).catch(() => undefined);
	const role = roleOf(user);
	if (role === 'global:owner' || role === 'global:admin') {
		notes.push(
			`it can do more than the record needs: it is a key of this n8n's ${role === 'global:owner' ? 'owner' : 'admin'} with scopes beyond data tables, so it can read and change every workflow and user of this n8n. ${RECORD_KEY_STEPS}`,
		);
	}
	return notes;
}

/**
 * The credential's Test, run by n8n for the nodes that name it in `testedBy`: the credential has no
 * `authenticate` block, so that no other node (HTTP Request, an AI agent's HTTP tool) can send the key
 * anywhere; only this package's record calls add it, to the credential's own n8n API URL.
 *
 * A key the record can use passes, even with notes (an expiry within 30 days, an owner's key): n8n's
 * credential dialog knows only OK and Error, shows an OK as "Connection tested successfully" without
 * its message and an Error in red as "Couldn't connect with these settings" (read in n8n 2.41.1's
 * editor: `useCredentialForm` and `CredentialConfig`). The notes stay in the message, which n8n's
 * REST API returns; the dialog's notice says which key to make, n8n's key list shows each key's
 * expiration, and runs warn in their output within 7 days of it.
 */
export async function testRecordCredential(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	const now = Date.now();
	const read = readCredential(credential, now);
	if ('status' in read) return read;
	const { baseUrl, apiKey, expiry } = read;
	const refusal = await dataTablesRefusal(baseUrl, apiKey);
	if (refusal !== undefined) return refusal;
	const notes = await keyNotes(baseUrl, apiKey, expiry, now);
	const works = `The key works: it reads this n8n's data tables${expiry.kind === 'expires' ? ` and expires on ${formatExpiry(expiry.at)}` : ''}.`;
	if (notes.length === 0) return { status: 'OK', message: works };
	return {
		status: 'OK',
		message: `${works} Note: ${notes.map((note, index) => `(${index + 1}) ${note}`).join(' ')}`,
	};
}
