#!/usr/bin/env node
'use strict';
/**
 * `npm start`: a real n8n with this package, the service's simulator and the example workflows.
 *
 * Builds the package, installs Node 24 + n8n 2.41.1 once (cached outside the clone), starts the
 * simulator and n8n on 127.0.0.1, imports a credential pointing at the simulator (or at the real
 * service, see below) and the example workflows, activates the trigger workflows, and prints the
 * editor URL, the owner login, the webhook URLs, the signing secret, the record's API key (scoped
 * to data tables, as the README recommends; the scripts' own key with every scope is deleted once
 * set up) and the `npm run call` lines
 * that play the service against the webhooks (scripts/call.js). Ctrl-C stops everything.
 *
 * Environment (all optional):
 *   CONTACT_CENTER_BASE_URL, CONTACT_CENTER_CLIENT_ID, CONTACT_CENTER_CLIENT_SECRET
 *       use the real service for the action node instead of the simulator (all three together)
 *   CONTACT_CENTER_SIGNING_SECRET   hex secret for all three trigger endpoints (default: the simulator's)
 *   CONTACT_CENTER_LOOKUP_SECRET, CONTACT_CENTER_WRITE_BACK_SECRET, CONTACT_CENTER_NOTIFICATION_SECRET
 *       per-endpoint secrets (override CONTACT_CENTER_SIGNING_SECRET)
 *   CONTACT_CENTER_PUBLIC_URL   public HTTPS base URL that forwards to n8n (tunnel, reverse proxy): the
 *       webhook URLs printed and registered use it, so the real service can call them
 *   CONTACT_CENTER_N8N_PORT (5678), CONTACT_CENTER_SIMULATOR_PORT (5680)
 *   CONTACT_CENTER_OWNER_EMAIL, CONTACT_CENTER_OWNER_PASSWORD   the n8n owner login
 *   CONTACT_CENTER_STATE_DIR (.n8n-local/start)   n8n's user folder; kept between runs
 *   CONTACT_CENTER_RUNTIME_CACHE (~/.cache/n8n-nodes-contact-center)   where Node 24 and n8n are installed
 */
require('./check-install').exitUnlessInstalled();

const setup = require('./lib/local-setup');
const { ENDPOINTS } = require('./call');

const log = (line) => process.stderr.write(`[start] ${line}\n`);

function settings(env = process.env) {
	const real = [
		'CONTACT_CENTER_BASE_URL',
		'CONTACT_CENTER_CLIENT_ID',
		'CONTACT_CENTER_CLIENT_SECRET',
	];
	const given = real.filter((k) => env[k]);
	if (given.length > 0 && given.length < real.length) {
		throw new Error(
			`set all of ${real.join(', ')} to use the real service (missing: ${real.filter((k) => !env[k]).join(', ')})`,
		);
	}
	const secret = (name) => env[name] || env.CONTACT_CENTER_SIGNING_SECRET || undefined;
	for (const name of [
		'CONTACT_CENTER_SIGNING_SECRET',
		'CONTACT_CENTER_LOOKUP_SECRET',
		'CONTACT_CENTER_WRITE_BACK_SECRET',
		'CONTACT_CENTER_NOTIFICATION_SECRET',
	]) {
		if (env[name] && !/^([0-9a-fA-F]{2})+$/.test(env[name]))
			throw new Error(`${name} must be a hexadecimal string`);
	}
	return {
		service: given.length
			? {
					baseUrl: env.CONTACT_CENTER_BASE_URL.replace(/\/+$/, ''),
					clientId: env.CONTACT_CENTER_CLIENT_ID,
					clientSecret: env.CONTACT_CENTER_CLIENT_SECRET,
				}
			: undefined,
		secrets: {
			lookup: secret('CONTACT_CENTER_LOOKUP_SECRET'),
			writeBack: secret('CONTACT_CENTER_WRITE_BACK_SECRET'),
			notification: secret('CONTACT_CENTER_NOTIFICATION_SECRET'),
		},
		publicUrl: env.CONTACT_CENTER_PUBLIC_URL || undefined,
		n8nPort: Number(env.CONTACT_CENTER_N8N_PORT || 5678),
		simulatorPort: Number(env.CONTACT_CENTER_SIMULATOR_PORT || 5680),
		owner: {
			email: env.CONTACT_CENTER_OWNER_EMAIL || setup.DEFAULT_OWNER.email,
			password: env.CONTACT_CENTER_OWNER_PASSWORD || setup.DEFAULT_OWNER.password,
			firstName: setup.DEFAULT_OWNER.firstName,
			lastName: setup.DEFAULT_OWNER.lastName,
		},
		stateDir: setup.stateDirFrom(env),
	};
}

