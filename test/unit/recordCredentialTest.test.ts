import type { ICredentialTestFunctions } from 'n8n-workflow';

import { testRecordCredential } from '../../nodes/shared/recordApi';
import * as fetchStubModule from './fetchStub';

const base64Url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
const keyExpiringIn = (ms?: number) =>
	`${base64Url({ alg: 'HS256' })}.${base64Url(ms === undefined ? { sub: 'u' } : { sub: 'u', exp: (Date.now() + ms) / 1000 })}.sig`;
const DAY = 24 * 60 * 60 * 1000;

type FetchAnswer = { status: number; body: unknown };
const { stubFetch } = fetchStubModule as {
	stubFetch: (answer: (url: URL) => Promise<FetchAnswer>) => {
		calls: Array<{ url: string; headers: Record<string, string> }>;
		restore: () => void;
	};
};

/** Runs the Test with n8n's public API answering by path (`/api/v1` left out). */
const runCredentialTest = async (
	statusByPath: Record<string, number | Error>,
	data: Record<string, unknown>,
	bodyByPath: Record<string, unknown> = {},
) => {
	const stub = stubFetch(async (url) => {
		const path = url.pathname.replace('/api/v1', '');
		const answer = statusByPath[path] ?? 404;
		if (answer instanceof Error) throw answer;
		return { status: answer, body: bodyByPath[path] ?? { data: [] } };
	});
	try {
		const result = await testRecordCredential.call({} as ICredentialTestFunctions, {
			id: '1',
			name: 'record',
			type: 'contactCenterRecordApi',
			data: { baseUrl: 'http://localhost:5678/api/v1/', dataTableName: 'record', ...data },
		});
		return { result, calls: stub.calls.map((call) => ({ ...call, uri: call.url.split('?')[0] })) };
	} finally {
		stub.restore();
	}
};

describe("the Contact Center Record API credential's Test", () => {
	test("passes a Member's key without expiry that reads data tables", async () => {
		const { result, calls } = await runCredentialTest(
			{ '/data-tables': 200, '/users/u': 200 },
			{ apiKey: keyExpiringIn() },
			{ '/users/u': { id: 'u', role: 'global:member' } },
		);
		expect(result.status).toBe('OK');
		expect(calls.map((call) => call.uri)).toEqual([
			'http://localhost:5678/api/v1/data-tables',
			'http://localhost:5678/api/v1/users/u',
		]);
		expect(calls.every((call) => call.headers['X-N8N-API-KEY'] === keyExpiringIn().trim())).toBe(
			true,
		);
	});

	test('passes a key that expires within 30 days, noting when', async () => {
		const { result } = await runCredentialTest(
			{ '/data-tables': 200, '/users/u': 403 },
			{ apiKey: keyExpiringIn(3 * DAY + 60_000) },
		);
		expect(result.status).toBe('OK');
		expect(result.message).toMatch(/^The key works: .* Note: \(1\) it expires on .* \(in 3 days\)/);
		const later = await runCredentialTest(
			{ '/data-tables': 200, '/users/u': 403 },
			{ apiKey: keyExpiringIn(31 * DAY) },
		);
		expect(later.result.status).toBe('OK');
		expect(later.result.message).toMatch(/expires on/);
	});

	test.each([
		['global:owner', 'owner'],
		['global:admin', 'admin'],
	])(
		'passes a key of the %s, noting that it can do more than the record needs',
		async (role, word) => {
			const { result } = await runCredentialTest(
				{ '/data-tables': 200, '/users/u': 200 },
				{ apiKey: keyExpiringIn() },
				{ '/users/u': { id: 'u', role } },
			);
			expect(result.status).toBe('OK');
			expect(result.message).toMatch(
				new RegExp(
					`^The key works: .* Note: \\(1\\) .*it is a key of this n8n's ${word}.*Scopes "Custom"`,
				),
			);
		},
	);

	test('a key that may not read its own user (only data table scopes) passes', async () => {
		const { result } = await runCredentialTest(
			{ '/data-tables': 200, '/users/u': 403 },
			{ apiKey: keyExpiringIn() },
		);
		expect(result.status).toBe('OK');
		expect(result.message).toBe("The key works: it reads this n8n's data tables.");
	});

	test('a key whose own user cannot be read for want of an answer passes, noting that its role was not checked', async () => {
		const { result } = await runCredentialTest(
			{ '/data-tables': 200, '/users/u': new Error('read ECONNRESET') },
			{ apiKey: keyExpiringIn() },
		);
		expect(result.status).toBe('OK');
		expect(result.message).toMatch(
			/^The key works: .* Note: \(1\) whether it is a key of this n8n's owner or an admin .* could not be checked: reading its user failed \(read ECONNRESET\)\.$/,
		);
	});

	test('an expired key fails without a call, saying how to make a new one', async () => {
		const { result, calls } = await runCredentialTest({}, { apiKey: keyExpiringIn(-DAY) });
		expect(calls).toHaveLength(0);
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/expired on .*Create API key: .*Expiration "Never"/);
	});

	test.each([
		// What to fix first: n8n's dialog shows the message under "More details", from its start.
		[
			{ '/data-tables': 401 },
			/^Check the key you pasted into n8n API Key: n8n refused it \(HTTP 401\)\./,
		],
		[{ '/data-tables': 403 }, /may not list data tables \(403\).*"Data tables" ticked/],
		[{ '/data-tables': 404 }, /has no n8n public API with data tables \(404\)/],
		[
			{ '/data-tables': new Error('connect ECONNREFUSED') },
			/cannot be reached \(connect ECONNREFUSED\)/,
		],
	])('names what is wrong: %p', async (answers, expected) => {
		const { result } = await runCredentialTest(answers, { apiKey: 'n8n_api_x' });
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(expected);
	});

	test('names a URL that is not http(s) and an empty key before any call', async () => {
		const url = await runCredentialTest({}, { baseUrl: 'localhost:5678', apiKey: 'k' });
		expect(url.result.message).toMatch(/n8n API URL "localhost:5678" is not an http\(s\) URL/);
		const key = await runCredentialTest({}, { apiKey: ' ' });
		expect(key.result.message).toMatch(/n8n API Key is empty/);
		expect([...url.calls, ...key.calls]).toHaveLength(0);
	});
});
