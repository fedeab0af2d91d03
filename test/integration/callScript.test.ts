/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code runs in jest, never inside n8n */
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import * as callModule from '../../scripts/call';
import * as localSetupModule from '../../scripts/lib/local-setup';

interface Answer {
	url: string;
	status: number;
	body: unknown;
}
const { call, formatAnswer } = callModule as {
	call: (argv: string[], env?: Record<string, string>) => Promise<Answer>;
	formatAnswer: (answer: Answer) => string;
};
const { writeEndpoints } = localSetupModule as {
	writeEndpoints: (
		userFolder: string,
		webhooks: Array<{ endpoint: string; localUrl: string }>,
		secrets: Record<string, string>,
	) => void;
};

const SECRETS = {
	lookup: '0a1b2c3d4e5f60718293a4b5c6d7e8f9',
	writeBack: 'f0e1d2c3b4a5968778695a4b3c2d1e0f',
	notification: '00112233445566778899aabbccddeeff',
};

interface Received {
	path: string;
	headers: Record<string, string | string[] | undefined>;
	raw: string;
}

/** Answers like the example workflows, and only requests signed with the path's secret (else 401). */
function startEndpoints(): Promise<{ server: Server; url: string; received: Received[] }> {
	const received: Received[] = [];
	const secretOf: Record<string, string> = {
		'/lookup': SECRETS.lookup,
		'/write-back': SECRETS.writeBack,
		'/notification': SECRETS.notification,
	};
	const server = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			const raw = Buffer.concat(chunks).toString('utf8');
			received.push({ path: req.url ?? '', headers: req.headers, raw });
			const expected = createHmac('sha256', Buffer.from(secretOf[req.url ?? ''] ?? '', 'hex'))
				.update(raw)
				.digest('hex');
			if (req.headers['x-service-signature'] !== expected) {
				res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"bad signature"}');
				return;
			}
			if (req.url === '/notification') {
				res.writeHead(204).end();
				return;
			}
			const body = JSON.parse(raw);
			res
				.writeHead(200, { 'content-type': 'application/json' })
				.end(JSON.stringify({ echoed: req.url === '/lookup' ? body : body.idempotencyKey }));
		});
	});
	return new Promise((resolve) =>
		server.listen(0, '127.0.0.1', () =>
			resolve({
				server,
				url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
				received,
			}),
		),
	);
}

describe('npm run call: the service played against the webhooks of npm start', () => {
	let endpoints: Awaited<ReturnType<typeof startEndpoints>>;
	let stateDir: string;
	let env: Record<string, string>;

	beforeAll(async () => {
		endpoints = await startEndpoints();
		stateDir = mkdtempSync(join(tmpdir(), 'cc-call-'));
		env = { CONTACT_CENTER_STATE_DIR: stateDir };
		writeEndpoints(
			stateDir,
			[
				{ endpoint: 'lookup', localUrl: `${endpoints.url}/lookup` },
				{ endpoint: 'writeBack', localUrl: `${endpoints.url}/write-back` },
				{ endpoint: 'notification', localUrl: `${endpoints.url}/notification` },
			],
			SECRETS,
		);
	});
	afterAll(async () => {
		rmSync(stateDir, { recursive: true, force: true });
		await new Promise((resolve) => endpoints.server.close(resolve));
	});
	beforeEach(() => {
		endpoints.received.length = 0;
	});

	test('lookup: a sample lookup body, signed with the lookup secret, to the lookup URL', async () => {
		const answer = await call(['lookup'], env);
		expect(answer).toEqual({
			url: `${endpoints.url}/lookup`,
			status: 200,
			body: { echoed: { email: 'ada@example.com' } },
		});
		const [request] = endpoints.received;
		expect(request.headers['content-type']).toBe('application/json');
		expect(request.headers.accept).toBe('application/json');
	});

	test('write back: a CONVERSATION_RESOLVED request with every field of spec 2.11 and a new key per call', async () => {
		const first = await call(['write-back'], env);
		const second = await call(['write-back'], env);
		expect([first.status, second.status]).toEqual([200, 200]);
		const bodies = endpoints.received.map((r) => JSON.parse(r.raw));
		expect(bodies[0]).toEqual({
			type: 'CONVERSATION_RESOLVED',
			version: 1,
			idempotencyKey: expect.any(String),
			data: expect.objectContaining({
				medium: { id: expect.any(String) },
				channel: { id: expect.any(String), name: expect.any(String) },
				conversation: expect.objectContaining({ currentStatus: 'resolved' }),
				statusUpdatedAt: expect.any(String),
				agent: expect.objectContaining({ email: expect.any(String) }),
				messages: expect.any(Array),
			}),
		});
		expect(bodies[0].idempotencyKey).not.toBe(bodies[1].idempotencyKey);
		expect(first.body).toEqual({ echoed: bodies[0].idempotencyKey });
	});

	test('write back --key: the same event twice, as a redelivery', async () => {
		await call(['write-back', '--key', 'demo-1'], env);
		await call(['write-back', '--key', 'demo-1'], env);
		expect(endpoints.received.map((r) => JSON.parse(r.raw).idempotencyKey)).toEqual([
			'demo-1',
			'demo-1',
		]);
	});

	test('notification: a DATA_IMPORT_ERROR request; a 204 is printed as no body', async () => {
		const answer = await call(['notification'], env);
		expect(answer.status).toBe(204);
		expect(answer.body).toBeNull();
		expect(JSON.parse(endpoints.received[0].raw)).toEqual({
			timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
			version: 1,
			eventType: 'DATA_IMPORT_ERROR',
			messages: [expect.any(String)],
		});
		expect(formatAnswer(answer)).toBe(`POST ${endpoints.url}/notification\n204 (no body)`);
	});

	test('--body sends exactly the given JSON', async () => {
		await call(['lookup', '--body', '{"email":"grace@example.com","phone":"+31600000000"}'], env);
		expect(endpoints.received[0].raw).toBe('{"email":"grace@example.com","phone":"+31600000000"}');
	});

	test('--url and --secret call any endpoint; a wrong secret is refused by it', async () => {
		const refused = await call(
			['lookup', '--url', `${endpoints.url}/lookup`, '--secret', SECRETS.writeBack],
			{},
		);
		expect(refused.status).toBe(401);
		const accepted = await call(
			['lookup', '--url', `${endpoints.url}/lookup`, '--secret', SECRETS.lookup],
			{},
		);
		expect(accepted.status).toBe(200);
		expect(formatAnswer(accepted)).toBe(
			`POST ${endpoints.url}/lookup\n200\n${JSON.stringify({ echoed: { email: 'ada@example.com' } }, null, 2)}`,
		);
	});

	test('without a running npm start it says to start it', async () => {
		const empty = mkdtempSync(join(tmpdir(), 'cc-call-none-'));
		try {
			await expect(call(['lookup'], { CONTACT_CENTER_STATE_DIR: empty })).rejects.toThrow(
				/No running npm start found.*start it first with npm start/,
			);
		} finally {
			rmSync(empty, { recursive: true, force: true });
		}
	});

	test('an unknown endpoint gets the usage line', async () => {
		await expect(call(['writeback'], env)).rejects.toThrow(
			'usage: npm run call -- <lookup | write-back | notification>',
		);
	});
});
