'use strict';
/**
 * A fault proxy in front of a real n8n (plain JavaScript, Node 20, no dependencies): the record
 * credential's n8n API URL points at it (`http://127.0.0.1:<port>/api/v1`), it forwards every
 * request to n8n and, once the test switches faults on, injects them into the record's calls only
 * (`/api/v1/data-tables...`), the way n8n's API stumbles in production:
 *
 * - a rule per call number: `{ every: 3, status: 429, retryAfter: 1 }` answers every 3rd record
 *   call 429 with `Retry-After: 1`, the way n8n answers a rate-limited call (express-rate-limit, as
 *   in n8n's rate-limit.service.js: body `{"message":"Too many requests"}`, `Retry-After` and the
 *   `X-RateLimit-*` headers); `{ every: 4, status: 500 }` a server error; `{ every: 7, reset: true }`
 *   a connection reset (the socket destroyed, no answer). Call numbers count the record calls from
 *   the moment the faults were set; the first rule that matches a call number wins. A faulted call
 *   is not forwarded: n8n never sees it (a refusal before any work, as a rate limit or a proxy
 *   in front of n8n does).
 * - added latency: every record call held `latencyMs` before it is forwarded.
 * - an outage: `outage(ms)` closes the listener (connections are refused), cuts the connections
 *   open at that moment (a record call in flight then gets a reset; n8n may or may not have
 *   done it), and listens again on the same port after `ms`.
 *
 * Counts every record call, what was forwarded, each fault, and keeps a log of the record calls
 * (call number, method, path, fault, status, the API key sent, when).
 */
const http = require('node:http');
const { getFreePort } = require('../../scripts/lib/n8n-runtime');

/** The record's calls: n8n's public API for data tables and their rows. */
const isRecordCall = (req) => /^\/api\/v1\/data-tables(?:[/?]|$)/.test(req.url ?? '');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The fault of call number `n` (1-based) under `rules`, if any. */
function faultOf(rules, n) {
	return rules.find((rule) => rule.every > 0 && n % rule.every === 0);
}

/**
 * Starts the proxy. `target`: n8n's base URL (`http://127.0.0.1:5678`). `port`: where to listen
 * (default: a free port outside the kernel's range for outgoing connections, so that no outgoing
 * connection takes it while an outage has it closed). Resolves with the proxy's handle.
 */
