'use strict';
/**
 * The whole local stack, shared by `npm start` and the end-to-end suite: the service's simulator,
 * a real n8n with this package, the credentials and example workflows the examples reference, the
 * data table the write back example stores into, the trigger workflows activated.
 */
const fs = require('node:fs');
const path = require('node:path');
const rt = require('./n8n-runtime');

/** Credentials the example workflows reference (by these ids and names). */
const CREDENTIALS = {
	oauth2: {
		id: 'ccExampleOAuth2Api',
		name: 'Contact Center account',
		type: 'contactCenterOAuth2Api',
	},
	lookup: {
		id: 'ccExampleLookupSecret',
		name: 'Contact Center lookup secret',
		type: 'contactCenterSigningSecretApi',
	},
	writeBack: {
		id: 'ccExampleWriteBackSecret',
		name: 'Contact Center write back secret',
		type: 'contactCenterSigningSecretApi',
	},
	notification: {
		id: 'ccExampleNotifySecret',
		name: 'Contact Center notification secret',
		type: 'contactCenterSigningSecretApi',
	},
	record: {
		id: 'ccExampleRecordApi',
		name: 'Contact Center record',
		type: 'contactCenterRecordApi',
	},
};

/** The record credential's data table (the credential's default name). */
const RECORD_TABLE_NAME = 'contact_center_record';

/** The data table example 4 stores conversations into (created by the local run; users create it once). */
const CONVERSATIONS_TABLE = {
	name: 'contact_center_conversations',
	columns: [
		{ name: 'idempotencyKey', type: 'string' },
		{ name: 'eventType', type: 'string' },
		{ name: 'conversationId', type: 'string' },
		{ name: 'currentStatus', type: 'string' },
		{ name: 'previousStatus', type: 'string' },
		{ name: 'statusUpdatedAt', type: 'string' },
		{ name: 'channelName', type: 'string' },
		{ name: 'contact', type: 'string' },
		{ name: 'agentEmail', type: 'string' },
		{ name: 'messageCount', type: 'number' },
		{ name: 'transcript', type: 'string' },
		{ name: 'topics', type: 'string' },
	],
};

const DEFAULT_OWNER = {
	email: 'owner@example.com',
	password: 'ContactCenter-local-1',
	firstName: 'Local',
	lastName: 'Owner',
};

const ENDPOINT_LABELS = { lookup: 'Lookup', writeBack: 'Write back', notification: 'Notification' };

/** n8n's user folder of `npm start` (CONTACT_CENTER_STATE_DIR, relative to the clone). */
function stateDirFrom(env = process.env) {
	return path.resolve(
		rt.REPO_ROOT,
		env.CONTACT_CENTER_STATE_DIR || path.join('.n8n-local', 'start'),
	);
}

/**
 * A running stack's webhooks with their local URLs and secrets, kept in its user folder while it
 * runs, so that `npm run call` can play the service against it.
 */
const endpointsFile = (userFolder) => path.join(path.resolve(userFolder), 'endpoints.json');

function writeEndpoints(userFolder, webhooks, secrets) {
	const endpoints = {
		webhooks: webhooks.map((w) => ({
			endpoint: w.endpoint,
			url: w.localUrl,
			secret: secrets[w.endpoint],
		})),
	};
	fs.writeFileSync(endpointsFile(userFolder), `${JSON.stringify(endpoints, null, 2)}\n`, {
		mode: 0o600,
	});
}

/** What writeEndpoints wrote, or undefined when no stack runs in that folder. */
function readEndpoints(userFolder) {
	try {
		return JSON.parse(fs.readFileSync(endpointsFile(userFolder), 'utf8'));
	} catch (error) {
		if (error.code === 'ENOENT') return undefined;
		throw error;
	}
}

/**
 * Name of the secret field of the signing secret credential, read from the built package, so the
 * import follows whatever the credential calls it. Undefined while the credential does not exist.
 */
function signingSecretField() {
	const file = path.join(
		rt.REPO_ROOT,
		'dist',
		'credentials',
		'ContactCenterSigningSecretApi.credentials.js',
	);
	if (!fs.existsSync(file)) return undefined;
	delete require.cache[require.resolve(file)];
	const mod = require(file);
	const Cls = Object.values(mod).find((v) => typeof v === 'function');
	const props = new Cls().properties ?? [];
	const secret =
		props.find((p) => p.typeOptions?.password) ??
		props.find((p) => /secret/i.test(p.name)) ??
		props[0];
	return secret?.name;
}

