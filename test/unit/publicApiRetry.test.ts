/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: a local HTTP server in jest, never inside n8n */
/**
 * The test scripts' calls to n8n's public API ride out a socket n8n closes before answering, for
 * idempotent requests only: a GET is tried again, a POST is not (it may have been carried out).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import * as runtimeModule from '../../scripts/lib/n8n-runtime';

const rt = runtimeModule as unknown as {
	publicApi: (instance: object, method: string, route: string, body?: object) => Promise<unknown>;
};

let server: Server;
let baseUrl: string;
const seen: string[] = [];

beforeAll(async () => {
	server = createServer((req, res) => {
		seen.push(req.method ?? '');
		// The first call of each method: the socket closed without an answer.
		if (seen.filter((method) => method === req.method).length === 1) {
			req.socket.destroy();
			return;
		}
		res.setHeader('content-type', 'application/json');
		res.end('{"data":[]}');
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => await new Promise((resolve) => server.close(resolve)));

test('a GET whose socket n8n closed is tried again and answered; a POST is not tried again', async () => {
	const instance = { baseUrl, apiKey: 'key' };
	await expect(rt.publicApi(instance, 'GET', '/executions')).resolves.toEqual({ data: [] });
	await expect(rt.publicApi(instance, 'POST', '/workflows', {})).rejects.toThrow(/fetch failed/);
	expect(seen).toEqual(['GET', 'GET', 'POST']);
});