async function startFaultProxy({ target, port, host = '127.0.0.1', match = isRecordCall }) {
	const upstream = new URL(target);
	const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
	const listenPort = port || (await getFreePort(host));
	const sockets = new Set();
	/** Record calls not answered yet, with their log entries. */
	const inFlight = new Map();
	let closed = false;
	let faults = { rules: [], latencyMs: 0 };
	let down = false;
	const stats = {
		calls: 0,
		forwarded: 0,
		faults: {},
		answered: {},
		cutByOutage: 0,
		outages: 0,
		otherRequests: 0,
	};
	const log = [];
	const count = (table, key) => {
		table[key] = (table[key] ?? 0) + 1;
	};

	function forward(req, res, entry) {
		const started = Date.now();
		const headers = { ...req.headers, host: upstream.host };
		const proxied = http.request(
			{
				protocol: upstream.protocol,
				hostname: upstream.hostname,
				port: upstream.port,
				method: req.method,
				path: req.url,
				headers,
				agent,
			},
			(answer) => {
				if (entry) {
					entry.status = answer.statusCode;
					count(stats.answered, String(answer.statusCode));
				}
				res.writeHead(answer.statusCode ?? 502, answer.headers);
				answer.pipe(res);
				answer.on('end', () => {
					if (entry) entry.ms = Date.now() - started;
				});
			},
		);
		proxied.on('error', (error) => {
			if (entry) {
				entry.status = 0;
				entry.error = error.message;
			}
			if (!res.headersSent) {
				res.writeHead(502, { 'content-type': 'application/json' });
				res.end(JSON.stringify({ message: `fault proxy: n8n did not answer: ${error.message}` }));
			} else res.destroy();
		});
		// The caller gave up (or an outage cut it): n8n's request is dropped too.
		res.on('close', () => {
			if (!res.writableFinished) proxied.destroy();
		});
		if (entry) stats.forwarded += 1;
		req.pipe(proxied);
	}

	function answerFault(req, res, rule, entry) {
		if (rule.reset) {
			count(stats.faults, 'reset');
			entry.fault = 'reset';
			req.socket.destroy();
			return;
		}
		const status = rule.status ?? 500;
		count(stats.faults, String(status));
		entry.fault = String(status);
		entry.status = status;
		count(stats.answered, String(status));
		const headers = { 'content-type': 'application/json; charset=utf-8', ...(rule.headers ?? {}) };
		let body = rule.body;
		if (status === 429) {
			const retryAfter = rule.retryAfter ?? 1;
			headers['retry-after'] = String(retryAfter);
			headers['x-ratelimit-limit'] = String(rule.limit ?? 60);
			headers['x-ratelimit-remaining'] = '0';
			headers['x-ratelimit-reset'] = String(Math.ceil(Date.now() / 1000) + retryAfter);
			body = body ?? { message: 'Too many requests' };
		}
		body = body ?? { message: status >= 500 ? 'Internal Server Error' : `Error ${status}` };
		res.writeHead(status, headers);
		res.end(JSON.stringify(body));
	}

	const server = http.createServer((req, res) => {
		if (!match(req)) {
			stats.otherRequests += 1;
			forward(req, res, undefined);
			return;
		}
		stats.calls += 1;
		const n = stats.calls;
		const apiKey = req.headers['x-n8n-api-key'];
		const entry = {
			n,
			method: req.method,
			path: (req.url ?? '').split('?')[0],
			at: Date.now(),
			apiKey: Array.isArray(apiKey) ? apiKey[0] : apiKey,
		};
		log.push(entry);
		inFlight.set(res, entry);
		res.on('close', () => inFlight.delete(res));
		const { rules, latencyMs } = faults;
		const rule = faultOf(rules, n);
		const go = () => {
			// Cut meanwhile (an outage during the added latency): nothing reaches n8n.
			if (res.destroyed || req.socket.destroyed) {
				entry.fault = entry.fault ?? 'cut';
				return;
			}
			if (rule) answerFault(req, res, rule, entry);
			else forward(req, res, entry);
		};
		if (latencyMs > 0) setTimeout(go, latencyMs);
		else go();
	});
	server.keepAliveTimeout = 5000;
	server.on('connection', (socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});

	const listen = async () => {
		for (let attempt = 0; ; attempt++) {
			try {
				await new Promise((resolve, reject) => {
					server.once('error', reject);
					server.listen(listenPort, host, () => {
						server.off('error', reject);
						resolve();
					});
				});
				return;
			} catch (error) {
				// The port was taken meanwhile (never seen): try again for a moment, then give up.
				if (error.code !== 'EADDRINUSE' || attempt >= 20) throw error;
				await sleep(100);
			}
		}
	};
	const closeListener = () => new Promise((resolve) => server.close(() => resolve()));
	await listen();

	return {
		url: `http://${host}:${listenPort}`,
		port: listenPort,
		stats,
		log,
		/**
		 * Switches faults on (or changes them), counting record calls from 1 again:
		 * `rules` as in the header, `latencyMs` added to every record call.
		 */
		setFaults({ rules = [], latencyMs = 0 } = {}) {
			faults = { rules, latencyMs };
			stats.calls = 0;
		},
		/** Every record call forwarded at once again (the counts stay). */
		clearFaults() {
			faults = { rules: [], latencyMs: 0 };
		},
		/** The counts from zero (and the log emptied). */
		resetStats() {
			stats.calls = 0;
			stats.forwarded = 0;
			stats.faults = {};
			stats.answered = {};
			stats.cutByOutage = 0;
			stats.outages = 0;
			stats.otherRequests = 0;
			log.length = 0;
		},
		/** Whether the listener is closed by an outage right now. */
		get down() {
			return down;
		},
		/**
		 * The API down for `ms`: the listener closed (connections refused) and the connections open
		 * now cut, then the same port listened on again. Resolves once it is back.
		 */
		async outage(ms) {
			if (down) throw new Error('fault proxy: an outage is under way already');
			down = true;
			stats.outages += 1;
			const listenerClosed = closeListener();
			// A record call in flight now gets a reset (n8n may or may not have done it).
			for (const entry of inFlight.values()) {
				entry.fault = 'outage';
				stats.cutByOutage += 1;
			}
			for (const socket of sockets) socket.destroy();
			await listenerClosed;
			await sleep(ms);
			if (!closed) await listen();
			down = false;
		},
		async close() {
			closed = true;
			for (const socket of sockets) socket.destroy();
			if (!down) await closeListener();
			agent.destroy();
		},
	};
}

module.exports = { startFaultProxy, isRecordCall };