async function main() {
	const cfg = settings();
	let stack = null;
	let stopping = false;
	const stop = async (code) => {
		if (stopping) return;
		stopping = true;
		log('stopping n8n and the simulator…');
		if (stack) await stack.stop();
		process.exit(code);
	};
	process.on('SIGINT', () => void stop(0));
	process.on('SIGTERM', () => void stop(0));

	const started = Date.now();
	stack = await setup.startStack({
		userFolder: cfg.stateDir,
		n8nPort: cfg.n8nPort,
		simulatorPort: cfg.simulatorPort,
		service: cfg.service,
		secrets: cfg.secrets,
		publicUrl: cfg.publicUrl,
		owner: cfg.owner,
		log,
	});
	if (stopping) return;
	// The key with every scope was for the set-up calls only: what is left is the record's key.
	await setup.dropSetupKeys(stack.instance);
	stack.instance.server.exited.then(({ code, signal }) => {
		if (stopping) return;
		log(
			`n8n exited unexpectedly (${code ?? signal}); see ${stack.instance.server?.logFile ?? 'its log'}`,
		);
		void stop(1);
	});

	const s = stack.summary();
	const lines = [
		'',
		`n8n ${stack.instance.runtime.version} with n8n-nodes-contact-center is running (ready in ${Math.round((Date.now() - started) / 1000)} s).`,
		'',
		`  Editor:          ${s.editorUrl}`,
		`  Owner login:     ${s.owner.email} / ${s.owner.password}`,
		`  Service API:     ${s.serviceUrl}${cfg.service ? ' (real service)' : ' (local simulator)'}`,
		'',
		'  Webhook URLs (paste into the service under Settings -> Integration & APIs -> CRM):',
		...s.webhooks.map((w) => `    ${w.label.padEnd(14)} ${w.url}`),
		'',
		`  Signing secret:  ${s.signingSecretLine}`,
		'',
		'  Created for you:',
		`    an n8n API key "${s.recordCredential.apiKeyLabel}" (Settings -> n8n API), Scopes: Custom, Data tables only`,
		`      (${s.recordCredential.apiKeyScopes.length} scopes), used by the record credential; the key, to paste into a credential of your own:`,
		`      ${s.recordCredential.apiKey}`,
		`    the record credential "${s.recordCredential.name}" (n8n API ${s.recordCredential.apiBaseUrl}, data table ${s.recordCredential.dataTableName})`,
		'',
		'  Example workflows:',
		...s.workflows.map((w) => `    ${w.name}${w.active ? ' (active)' : ''}`),
	];
	const calls = Object.entries(ENDPOINTS).filter(([, e]) =>
		s.webhooks.some((w) => w.endpoint === e.key),
	);
	if (calls.length > 0) {
		lines.push(
			'',
			'  Play the service: a signed sample call to each webhook, from another terminal:',
			...calls.map(([name, e]) => `    ${`npm run call -- ${name}`.padEnd(30)} ${e.sampleAnswer}`),
			"    Each prints n8n's status and body. --body '{...}' sends your own body;",
			'    write-back --key K run twice is answered as a duplicate.',
		);
	}
	lines.push('', 'Press Ctrl-C to stop n8n and the simulator.', '');
	process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((error) => {
	process.stderr.write(`[start] failed: ${error.stack || error.message}\n`);
	process.exit(1);
});