/**
 * The credentials to import: OAuth2 (simulator or real service), the three signing secrets and the
 * record credential, whose API key only exists once n8n runs (see connectRecordCredential).
 */
function credentialsFor({ serviceUrl, clientId, clientSecret, secrets }) {
	const list = [
		{ ...CREDENTIALS.oauth2, data: { baseUrl: serviceUrl, clientId, clientSecret } },
		{
			...CREDENTIALS.record,
			data: {
				baseUrl: 'http://127.0.0.1:5678/api/v1',
				apiKey: 'set-once-n8n-runs',
				dataTableName: RECORD_TABLE_NAME,
			},
		},
	];
	const field = signingSecretField();
	if (field) {
		for (const key of ['lookup', 'writeBack', 'notification']) {
			list.push({ ...CREDENTIALS[key], data: { [field]: secrets[key] } });
		}
	}
	return list;
}

function endpointOf(workflow) {
	const trigger = rt.triggerNodes(workflow)[0];
	return trigger?.parameters?.endpoint ?? (trigger ? 'lookup' : undefined);
}

/** The label of the record's API key, as the README's steps suggest it (Settings -> n8n API). */
const RECORD_KEY_LABEL = 'contact center record';

/**
 * The scopes that n8n's Create API key dialog ticks for "Data tables" under Scopes Custom: every
 * scope of the resources dataTable, dataTableRow and dataTableColumn (14 in n8n 2.41.1), from the
 * scopes this n8n offers the user.
 */
function dataTableScopes(offered) {
	return offered.filter((scope) => /^dataTable(Row|Column)?:/.test(scope));
}

/**
 * The signed-in user's API keys ({id, label, scopes}): n8n 2.41.1 answers {items, counts, …}, n8n
 * 2.36 a plain list.
 */
async function ownApiKeys(instance) {
	const listed = await rt.restCall(instance, 'GET', '/api-keys?ownership=mine', {
		cookie: instance.cookie,
	});
	if (listed.status !== 200) throw new Error(`listing API keys failed: ${listed.status}`);
	const data = listed.json.data ?? listed.json;
	return Array.isArray(data) ? data : (data.items ?? []);
}

/**
 * The record's own API key, scoped to data tables only as the README recommends: earlier ones of
 * the same label (an earlier `npm start` of this state folder) are deleted first, so Settings ->
 * n8n API lists one. Stores the raw key and its label on the instance (recordApiKey,
 * recordApiKeyLabel, recordApiKeyScopes).
 */
async function createRecordKey(instance) {
	const cookie = instance.cookie;
	for (const key of await ownApiKeys(instance)) {
		if (key.label !== RECORD_KEY_LABEL) continue;
		const deleted = await rt.restCall(instance, 'DELETE', `/api-keys/${key.id}`, { cookie });
		if (deleted.status !== 200) throw new Error(`deleting API key ${key.id}: ${deleted.status}`);
	}
	const offered = await rt.restCall(instance, 'GET', '/api-keys/scopes', { cookie });
	if (offered.status !== 200) throw new Error(`listing API key scopes failed: ${offered.status}`);
	const scopes = dataTableScopes(offered.json.data ?? offered.json);
	const created = await rt.restCall(instance, 'POST', '/api-keys', {
		cookie,
		body: { label: RECORD_KEY_LABEL, scopes, expiresAt: null },
	});
	if (created.status !== 200) throw new Error(`creating the record's API key: ${created.status}`);
	instance.recordApiKey = (created.json.data ?? created.json).rawApiKey;
	instance.recordApiKeyLabel = RECORD_KEY_LABEL;
	instance.recordApiKeyScopes = scopes;
	return instance.recordApiKey;
}

/**
 * Deletes the API key with every scope that setupAccess made for the scripts' own calls (and any
 * such key an earlier, interrupted run left), once the stack is set up: `npm start` leaves only
 * the record's key. The instance's public API calls need a key again after this.
 */
async function dropSetupKeys(instance) {
	const cookie = instance.cookie;
	for (const key of await ownApiKeys(instance)) {
		if (!String(key.label).startsWith(`${rt.SETUP_KEY_LABEL_PREFIX}-`)) continue;
		const deleted = await rt.restCall(instance, 'DELETE', `/api-keys/${key.id}`, { cookie });
		if (deleted.status !== 200) throw new Error(`deleting API key ${key.id}: ${deleted.status}`);
	}
	instance.apiKey = undefined;
	instance.apiKeyLabel = undefined;
}

