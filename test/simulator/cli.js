#!/usr/bin/env node
'use strict';

/**
 * Runs the simulator from the command line and prints one JSON line when ready:
 *   {"url":...,"clientId":...,"clientSecret":...,"signingSecret":...}
 * Flags override environment variables (see README.md). Stops on SIGINT/SIGTERM.
 */

const { parseArgs } = require('node:util');
const { startSimulator, DEFAULT_SIGNING_SECRET, DEFAULT_CLIENTS } = require('./index');

const FLAGS = {
	host: { env: 'SIM_HOST', fallback: '127.0.0.1' },
	port: { env: 'SIM_PORT', fallback: '3999' },
	'client-id': { env: 'SIM_CLIENT_ID', fallback: DEFAULT_CLIENTS[0].clientId },
	'client-secret': { env: 'SIM_CLIENT_SECRET', fallback: DEFAULT_CLIENTS[0].clientSecret },
	organization: { env: 'SIM_ORGANIZATION', fallback: DEFAULT_CLIENTS[0].organization },
	'signing-secret': { env: 'SIM_SIGNING_SECRET', fallback: DEFAULT_SIGNING_SECRET },
	'rate-limit': { env: 'SIM_RATE_LIMIT', fallback: '60' },
	'rate-window-ms': { env: 'SIM_RATE_WINDOW_MS', fallback: '60000' },
	'rate-limit-response': { env: 'SIM_RATE_LIMIT_RESPONSE', fallback: 'status429' },
	'token-ttl-seconds': { env: 'SIM_TOKEN_TTL_SECONDS', fallback: '43200' },
	'latency-ms': { env: 'SIM_LATENCY_MS', fallback: '0' },
	'settle-after-ms': { env: 'SIM_SETTLE_AFTER_MS', fallback: '2000' },
	'total-as-string': { env: 'SIM_TOTAL_AS_STRING', fallback: 'false' },
};

function readSettings() {
	const { values } = parseArgs({
		options: Object.fromEntries(Object.keys(FLAGS).map((name) => [name, { type: 'string' }])),
	});
	const setting = (name) => values[name] ?? process.env[FLAGS[name].env] ?? FLAGS[name].fallback;
	const integer = (name) => {
		const value = Number(setting(name));
		if (!Number.isInteger(value) || value < 0)
			throw new Error(`--${name} must be a non-negative integer`);
		return value;
	};
	const signingSecret = setting('signing-secret');
	if (!/^([0-9a-fA-F]{2})+$/.test(signingSecret)) throw new Error('--signing-secret must be hex');
	return {
		host: setting('host'),
		port: integer('port'),
		clients: [
			{
				clientId: setting('client-id'),
				clientSecret: setting('client-secret'),
				organization: setting('organization'),
			},
		],
		signingSecret,
		sendRateLimit: { limit: integer('rate-limit'), windowMs: integer('rate-window-ms') },
		rateLimitResponse: setting('rate-limit-response'),
		tokenTtlSeconds: integer('token-ttl-seconds'),
		latencyMs: integer('latency-ms'),
		settleAfterMs: integer('settle-after-ms'),
		totalAsString: setting('total-as-string') === 'true',
	};
}

async function main() {
	const settings = readSettings();
	const sim = await startSimulator(settings);
	const [client] = settings.clients;
	process.stdout.write(
		`${JSON.stringify({
			url: sim.url,
			clientId: client.clientId,
			clientSecret: client.clientSecret,
			signingSecret: sim.signingSecret,
		})}\n`,
	);
	const shutdown = () => {
		sim.stop().then(
			() => process.exit(0),
			() => process.exit(1),
		);
	};
	process.once('SIGINT', shutdown);
	process.once('SIGTERM', shutdown);
}

main().catch((error) => {
	process.stderr.write(`simulator: ${error.message}\n`);
	process.exit(1);
});
