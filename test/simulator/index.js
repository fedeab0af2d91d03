'use strict';

/**
 * Strict simulator of the service (spec: /work/shared/spec/service-interfaces.md), node:http only.
 *
 * Choices where the spec says "not shown" (also listed in README.md):
 * - Token endpoint: client_id/client_secret only from the form body (HTTP Basic is ignored). Checks in
 *   order: content type (400 invalid_request), grant_type (400 invalid_request when missing,
 *   unsupported_grant_type otherwise), client (401 invalid_client, also when missing), scope exactly
 *   `client-read` (400 invalid_scope).
 * - 401 body: {error:'invalid_token', error_description} plus `WWW-Authenticate: Bearer`. The bearer
 *   header wins over the access_token query parameter when both are given.
 * - Routes are matched before authentication: unknown paths are 404 and wrong methods 405, with or
 *   without a token. A trailing slash is optional on every path.
 * - Send: Content-Type must be application/json (else 415, Spring error shape). medium, channel,
 *   contact and text must be strings when present (a number or object is "unreadable", 400 Spring
 *   shape, like an unknown medium). Unknown fields are ignored. metadata must be an object of string
 *   values (else 400 errors array). The shorthand is parsed only for WHATSAPP texts starting with `&((`.
 * - Errors-array responses (send validation, unknown correlation id, metrics parameters) are 400,
 *   except unknown correlation ids and undocumented detail statuses, which are 404.
 * - Rate limit: sliding window per organization over accepted sends only (refused sends do not use
 *   up the window). Retry-After = seconds until the oldest send in the window leaves it (>= 1).
 * - Status transitions: a message is PROCESSING until settleAfterMs after it was received (by the
 *   injected clock) or settleMessages() (with sentForMs, DELIVERED and DELIVERING_FAILED messages are
 *   SENT that long first); then, in this order: SMS medium and contact not starting
 *   with '+' -> FAILED 'Contact is not a phone number'; contact ending 0000 -> FAILED 'Invalid phone
 *   number'; ending 0001 -> DELIVERING_FAILED 'Message could not be delivered'; ending 0002 -> SENT;
 *   otherwise DELIVERED.
 * - Metrics: see metrics.js. Unknown query parameters are ignored; a repeated parameter, `to` before
 *   `from`, or `from` in the future without `to` are parameter errors. Grouped volume responses are
 *   {dataPoints:[{timestamp, value}]} (a guess: the real shape is not shown).
 * - Counters count authenticated calls; unauthenticated calls only count `unauthorized`.
 *   `failedRequests` counts calls of the FAILED details endpoint.
 * - The requests log and latencyMs cover the service API only, not the /__sim/ admin routes.
 */

const http = require('node:http');
const crypto = require('node:crypto');
const { parseTemplateShorthand, TEMPLATE_SHORTHAND_PREFIX } = require('./shorthand');
const { METRIC_ENDPOINTS, evaluateMetric } = require('./metrics');

const DEFAULT_SIGNING_SECRET = '3f1c9a7be24d5086f7a3c1e9b0d2486a5ce7f3019b8d6a24e5c07f9132ab4d6e';
const DEFAULT_CLIENTS = [
	{ clientId: 'sim-client-id', clientSecret: 'sim-client-secret', organization: 'org-1' },
];
const SEND_MEDIUMS = ['MESSAGEBIRD', 'TWILIO', 'WHATSAPP'];
const SMS_MEDIUMS = ['MESSAGEBIRD', 'TWILIO'];
const MESSAGE_STATUSES = ['PROCESSING', 'FAILED', 'SENT', 'DELIVERED', 'DELIVERING_FAILED'];
const MAX_BODY_BYTES = 1024 * 1024;

function signBody(secretHex, body) {
	return crypto.createHmac('sha256', Buffer.from(secretHex, 'hex')).update(body).digest('hex');
}

function zeroCounters() {
	return {
		tokenRequests: 0,
		tokensIssued: 0,
		tokenRequestsRefused: 0,
		sendsAccepted: 0,
		sendsRefusedRateLimit: 0,
		sendsRefusedValidation: 0,
		unauthorized: 0,
		statusRequests: 0,
		failedRequests: 0,
		metricRequests: 0,
	};
}