/**
 * Points the record credential at this n8n's public API with the record's key, scoped to data
 * tables (before any write back workflow is activated: activation checks the record).
 */
async function connectRecordCredential(instance, apiBaseUrl = instance.baseUrl) {
	const apiKey = instance.recordApiKey ?? (await createRecordKey(instance));
	await rt.publicApi(instance, 'PATCH', `/credentials/${CREDENTIALS.record.id}`, {
		name: CREDENTIALS.record.name,
		type: CREDENTIALS.record.type,
		data: {
			baseUrl: `${apiBaseUrl}/api/v1`,
			apiKey,
			dataTableName: RECORD_TABLE_NAME,
		},
	});
}

async function ensureDataTable(instance, table) {
	const list = await rt.publicApi(instance, 'GET', `/data-tables?limit=100`);
	const found = (list.data ?? []).find((t) => t.name === table.name);
	if (found) return found;
	return rt.publicApi(instance, 'POST', '/data-tables', {
		name: table.name,
		columns: table.columns,
	});
}

/**
 * Starts everything. Options:
 *   userFolder      n8n's user folder (kept; state survives restarts)
 *   n8nPort         0 = a free port
 *   simulatorPort   0 = a free port
 *   service         {baseUrl, clientId, clientSecret} of the real service, or undefined for the simulator
 *   secrets         {lookup, writeBack, notification} hex secrets, each defaulting to the simulator's
 *   simulatorOptions  passed to startSimulator
 *   publicUrl       public base URL of n8n's webhooks (N8N_WEBHOOK_URL), when the real service must reach them
 *   extraWorkflows  more workflow objects to import (not activated), e.g. test fixtures
 *   extraEnv        more environment for n8n, e.g. N8N_DATA_TABLES_MAX_SIZE_BYTES
 *   owner, log, skipBuild
 * Resolves with {instance, simulator, workflows, webhooks, stop(), summary()}; on failure stops what it started.
 */
