'use strict';
/**
 * Helpers of the end-to-end suite (plain JS: they use Node's crypto and file system, which the
 * community-node lint rules keep out of .ts files).
 */
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { request } = require('undici');
const rt = require('../../scripts/lib/n8n-runtime');
const { writeBackRequest } = require('../simulator/crmRequests');

/** HMAC-SHA256 over the raw body, keyed with the hex-decoded secret, hex-encoded (spec section 5, interface C). */
function sign(secretHex, rawBody) {
	return crypto.createHmac('sha256', Buffer.from(secretHex, 'hex')).update(rawBody).digest('hex');
}

/**
 * POSTs a JSON body the way the service calls a CRM endpoint, with undici.
 * `signature`: 'valid' (default), 'none' (header left out), or a literal header value.
 * `secret`: the hex secret for a valid signature. `tamper`: change the body after signing.
 */
async function postSigned(
	url,
	body,
	{ secret, signature = 'valid', tamper, contentType = 'application/json' } = {},
) {
	const rawBody = typeof body === 'string' ? body : JSON.stringify(body);
	const headers = { 'content-type': contentType, accept: 'application/json' };
	if (signature === 'valid') headers['x-service-signature'] = sign(secret, rawBody);
	else if (signature !== 'none') headers['x-service-signature'] = signature;
	const sent = tamper ? tamper(rawBody) : rawBody;
	const res = await request(url, { method: 'POST', headers, body: sent });
	const text = await res.body.text();
	let json;
	try {
		json = text === '' ? undefined : JSON.parse(text);
	} catch {
		json = undefined;
	}
	return { status: res.statusCode, headers: res.headers, text, json };
}

/** Polls `probe` until it returns a truthy value; rejects with `what` after `timeoutMs`. */
async function waitFor(probe, { what = 'condition', timeoutMs = 60000, intervalMs = 250 } = {}) {
	const started = Date.now();
	let last;
	for (;;) {
		last = await probe();
		if (last) return last;
		if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
		await rt.sleep(intervalMs);
	}
}

/**
 * A fresh n8n user folder for this run, under the git-ignored .n8n-local/. The folder of the last
 * run stays for inspection (n8n.log, database); folders of finished earlier runs are removed.
 */
function freshStateDir() {
	const root = path.join(rt.REPO_ROOT, '.n8n-local');
	fs.mkdirSync(root, { recursive: true });
	for (const name of fs.readdirSync(root)) {
		const match = /^e2e-(\d+)$/.exec(name);
		if (match && !rt.processIsAlive(Number(match[1])))
			fs.rmSync(path.join(root, name), { recursive: true, force: true });
	}
	const dir = path.join(root, `e2e-${process.pid}`);
	fs.rmSync(dir, { recursive: true, force: true });
	fs.mkdirSync(dir, { recursive: true });
	return dir;
}

function readFixture(name) {
	return JSON.parse(fs.readFileSync(path.join(__dirname, 'fixtures', name), 'utf8'));
}

/** Printed by the suite: the n8n under test. */
function report(line) {
	process.stdout.write(`${line}\n`);
}

/**
 * A resolved conversation as the service writes it back (spec 2.11). `data` fields in `extra`
 * are added to the payload's data (a fixture workflow reads e.g. `failThisRun` from it).
 */
function writeBackPayload(idempotencyKey, conversationId, extra = {}) {
	return writeBackRequest({ idempotencyKey, conversationId, extra });
}

/**
 * `npm run call -- <args>` as `npm start` prints it, against the stack whose user folder is
 * `stateDir`. Resolves with what it printed: {url, status, body (parsed JSON, or null)}.
 */
async function npmRunCall(stateDir, ...args) {
	const { stdout } = await rt.run('npm', ['run', '--silent', 'call', '--', ...args], {
		env: { ...process.env, CONTACT_CENTER_STATE_DIR: stateDir },
	});
	const [request, status, ...body] = stdout.trim().split('\n');
	return {
		url: request.replace(/^POST /, ''),
		status: Number(status.split(' ')[0]),
		body: body.length > 0 ? JSON.parse(body.join('\n')) : null,
	};
}

/**
 * Another sender of the organization: sends one message to each contact straight to the
 * simulator with the simulator's first client, as a sender outside n8n uses the shared rate limit.
 */
async function sendAsOtherSender(sim, contacts, metadata) {
	const client = sim.options.clients[0];
	const token = await fetch(`${sim.url}/oauth2/token`, {
		method: 'POST',
		headers: { 'content-type': 'application/x-www-form-urlencoded' },
		body: new URLSearchParams({
			grant_type: 'client_credentials',
			client_id: client.clientId,
			client_secret: client.clientSecret,
			scope: 'client-read',
		}).toString(),
	}).then(async (res) => (await res.json()).access_token);
	for (const contact of contacts) {
		const res = await fetch(`${sim.url}/proactive-messaging`, {
			method: 'POST',
			headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
			body: JSON.stringify({
				medium: 'TWILIO',
				channel: 'Other sender',
				contact,
				text: 'another sender',
				...(metadata ? { metadata } : {}),
			}),
		});
		if (res.status !== 200)
			throw new Error(`the other sender got ${res.status}: ${await res.text()}`);
	}
}

