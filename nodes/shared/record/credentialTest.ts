import type {
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	INodeCredentialTestResult,
} from 'n8n-workflow';

import {
	NEW_KEY_STEPS,
	TEST_WARNS_WITHIN_DAYS,
	expiredMessage,
	expiredAt,
	expiresWithinDays,
	formatExpiry,
	keyExpiryOf,
	keyUserIdOf,
	timeUntil,
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

const LEAST_PRIVILEGE_STEPS =
	"The record needs only the data table scopes. With key scopes in n8n's \"Create an API key\" dialog, pick only dataTable:create, dataTable:list, dataTableRow:create, dataTableRow:read, dataTableRow:update and dataTableRow:delete. Without key scopes, invite a dedicated n8n user with the Member role (Settings -> Users), sign in as that user and create the key there: its key reaches that user's own workflows and data tables (and the list of users), not other people's workflows.";

/**
 * The credential's Test, run by n8n for the nodes that name it in `testedBy`: the credential has no
 * `authenticate` block, so that no other node (HTTP Request, an AI agent's HTTP tool) can send the key
 * anywhere; only this package's record calls add it, to the credential's own n8n API URL.
 *
 * n8n's credential dialog shows the message of a failed test only ("Couldn't connect with these
 * settings", the message under its "More details"; a passing test always reads "Connection tested
 * successfully", read in n8n's editor code and seen in Chromium). So a key that works but expires within 30 days, or
 * that can do more than the record needs, is reported as a failed test whose message starts by
 * saying that the key works: the credential is saved and used all the same.
 */
export async function testRecordCredential(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	const data = credential.data ?? {};
	const baseUrl = String(data.baseUrl ?? '')
		.trim()
		.replace(/\/+$/, '');
	const apiKey = String(data.apiKey ?? '').trim();
	if (!/^https?:\/\//i.test(baseUrl)) {
		return {
			status: 'Error',
			message: `n8n API URL "${baseUrl}" is not an http(s) URL. Enter this n8n's address followed by /api/v1, e.g. https://n8n.example.com/api/v1.`,
		};
	}
	if (apiKey === '') {
		return { status: 'Error', message: `n8n API Key is empty. ${NEW_KEY_STEPS}` };
	}
	const now = Date.now();
	const expiry = keyExpiryOf(apiKey);
	const expired = expiredAt(expiry, now);
	if (expired !== undefined) {
		return { status: 'Error', message: `${expiredMessage(expired)}. ${NEW_KEY_STEPS}` };
	}

	const call = async (path: string, query: Record<string, string> = { limit: '1' }) =>
		await getFromApi(`${baseUrl}${path}`, apiKey, query);

	let tables: ApiAnswer;
	try {
		tables = await call('/data-tables');
	} catch (error) {
		return {
			status: 'Error',
			message: `n8n API URL ${baseUrl} cannot be reached (${reasonOf(error)}). Enter an address every n8n process can reach, e.g. http://localhost:5678/api/v1 or your editor's URL followed by /api/v1.`,
		};
	}
	if (tables.statusCode === 401) {
		return {
			status: 'Error',
			message: `n8n refused the API key (401). Check that you pasted the whole key, that it was not deleted in Settings -> n8n API, and that it belongs to this n8n. ${NEW_KEY_STEPS}`,
		};
	}
	if (tables.statusCode === 403) {
		return {
			status: 'Error',
			message: `The API key may not list data tables (403). Give it the data table scopes (dataTable:create, dataTable:list, dataTableRow:create, dataTableRow:read, dataTableRow:update, dataTableRow:delete), or create it as a user whose role may use data tables.`,
		};
	}
	if (tables.statusCode === 404) {
		return {
			status: 'Error',
			message: `${baseUrl} has no n8n public API with data tables (404). The n8n API URL is this n8n's address followed by /api/v1; the public API must be enabled (N8N_PUBLIC_API_DISABLED not true) and n8n must be 2.36 or later.`,
		};
	}
	if (tables.statusCode < 200 || tables.statusCode >= 300) {
		return {
			status: 'Error',
			message: `n8n answered ${tables.statusCode} when listing data tables at ${baseUrl}/data-tables: ${JSON.stringify(tables.body).slice(0, 300)}`,
		};
	}

	const warnings: string[] = [];
	const expiresSoon = expiresWithinDays(expiry, TEST_WARNS_WITHIN_DAYS, now);
	if (expiresSoon !== undefined) {
		warnings.push(
			`it expires on ${formatExpiry(expiresSoon)} (${timeUntil(expiresSoon, now)}); after that, write backs are answered 503 and Send Once fails. Replace it before then: ${NEW_KEY_STEPS}`,
		);
	}
	const userId = keyUserIdOf(apiKey);
	const user =
		userId === undefined
			? undefined
			: await call(`/users/${encodeURIComponent(userId)}`, { includeRole: 'true' }).catch(
					() => undefined,
				);
	const role = roleOf(user);
	if (role === 'global:owner' || role === 'global:admin') {
		warnings.push(
			`it can do more than the record needs: it is a key of this n8n's ${role === 'global:owner' ? 'owner' : 'admin'}, so it can read and change every workflow and user of this n8n. ${LEAST_PRIVILEGE_STEPS}`,
		);
	}
	if (warnings.length === 0) {
		return {
			status: 'OK',
			message: `The key reads this n8n's data tables${expiry.kind === 'expires' ? ` and expires on ${formatExpiry(expiry.at)}` : ''}.`,
		};
	}
	return {
		status: 'Error',
		message: `The key works (it reads this n8n's data tables), with ${warnings.length === 1 ? 'a warning' : 'warnings'}: ${warnings.map((warning, index) => `(${index + 1}) ${warning}`).join(' ')}`,
	};
}