async function startStack(opts) {
	const t0 = Date.now();
	const baseLog = opts.log ?? ((l) => process.stderr.write(`${l}\n`));
	const log = (line) => baseLog(`${line} (+${Math.round((Date.now() - t0) / 1000)} s)`);
	const owner = { ...DEFAULT_OWNER, ...(opts.owner ?? {}) };
	const userFolder = path.resolve(opts.userFolder);
	fs.mkdirSync(userFolder, { recursive: true });
	const stack = { instance: null, simulator: null, workflows: [], webhooks: [] };
	stack.stop = async () => {
		fs.rmSync(endpointsFile(userFolder), { force: true });
		if (stack.instance) await rt.stopServer(stack.instance);
		if (stack.simulator) {
			const sim = stack.simulator;
			stack.simulator = null;
			await sim.stop();
		}
	};
	try {
		// The long first install and the build are independent.
		const [runtime] = await Promise.all([
			rt.installRuntime({ log }),
			opts.skipBuild ? Promise.resolve() : rt.buildPackage({ log }),
		]);
		const { startSimulator } = require(path.join(rt.REPO_ROOT, 'test', 'simulator'));
		const defaultSecret = require(
			path.join(rt.REPO_ROOT, 'test', 'simulator'),
		).DEFAULT_SIGNING_SECRET;
		const secrets = {
			lookup: opts.secrets?.lookup || defaultSecret,
			writeBack: opts.secrets?.writeBack || defaultSecret,
			notification: opts.secrets?.notification || defaultSecret,
		};
		stack.simulator = await startSimulator({
			port: opts.simulatorPort ?? 0,
			signingSecret: secrets.lookup,
			...(opts.simulatorOptions ?? {}),
		});
		const simClient = stack.simulator.options.clients[0];
		const service = opts.service ?? {
			baseUrl: stack.simulator.url,
			clientId: simClient.clientId,
			clientSecret: simClient.clientSecret,
		};
		stack.service = service;
		stack.secrets = secrets;

		const instance = await rt.createInstance(runtime, {
			userFolder,
			port: opts.n8nPort || undefined,
			extraEnv: {
				...(opts.extraEnv ?? {}),
				// Where the service reaches the webhooks (a tunnel or reverse proxy in front of n8n).
				...(opts.publicUrl ? { N8N_WEBHOOK_URL: `${opts.publicUrl.replace(/\/+$/, '')}/` } : {}),
			},
		});
		stack.instance = instance;
		log(`installing the package into ${path.join(userFolder, '.n8n', 'nodes')}`);
		const tarball = await rt.packPackage(path.join(userFolder, 'pack'));
		await rt.installPackageInto(userFolder, tarball, { runtime });

		log('importing credentials and example workflows (n8n CLI)');
		await rt.importCredentials(
			instance,
			credentialsFor({
				serviceUrl: service.baseUrl,
				clientId: service.clientId,
				clientSecret: service.clientSecret,
				secrets,
			}),
		);
		const examples = rt.loadExamples();
		stack.workflows = examples.map(({ file, workflow }) => ({
			file,
			id: workflow.id,
			name: workflow.name,
			endpoint: endpointOf(workflow),
			trigger: rt.triggerNodes(workflow).length > 0,
			workflow: rt.localVariant(workflow),
			active: false,
		}));
		const toImport = [...stack.workflows.map((w) => w.workflow), ...(opts.extraWorkflows ?? [])];
		if (toImport.length > 0) await rt.importWorkflows(instance, toImport);

		await rt.startServer(instance, { log });
		const loadError = rt.packageLoadError(instance);
		if (loadError) throw new Error(`n8n could not load ${rt.PACKAGE_NAME}:\n${loadError}`);
		log('n8n is ready; setting up the owner and an API key');
		await rt.setupAccess(instance, owner);
		stack.owner = owner;
		await connectRecordCredential(instance);
		await ensureDataTable(instance, CONVERSATIONS_TABLE);
		log('activating the trigger workflows');
		for (const wf of stack.workflows.filter((w) => w.trigger)) {
			await rt.activateWorkflow(instance, wf.id);
			wf.active = true;
		}
		// n8n writes the webhook rows while activating; wait until every active trigger workflow has its row.
		let registered = [];
		for (let attempt = 0; attempt < 80; attempt++) {
			registered = await rt.registeredWebhooks(instance);
			if (
				stack.workflows
					.filter((w) => w.active)
					.every((w) => registered.some((r) => r.workflowId === w.id))
			)
				break;
			await rt.sleep(250);
		}
		stack.webhooks = stack.workflows
			.filter((w) => w.active)
			.flatMap((w) =>
				registered
					.filter((r) => r.workflowId === w.id)
					.map((r) => ({
						endpoint: w.endpoint,
						label: ENDPOINT_LABELS[w.endpoint] ?? w.endpoint,
						workflowId: w.id,
						url: opts.publicUrl
							? r.url.replace(instance.baseUrl, opts.publicUrl.replace(/\/+$/, ''))
							: r.url,
						localUrl: r.url,
						method: r.method,
					})),
			)
			.sort(
				(a, b) =>
					Object.keys(ENDPOINT_LABELS).indexOf(a.endpoint) -
					Object.keys(ENDPOINT_LABELS).indexOf(b.endpoint),
			);
		for (const hook of stack.webhooks) await rt.waitForWebhook(hook.localUrl);
		writeEndpoints(userFolder, stack.webhooks, secrets);
		stack.summary = () => {
			const distinct = [...new Set(Object.values(secrets))];
			return {
				editorUrl: `${instance.baseUrl}/`,
				owner,
				serviceUrl: service.baseUrl,
				webhooks: stack.webhooks,
				workflows: stack.workflows,
				recordCredential: {
					name: CREDENTIALS.record.name,
					apiBaseUrl: `${instance.baseUrl}/api/v1`,
					apiKeyLabel: instance.recordApiKeyLabel,
					apiKeyScopes: instance.recordApiKeyScopes,
					apiKey: instance.recordApiKey,
					dataTableName: RECORD_TABLE_NAME,
				},
				signingSecretLine:
					distinct.length === 1
						? `${distinct[0]}${secrets.lookup === defaultSecret ? ' (the simulator signs with it)' : ''}`
						: Object.entries(secrets)
								.map(([k, v]) => `${ENDPOINT_LABELS[k]}: ${v}`)
								.join(', '),
			};
		};
		return stack;
	} catch (error) {
		await stack.stop().catch(() => undefined);
		throw error;
	}
}

module.exports = {
	CREDENTIALS,
	CONVERSATIONS_TABLE,
	DEFAULT_OWNER,
	RECORD_TABLE_NAME,
	RECORD_KEY_LABEL,
	credentialsFor,
	connectRecordCredential,
	createRecordKey,
	dataTableScopes,
	dropSetupKeys,
	ownApiKeys,
	signingSecretField,
	ensureDataTable,
	readEndpoints,
	writeEndpoints,
	startStack,
	stateDirFrom,
};