/**
 * A local HTTP server that answers every request with `{"echo":true}` and keeps each request's
 * headers: a server of a workflow author's choice, to see what an n8n node sends it.
 * Resolves with {url, requests, close()}.
 */
async function startEchoServer() {
	const http = require('node:http');
	const requests = [];
	const server = http.createServer((req, res) => {
		requests.push(req.headers);
		res.setHeader('content-type', 'application/json');
		res.end('{"echo":true}');
	});
	await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		url: `http://127.0.0.1:${server.address().port}/`,
		requests,
		close: () => new Promise((resolve) => server.close(resolve)),
	};
}

/**
 * A Member user of the instance, invited by the owner (`instance.cookie`) and signed up, with an
 * API key of its own (every scope a Member may grant, no expiry). Resolves to `{ cookie, apiKey }`.
 */
async function createMemberWithKey(
	instance,
	{ email, firstName = 'Record', lastName = 'Keeper', password = 'Record-keeper-1' },
) {
	const invited = await rt.restCall(instance, 'POST', '/invitations', {
		cookie: instance.cookie,
		body: [{ email, role: 'global:member' }],
	});
	if (invited.status !== 200)
		throw new Error(`inviting ${email} failed: ${invited.status} ${invited.text.slice(0, 300)}`);
	const invite = (invited.json.data ?? invited.json)[0].user;
	const token = new URL(invite.inviteAcceptUrl).searchParams.get('token');
	const accepted = await rt.restCall(instance, 'POST', '/invitations/accept', {
		body: { token, firstName, lastName, password },
	});
	if (accepted.status !== 200)
		throw new Error(
			`${email} could not sign up: ${accepted.status} ${accepted.text.slice(0, 300)}`,
		);
	const { rawApiKey } = await rt.createApiKey(instance, accepted.cookie, {
		labelPrefix: 'member',
		expiresAt: null,
	});
	return { cookie: accepted.cookie, apiKey: rawApiKey };
}

/**
 * The error of an execution that is one of the trigger's reports (failed at the trigger, no other
 * node ran, "… refused (401) since …", or write backs "… held as done only in the memory …"),
 * else undefined. Needs the execution's data.
 */
function triggerReportOf(execution) {
	const resultData = execution.data?.resultData ?? {};
	const ran = Object.keys(resultData.runData ?? {});
	const error = resultData.error;
	return execution.status === 'error' &&
		ran.length === 1 &&
		/ refused \(\d{3}\) since | held as done only in the memory /.test(error?.message ?? '')
		? error
		: undefined;
}

/**
 * A copy of a trigger workflow fixture under another id, name and webhook id, whose settings name
 * `errorWorkflowId` as its Error Workflow (fixtures/error-workflow.json: Error Trigger -> a node).
 */
function watchedCopy(workflow, { id, name, webhookId }, errorWorkflowId) {
	return {
		...workflow,
		id,
		name,
		nodes: workflow.nodes.map((node) => (node.webhookId ? { ...node, webhookId } : node)),
		settings: { ...(workflow.settings ?? {}), errorWorkflow: errorWorkflowId },
	};
}

/** The error messages an Error Workflow received (its Error Trigger's output), oldest first. */
async function errorWorkflowMessages(instance, errorWorkflowId) {
	return (await rt.listExecutions(instance, { workflowId: errorWorkflowId, includeData: true }))
		.map(
			(e) =>
				e.data?.resultData?.runData?.['Error Trigger']?.[0]?.data?.main?.[0]?.[0]?.json?.execution
					?.error?.message,
		)
		.filter((message) => message !== undefined)
		.reverse();
}

/** The data table the write-back-slow.json fixture's workflow inserts one row per run into. */
const SLOW_WRITE_BACK_TABLE = {
	name: 'e2e_queue_writes',
	columns: [
		{ name: 'idempotencyKey', type: 'string' },
		{ name: 'conversationId', type: 'string' },
		{ name: 'executionId', type: 'string' },
	],
};

/** Ada, as the stand-in CRM of examples/3-crm-lookup.json holds her: what a lookup of her email answers. */
const EXAMPLE_3_ADA = Object.freeze({
	email: 'ada@example.com',
	firstName: 'Ada',
	lastName: 'Lovelace',
	customerId: 'CUST-1815',
	tier: 'gold',
	phone: '+441632960815',
});

module.exports = {
	EXAMPLE_3_ADA,
	SLOW_WRITE_BACK_TABLE,
	errorWorkflowMessages,
	triggerReportOf,
	watchedCopy,
	createMemberWithKey,
	npmRunCall,
	startEchoServer,
	sendAsOtherSender,
	sign,
	postSigned,
	waitFor,
	freshStateDir,
	readFixture,
	report,
	writeBackPayload,
};
