#!/usr/bin/env node
'use strict';
/**
 * `npm run call -- <lookup | write-back | notification> [options]`: plays the service calling one
 * endpoint of the n8n that `npm start` runs. Posts a sample request of that kind (spec 2.9, 2.11,
 * 2.12) to the webhook URL of the active example workflow, signed in `X-Service-Signature` with the
 * endpoint's signing secret, and prints the status and body n8n answers.
 *
 * Options:
 *   --body JSON | @file   the request body instead of the sample
 *   --key KEY             write back: the idempotency key (default: a new one per call), to see a
 *                         redelivery of the same event answered as a duplicate
 *   --url URL, --secret HEX   another endpoint or secret than the running `npm start`'s
 * Environment: CONTACT_CENTER_STATE_DIR, as for `npm start`.
 */
const fs = require('node:fs');
const { parseArgs } = require('node:util');

const { readEndpoints, stateDirFrom } = require('./lib/local-setup');
const { deliverSigned } = require('../test/simulator');
const {
	lookupRequest,
	notificationRequest,
	writeBackRequest,
} = require('../test/simulator/crmRequests');

/**
 * Command-line names of the endpoints: their keys in the stack's endpoint list, sample bodies and
 * what the example workflow does with the sample (printed by `npm start`).
 */
const ENDPOINTS = {
	lookup: {
		key: 'lookup',
		sample: () => lookupRequest(),
		sampleAnswer: "example 3 answers with Ada's attributes",
	},
	'write-back': {
		key: 'writeBack',
		sample: ({ key }) => writeBackRequest(key ? { idempotencyKey: key } : {}),
		sampleAnswer: 'example 4 stores a resolved conversation',
	},
	notification: {
		key: 'notification',
		sample: () => notificationRequest(),
		sampleAnswer: 'example 5 composes an alert (204, no body)',
	},
};

const USAGE = `usage: npm run call -- <${Object.keys(ENDPOINTS).join(' | ')}> [--body JSON | @file] [--key KEY] [--url URL] [--secret HEX]`;

class UsageError extends Error {}

function readArguments(argv) {
	let parsed;
	try {
		parsed = parseArgs({
			args: argv,
			allowPositionals: true,
			options: {
				body: { type: 'string' },
				key: { type: 'string' },
				url: { type: 'string' },
				secret: { type: 'string' },
			},
		});
	} catch (error) {
		throw new UsageError(`${error.message}\n${USAGE}`);
	}
	const [name, ...rest] = parsed.positionals;
	if (!ENDPOINTS[name] || rest.length > 0) throw new UsageError(USAGE);
	const { secret } = parsed.values;
	if (secret !== undefined && !/^([0-9a-fA-F]{2})+$/.test(secret))
		throw new UsageError('--secret must be a hexadecimal string');
	return { name, ...parsed.values };
}

function readBody(option) {
	const text = option.startsWith('@') ? fs.readFileSync(option.slice(1), 'utf8') : option;
	try {
		return JSON.parse(text);
	} catch (error) {
		throw new UsageError(`--body is not JSON: ${error.message}`);
	}
}

/**
 * The URL and secret to call: the options where given, else what the running stack wrote into
 * its state folder.
 */
function target(args, stateDir) {
	if (args.url && args.secret) return { url: args.url, secret: args.secret };
	const endpoints = readEndpoints(stateDir);
	if (!endpoints) {
		throw new UsageError(
			`No running npm start found (no ${stateDir}/endpoints.json): start it first with npm start, or pass --url and --secret`,
		);
	}
	const hook = endpoints.webhooks.find((w) => w.endpoint === ENDPOINTS[args.name].key);
	if (!hook) {
		throw new UsageError(
			`npm start has no active ${args.name} workflow; active: ${endpoints.webhooks.map((w) => w.endpoint).join(', ') || 'none'}`,
		);
	}
	return { url: args.url ?? hook.url, secret: args.secret ?? hook.secret };
}

/** Calls the endpoint; resolves with {url, status, body} of n8n's answer. */
async function call(argv, env = process.env) {
	const args = readArguments(argv);
	const { url, secret } = target(args, stateDirFrom(env));
	const body = args.body !== undefined ? readBody(args.body) : ENDPOINTS[args.name].sample(args);
	try {
		const answer = await deliverSigned({ url, body, secret });
		return { url, status: answer.status, body: answer.body };
	} catch (error) {
		throw new Error(
			`${url} did not answer (${error.cause?.message ?? error.message}): is npm start still running?`,
		);
	}
}

function formatAnswer({ url, status, body }) {
	return [
		`POST ${url}`,
		`${status}${body === null ? ' (no body)' : ''}`,
		...(body === null ? [] : [typeof body === 'string' ? body : JSON.stringify(body, null, 2)]),
	].join('\n');
}

module.exports = { call, formatAnswer, ENDPOINTS };

if (require.main === module) {
	call(process.argv.slice(2)).then(
		(answer) => process.stdout.write(`${formatAnswer(answer)}\n`),
		(error) => {
			process.stderr.write(`${error.message}\n`);
			process.exit(error instanceof UsageError ? 2 : 1);
		},
	);
}