function finalStatusOf(message) {
	const { medium, contact } = message.body;
	if (SMS_MEDIUMS.includes(medium) && !contact.startsWith('+')) {
		return { status: 'FAILED', reason: 'Contact is not a phone number' };
	}
	if (contact.endsWith('0000')) return { status: 'FAILED', reason: 'Invalid phone number' };
	if (contact.endsWith('0001')) {
		return { status: 'DELIVERING_FAILED', reason: 'Message could not be delivered' };
	}
	if (contact.endsWith('0002')) return { status: 'SENT' };
	return { status: 'DELIVERED' };
}

function settle(message) {
	const { status, reason } = finalStatusOf(message);
	message.status = status;
	if (reason !== undefined) message.reason = reason;
}

/** Statuses the provider reports after handing the message over (SENT comes first when stepped). */
const AFTER_SENT_STATUSES = ['DELIVERED', 'DELIVERING_FAILED'];

function mediaTypeOf(req) {
	return (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
}

function readBody(req) {
	return new Promise((resolve, reject) => {
		const chunks = [];
		let size = 0;
		req.on('data', (chunk) => {
			size += chunk.length;
			if (size <= MAX_BODY_BYTES) chunks.push(chunk);
		});
		req.on('end', () => resolve(size > MAX_BODY_BYTES ? null : Buffer.concat(chunks)));
		req.on('error', reject);
	});
}

function queryToObject(searchParams) {
	const query = {};
	for (const name of new Set(searchParams.keys())) {
		const values = searchParams.getAll(name);
		query[name] = values.length === 1 ? values[0] : values;
	}
	return query;
}

function parseJson(text) {
	try {
		return { ok: true, value: JSON.parse(text) };
	} catch (error) {
		return { ok: false, error };
	}
}

function isPlainObject(value) {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Posts `body` to `url` like the service calls a CRM endpoint: JSON, signed with X-Service-Signature. */
async function deliverSigned({ url, body, secret, signature, headers = {} }) {
	const rawBody = typeof body === 'string' ? body : JSON.stringify(body);
	const response = await fetch(url, {
		method: 'POST',
		headers: {
			'content-type': 'application/json',
			accept: 'application/json',
			'X-Service-Signature': signature ?? signBody(secret, rawBody),
			...headers,
		},
		body: rawBody,
	});
	const text = await response.text();
	const parsed = text === '' ? { ok: true, value: null } : parseJson(text);
	return {
		status: response.status,
		headers: Object.fromEntries(response.headers.entries()),
		body: parsed.ok ? parsed.value : text,
	};
}

async function startSimulator(userOptions = {}) {
	const options = {
		host: '127.0.0.1',
		port: 0,
		clients: DEFAULT_CLIENTS,
		tokenTtlSeconds: 43200,
		sendRateLimit: { limit: 60, windowMs: 60_000 },
		rateLimitResponse: 'status429',
		latencyMs: 0,
		now: () => Date.now(),
		signingSecret: DEFAULT_SIGNING_SECRET,
		settleAfterMs: 2000,
		sentForMs: 0,
		totalAsString: false,
		...userOptions,
	};
	if (!['status429', 'errors400'].includes(options.rateLimitResponse)) {
		throw new Error(
			`rateLimitResponse must be status429 or errors400, got ${options.rateLimitResponse}`,
		);
	}
	const now = () => options.now();
	const counters = zeroCounters();
	const tokens = new Map(); // access token -> { organization, expiresAt }
	const messages = [];
	const requests = [];
	const acceptedSendTimes = new Map(); // organization -> timestamps of accepted sends in the window

	/**
	 * PROCESSING until settleAfterMs after receipt; with sentForMs, a message that is delivered (or
	 * fails delivery) is SENT for that long before it reaches its final status.
	 */
	function settleDueMessages() {
		const settledAt = now() - options.settleAfterMs;
		for (const message of messages) {
			if (message.status === 'PROCESSING' && message.receivedAt <= settledAt) {
				const { status } = finalStatusOf(message);
				if (options.sentForMs > 0 && AFTER_SENT_STATUSES.includes(status)) {
					message.status = 'SENT';
					message.sentUntil = message.receivedAt + options.settleAfterMs + options.sentForMs;
				} else {
					settle(message);
				}
			}
			if (message.sentUntil !== undefined && message.sentUntil <= now()) {
				delete message.sentUntil;
				settle(message);
			}
		}
	}

	function settleMessages() {
		let settled = 0;
		for (const message of messages) {
			if (message.status === 'PROCESSING' || message.sentUntil !== undefined) {
				delete message.sentUntil;
				settle(message);
				settled += 1;
			}
		}
		return settled;
	}

	function expireAllTokens() {
		const expired = tokens.size;
		tokens.clear();
		return expired;
	}

	function resetCounters() {
		Object.assign(counters, zeroCounters());
		requests.length = 0;
	}

	// ---- service API ----

	function springError(status, error, message, path) {
		return {
			status,
			body: { timestamp: new Date(now()).toISOString(), path, status, error, message },
		};
	}

	function issueToken(req, rawBody) {
		counters.tokenRequests += 1;
		const refuse = (status, error, description) => {
			counters.tokenRequestsRefused += 1;
			return { status, body: { error, error_description: description } };
		};
		if (mediaTypeOf(req) !== 'application/x-www-form-urlencoded') {
			return refuse(
				400,
				'invalid_request',
				'Content-Type must be application/x-www-form-urlencoded',
			);
		}
		const form = new URLSearchParams(rawBody.toString('utf8'));
		const grantType = form.get('grant_type');
		if (!grantType) return refuse(400, 'invalid_request', 'Missing grant_type');
		if (grantType !== 'client_credentials') {
			return refuse(400, 'unsupported_grant_type', `Unsupported grant type: ${grantType}`);
		}
		const client = options.clients.find(
			(candidate) =>
				candidate.clientId === form.get('client_id') &&
				candidate.clientSecret === form.get('client_secret'),
		);
		if (!client) return refuse(401, 'invalid_client', 'Bad client credentials');
		if (form.get('scope') !== 'client-read') {
			return refuse(400, 'invalid_scope', `Invalid scope: ${form.get('scope') ?? '(none)'}`);
		}
		const accessToken = crypto.randomBytes(24).toString('base64url');
		tokens.set(accessToken, {
			organization: client.organization,
			expiresAt: now() + options.tokenTtlSeconds * 1000,
		});
		counters.tokensIssued += 1;
		return {
			status: 200,
			body: {
				token_type: 'bearer',
				access_token: accessToken,
				expires_in: options.tokenTtlSeconds,
			},
		};
	}

	/** Returns the caller's organization, or undefined when the token is missing, unknown or expired. */
	function authenticate(req, searchParams) {
		const bearer = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
		const accessToken = bearer ? bearer[1] : searchParams.get('access_token');
		const grant = accessToken ? tokens.get(accessToken) : undefined;
		if (!grant) return undefined;
		if (now() >= grant.expiresAt) {
			tokens.delete(accessToken);
			return undefined;
		}
		return grant.organization;
	}

	function validateSend(body, path) {
		const unreadable = (message) => springError(400, 'Bad Request', message, path);
		if (!isPlainObject(body))
			return unreadable('JSON parse error: request body must be a JSON object');
		for (const field of ['medium', 'channel', 'contact', 'text']) {
			const value = body[field];
			if (value !== undefined && value !== null && typeof value !== 'string') {
				return unreadable(`JSON parse error: ${field} must be a string`);
			}
		}
		if (body.medium !== undefined && body.medium !== null && !SEND_MEDIUMS.includes(body.medium)) {
			return unreadable(
				`JSON parse error: Cannot deserialize value of type Medium from String "${body.medium}": not one of the values accepted for Enum class: [${SEND_MEDIUMS.join(', ')}]`,
			);
		}
		const blank = (value) => typeof value !== 'string' || value.trim() === '';
		const errors = [];
		if (body.medium === undefined || body.medium === null) errors.push('medium: must not be null');
		if (blank(body.channel)) errors.push('channel: must not be blank');
		if (blank(body.contact)) errors.push('contactReference: must not be blank');
		if (blank(body.text)) errors.push('text: must not be blank');
		if (
			body.metadata !== undefined &&
			body.metadata !== null &&
			!(
				isPlainObject(body.metadata) &&
				Object.values(body.metadata).every((v) => typeof v === 'string')
			)
		) {
			errors.push('metadata: must be an object with string values');
		}
		let template;
		if (
			errors.length === 0 &&
			body.medium === 'WHATSAPP' &&
			body.text.startsWith(TEMPLATE_SHORTHAND_PREFIX)
		) {
			try {
				template = parseTemplateShorthand(body.text);
			} catch (error) {
				errors.push(`text: malformed template shorthand: ${error.message}`);
			}
		}
		if (errors.length > 0) return { status: 400, body: { errors } };
		return { template };
	}

	/** Sliding window: returns undefined when the send may go, else the refusal response. */
	function checkRateLimit(organization) {
		const { limit, windowMs } = options.sendRateLimit;
		const windowStart = now() - windowMs;
		const recent = (acceptedSendTimes.get(organization) ?? []).filter((at) => at > windowStart);
		acceptedSendTimes.set(organization, recent);
		if (recent.length < limit) return undefined;
		const message = `Rate limit exceeded: at most ${limit} messages per ${windowMs} ms per organization`;
		if (options.rateLimitResponse === 'errors400')
			return { status: 400, body: { errors: [message] } };
		const retryAfterSeconds = Math.max(1, Math.ceil((recent[0] + windowMs - now()) / 1000));
		return {
			status: 429,
			headers: { 'Retry-After': String(retryAfterSeconds) },
			body: { errors: [`${message}; retry after ${retryAfterSeconds} s`] },
		};
	}

	function sendMessage(req, rawBody, organization, path) {
		const refuseInvalid = (response) => {
			counters.sendsRefusedValidation += 1;
			return response;
		};
		if (mediaTypeOf(req) !== 'application/json') {
			return refuseInvalid(
				springError(
					415,
					'Unsupported Media Type',
					`Content type '${req.headers['content-type'] ?? ''}' not supported`,
					path,
				),
			);
		}
		const parsed = parseJson(rawBody.toString('utf8'));
		if (!parsed.ok) {
			return refuseInvalid(
				springError(400, 'Bad Request', `JSON parse error: ${parsed.error.message}`, path),
			);
		}
		const validation = validateSend(parsed.value, path);
		if (validation.status !== undefined) return refuseInvalid(validation);
		const refusal = checkRateLimit(organization);
		if (refusal) {
			counters.sendsRefusedRateLimit += 1;
			return refusal;
		}
		acceptedSendTimes.get(organization).push(now());
		const message = {
			correlationId: crypto.randomUUID(),
			organization,
			body: parsed.value,
			receivedAt: now(),
			status: 'PROCESSING',
		};
		if (validation.template) message.template = validation.template;
		messages.push(message);
		counters.sendsAccepted += 1;
		return { status: 200, body: { correlationId: message.correlationId } };
	}

	function messagesOf(correlationId, organization) {
		settleDueMessages();
		return messages.filter(
			(message) => message.correlationId === correlationId && message.organization === organization,
		);
	}

	const notFound = (correlationId) => ({
		status: 404,
		body: { errors: [`No proactive messages found for correlationId ${correlationId}`] },
	});

	function statusOverview(correlationId, organization) {
		counters.statusRequests += 1;
		const found = messagesOf(correlationId, organization);
		if (found.length === 0) return notFound(correlationId);
		const statuses = Object.fromEntries(MESSAGE_STATUSES.map((status) => [status, 0]));
		for (const message of found) statuses[message.status] += 1;
		const total = options.totalAsString ? String(found.length) : found.length;
		return { status: 200, body: { correlationId, total, statuses } };
	}

	function statusDetails(correlationId, statusSegment, organization) {
		counters.failedRequests += 1;
		const found = messagesOf(correlationId, organization);
		if (found.length === 0) return notFound(correlationId);
		if (statusSegment !== 'FAILED') {
			return {
				status: 404,
				body: { errors: [`No status details available for status ${statusSegment}`] },
			};
		}
		return {
			status: 200,
			body: found
				.filter((message) => message.status === 'FAILED')
				.map((message) => ({
					status: message.status,
					contact: message.body.contact,
					reason: message.reason,
				})),
		};
	}

	/** Route table: returns { methods, handle(ctx) } for a known path, else undefined. */
	function routeOf(path) {
		if (path === '/oauth2/token') {
			return { methods: ['POST'], public: true, handle: (ctx) => issueToken(ctx.req, ctx.rawBody) };
		}
		if (path === '/proactive-messaging') {
			return {
				methods: ['POST'],
				handle: (ctx) => sendMessage(ctx.req, ctx.rawBody, ctx.organization, ctx.path),
			};
		}
		const status = /^\/proactive-messaging\/([^/]+)$/.exec(path);
		if (status) {
			const correlationId = decodeURIComponent(status[1]);
			return { methods: ['GET'], handle: (ctx) => statusOverview(correlationId, ctx.organization) };
		}
		const details = /^\/proactive-messaging\/([^/]+)\/([^/]+)$/.exec(path);
		if (details) {
			const [correlationId, statusSegment] = details.slice(1).map(decodeURIComponent);
			return {
				methods: ['GET'],
				handle: (ctx) => statusDetails(correlationId, statusSegment, ctx.organization),
			};
		}
		if (METRIC_ENDPOINTS[path]) {
			return {
				methods: ['GET'],
				handle: (ctx) => {
					counters.metricRequests += 1;
					return evaluateMetric(path, ctx.searchParams, now(), ctx.path);
				},
			};
		}
		return undefined;
	}

	function handleServiceRequest(req, rawBody, url, path) {
		const requestPath = url.pathname; // error bodies name the path as sent
		let route;
		try {
			route = routeOf(path);
		} catch {
			return springError(400, 'Bad Request', 'Malformed path', requestPath); // bad percent-encoding
		}
		if (!route) return springError(404, 'Not Found', 'No message available', requestPath);
		if (!route.methods.includes(req.method)) {
			const response = springError(
				405,
				'Method Not Allowed',
				`Request method '${req.method}' not supported`,
				requestPath,
			);
			return { ...response, headers: { Allow: route.methods.join(', ') } };
		}
		if (rawBody === null)
			return springError(413, 'Payload Too Large', 'Request body too large', requestPath);
		if (route.public) return route.handle({ req, rawBody, path: requestPath });
		const organization = authenticate(req, url.searchParams);
		if (!organization) {
			counters.unauthorized += 1;
			return {
				status: 401,
				headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' },
				body: {
					error: 'invalid_token',
					error_description: 'Access token is missing, invalid or expired',
				},
			};
		}
		const fault = takeFault(req, path);
		if (fault && !fault.afterHandling) return faultAnswer(fault);
		const answer = route.handle({
			req,
			rawBody,
			path: requestPath,
			organization,
			searchParams: url.searchParams,
		});
		return fault ? faultAnswer(fault, answer) : answer;
	}

	// ---- admin routes (/__sim/) ----

	function settledMessages() {
		settleDueMessages();
		return messages;
	}

	async function handleAdminRequest(req, rawBody, path) {
		const admin = {
			'GET /__sim/counters': () => ({ status: 200, body: counters }),
			'GET /__sim/messages': () => ({ status: 200, body: settledMessages() }),
			'POST /__sim/expire-tokens': () => ({ status: 200, body: { expired: expireAllTokens() } }),
			'POST /__sim/settle': () => ({ status: 200, body: { settled: settleMessages() } }),
			'POST /__sim/reset-counters': () => {
				resetCounters();
				return { status: 200, body: counters };
			},
			'POST /__sim/crm/deliver': () => deliverFromAdmin(rawBody),
		}[`${req.method} ${path}`];
		if (!admin) return { status: 404, body: { errors: [`No admin route ${req.method} ${path}`] } };
		return admin();
	}

	async function deliverFromAdmin(rawBody) {
		const parsed = parseJson(rawBody?.toString('utf8') ?? '');
		if (!parsed.ok || !isPlainObject(parsed.value) || typeof parsed.value.url !== 'string') {
			return {
				status: 400,
				body: { errors: ['Expected JSON {url, body, secret?, signature?, headers?}'] },
			};
		}
		try {
			return { status: 200, body: await deliverCrm(parsed.value) };
		} catch (error) {
			return {
				status: 502,
				body: { errors: [`Delivery failed: ${error.cause?.message ?? error.message}`] },
			};
		}
	}

	function deliverCrm(delivery) {
		return deliverSigned({ ...delivery, secret: delivery.secret ?? options.signingSecret });
	}

	// ---- HTTP plumbing ----

	function writeResponse(res, { status, headers = {}, body }) {
		if (body === undefined) {
			res.writeHead(status, headers).end();
			return;
		}
		const payload = JSON.stringify(body);
		res.writeHead(status, {
			...headers,
			'Content-Type': 'application/json',
			'Content-Length': Buffer.byteLength(payload),
		});
		res.end(payload);
	}

	function logBody(req, rawBody) {
		if (!rawBody || rawBody.length === 0) return undefined;
		const text = rawBody.toString('utf8');
		const mediaType = mediaTypeOf(req);
		if (mediaType === 'application/x-www-form-urlencoded')
			return Object.fromEntries(new URLSearchParams(text));
		if (mediaType === 'application/json') {
			const parsed = parseJson(text);
			if (parsed.ok) return parsed.value;
		}
		return text;
	}

	// ---- fault injection (tests only; off unless a test asks) ----

	const faults = [];

	/**
	 * The next `times` authenticated requests matching method and path get `response` instead of the
	 * service's answer: for error shapes and outages the node cannot provoke itself. With
	 * `afterHandling` the service handles the request first (a send queues its message), so the
	 * fault plays an answer lost after the fact. `resetConnection` closes the connection without an
	 * answer; `delayMs` holds the answer (the fault's, else the service's) back that long.
	 */
	function injectFault({
		method,
		path,
		response,
		times = 1,
		afterHandling = false,
		resetConnection = false,
		delayMs = 0,
	}) {
		faults.push({
			method,
			path: path.replace(/\/$/, ''),
			response,
			afterHandling,
			resetConnection,
			delayMs,
			remaining: times,
		});
	}

	function faultAnswer(fault, serviceAnswer) {
		if (fault.resetConnection) return { status: 0, resetConnection: true };
		const answer = fault.response ?? serviceAnswer;
		return fault.delayMs > 0 ? { ...answer, delayMs: fault.delayMs } : answer;
	}

	function takeFault(req, path) {
		const fault = faults.find((f) => f.remaining > 0 && f.method === req.method && f.path === path);
		if (!fault) return undefined;
		fault.remaining -= 1;
		return fault;
	}

	async function onRequest(req, res) {
		try {
			const rawBody = await readBody(req);
			const url = new URL(req.url, 'http://simulator.invalid');
			const path = url.pathname.length > 1 ? url.pathname.replace(/\/$/, '') : url.pathname;
			if (path.startsWith('/__sim/')) {
				writeResponse(res, await handleAdminRequest(req, rawBody, path));
				return;
			}
			const response = handleServiceRequest(req, rawBody, url, path);
			requests.push({
				method: req.method,
				path: url.pathname,
				query: queryToObject(url.searchParams),
				headers: req.headers,
				body: logBody(req, rawBody),
				status: response.status,
				at: now(),
			});
			if (response.resetConnection) {
				req.socket.destroy();
				return;
			}
			if (options.latencyMs > 0) await sleep(options.latencyMs);
			if (response.delayMs > 0) await sleep(response.delayMs);
			writeResponse(res, response);
		} catch (error) {
			writeResponse(res, { status: 500, body: { errors: [`Simulator error: ${error.message}`] } });
		}
	}

	const server = http.createServer((req, res) => void onRequest(req, res));
	await new Promise((resolve, reject) => {
		server.once('error', reject);
		server.listen(options.port, options.host, () => {
			server.off('error', reject);
			resolve();
		});
	});
	const { port } = server.address();
	const hostForUrl = options.host.includes(':') ? `[${options.host}]` : options.host;

	return {
		url: `http://${hostForUrl}:${port}`,
		port,
		options,
		counters,
		requests,
		get messages() {
			return settledMessages();
		},
		signingSecret: options.signingSecret,
		expireAllTokens,
		resetCounters,
		settleMessages,
		deliverCrm,
		injectFault,
		stop: () =>
			new Promise((resolve, reject) => {
				server.close((error) => (error ? reject(error) : resolve()));
				server.closeAllConnections();
			}),
	};
}

module.exports = {
	startSimulator,
	signBody,
	deliverSigned,
	DEFAULT_SIGNING_SECRET,
	DEFAULT_CLIENTS,
};
