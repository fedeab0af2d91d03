/* eslint-disable @typescript-eslint/no-explicit-any -- test code: JSON read from n8n and the simulator, untyped */
/**
 * The one-process stack of the end-to-end suites contactCenter.e2e.test.ts and
 * contactCenterCompat.e2e.test.ts, and what both do with it: the packed package installed into a
 * real n8n (2.41.1, or CONTACT_CENTER_N8N_VERSION: the e2e-oldest project runs 2.36.8) on Node 24,
 * the way users install community nodes, the example workflows imported with n8n's CLI, the trigger
 * workflows activated, the action workflows executed with `n8n execute`, and the service played by
 * the project's simulator over HTTP. Nothing is mocked in between. One n8n serves a whole file
 * (`useOneProcessStack` registers its start and stop); jest gives each file its own copy of this
 * module, so each file has its own stack.
 */
import {
	writeBackAnswer as answerFor,
	type WriteBackStatus,
} from '../../nodes/ContactCenterTrigger/answers';
import * as runtimeModule from '../../scripts/lib/n8n-runtime';
import * as localModule from '../../scripts/lib/local-setup';
import * as helpersModule from './helpers';

// The orchestration is plain JavaScript (it spawns processes); the suites use it untyped.
export type Json = Record<string, any>;
type Stack = Json;
type Execution = Json;
export const rt: Json = runtimeModule;
export const local: Json = localModule;
const {
	freshStateDir,
	postSigned,
	readFixture,
	report,
	waitFor,
	writeBackPayload: writeBack,
}: Json = helpersModule;

export const TOKEN_PROBE = readFixture('token-probe.json');
export const SEND_WAIT_FOR_FINAL_STATUS = readFixture('send-wait-for-final-status.json');
/** The JSON body of every write back answer. */
export const writeBackAnswer = (status: WriteBackStatus, key: string) =>
	answerFor(status, key).body;
export const FAILING_WRITE_BACK = readFixture('write-back-fails-on-demand.json');
/** The record's scope of example 4's trigger (its webhook id). */
export const EXAMPLE_WRITE_BACK_SCOPE = 'writeBack:5d0c4c3e-7b61-4c1f-9a57-2f2b4b0e0a04';
/** Production URLs of the fixture trigger workflows, by workflow id. */
export const fixtureHooks: Record<string, string> = {};

let stack: Stack;
let stateDir: string;

/** The running stack: {instance, simulator, workflows, webhooks, secrets, stop()}. */
export const oneProcessStack = () => stack;
/** The n8n user folder of this file's stack. */
export const oneProcessStateDir = () => stateDir;
export const sim = () => stack.simulator as Json;
export const instance = () => stack.instance as Json;
export const workflowId = (endpointOrFile: string) => {
	const wf = stack.workflows.find(
		(w: Json) => w.endpoint === endpointOrFile || w.file.startsWith(endpointOrFile),
	);
	if (!wf) throw new Error(`no example workflow ${endpointOrFile}`);
	return wf.id as string;
};
export const webhook = (endpoint: string) => {
	const hook = stack.webhooks.find((w: Json) => w.endpoint === endpoint);
	if (!hook)
		throw new Error(
			`no active webhook for ${endpoint}; registered: ${JSON.stringify(stack.webhooks)}`,
		);
	return hook.url as string;
};
export const secret = (endpoint: 'lookup' | 'writeBack' | 'notification') =>
	stack.secrets[endpoint] as string;

export async function execute(id: string): Promise<Execution> {
	const result = await rt.executeWorkflow(instance(), id);
	if (result.crashedOnExit)
		report(
			`[e2e] n8n execute of ${id} ended by ${result.crashedOnExit} after it printed the finished run`,
		);
	if (!result.ok) {
		throw new Error(
			`workflow ${id} failed in n8n (exit ${result.code}):\n${JSON.stringify(result.run?.data?.resultData?.error ?? null, null, 2)}\n${result.stdout.slice(-3000)}\n${result.stderr.slice(-3000)}`,
		);
	}
	return result;
}

/** Simulator requests logged while `fn` runs. */
export async function recording<T>(fn: () => Promise<T>): Promise<{ result: T; requests: Json[] }> {
	const before = sim().requests.length;
	const result = await fn();
	return { result, requests: sim().requests.slice(before) };
}

export const executionsOf = async (id: string, includeData = false): Promise<Json[]> =>
	await rt.listExecutions(instance(), { workflowId: id, includeData });

/** Running executions of the workflow, which the public API lists only when asked for `status=running`. */
export const runningExecutionsOf = async (
	workflowId: string,
	includeData = false,
): Promise<Json[]> =>
	(
		await rt.publicApi(
			instance(),
			'GET',
			`/executions?workflowId=${workflowId}&status=running&limit=250&includeData=${includeData}`,
		)
	).data as Json[];

/** Executions of the workflow not ended yet: enqueued (status `new`) or running. */
export async function unfinishedRuns(workflowId: string): Promise<number> {
	const enqueued = (await executionsOf(workflowId)).filter((e) => e.status === 'new');
	return (await runningExecutionsOf(workflowId)).length + enqueued.length;
}

/**
 * One signed write back delivery; its answer as "status state" (`200 processed`), or `no answer`
 * when the connection died (n8n killed). `data`: merged into the payload's data (e.g. `slowMs`).
 */
export async function answerOfWriteBack(
	url: string,
	key: string,
	data: Json = {},
): Promise<string> {
	try {
		const res = await postSigned(url, writeBack(key, `conv-${key}`, data), {
			secret: secret('writeBack'),
		});
		return `${res.status} ${res.json?.status ?? ''}`.trim();
	} catch {
		return 'no answer';
	}
}

/** Waits until n8n serves the webhook; fails saying how long it waited when n8n does not. */
export async function expectWebhookRegistered(url: string): Promise<void> {
	const startedAt = Date.now();
	const registered = await rt.waitForWebhook(url, { timeoutMs: 60_000 });
	expect({ url, registered, waitedMs: registered ? 'in time' : Date.now() - startedAt }).toEqual({
		url,
		registered: true,
		waitedMs: 'in time',
	});
}

/**
 * Stops n8n (SIGKILL with `kill`), sets or removes (`undefined`) its environment variables in
 * `env`, starts it again and waits for the webhook at `url`.
 */
export async function restartN8n(
	url: string,
	env: Record<string, string | undefined>,
	{ kill = false } = {},
): Promise<void> {
	await (kill ? rt.killServer(instance()) : rt.stopServer(instance()));
	for (const [name, value] of Object.entries(env)) {
		if (value === undefined) delete instance().env[name];
		else instance().env[name] = value;
	}
	await rt.startServer(instance(), { log: (line: string) => report(`[e2e] ${line}`) });
	await expectWebhookRegistered(url);
}

/**
 * Why n8n did not activate the workflow's trigger: the activation call's error, or, where n8n
 * publishes in the background (2.41's workflow publication service, on by default), the failed
 * trigger's message in the publication status that the editor shows.
 */
export async function activationErrorOf(id: string): Promise<string | undefined> {
	const thrown = await rt.activateWorkflow(instance(), id).then(
		() => undefined,
		(error: Error) => error.message,
	);
	if (thrown !== undefined) return thrown;
	const failed = await waitFor(
		async () => {
			const status = await rt.restCall(instance(), 'GET', `/workflows/${id}/publication-status`, {
				cookie: instance().cookie,
			});
			const triggers = ((status.json?.data ?? status.json)?.triggers ?? []) as Json[];
			return triggers.find((trigger) => trigger.status === 'failed');
		},
		{ what: `the publication status of ${id}`, timeoutMs: 90_000 },
	);
	return failed.errorMessage as string;
}

/** The JSON the trigger node emitted in an execution read with includeData. */
export const triggerOutput = (execution: Json, nodeName: string): Json | undefined =>
	execution.data?.resultData?.runData?.[nodeName]?.[0]?.data?.main?.[0]?.[0]?.json;

/** The snapshot's column of each metric endpoint: its unit in its name (spec 4.5). */
export const SNAPSHOT_COLUMNS: Record<string, string> = {
	'/reporting-metrics/inbound-message-volume': 'inboundMessages',
	'/reporting-metrics/outbound-message-volume': 'outboundMessages',
	'/reporting-metrics/first-response-time': 'firstResponseTimeSeconds',
	'/reporting-metrics/resolved-with-one-reply': 'resolvedWithOneReplyMessages',
	'/reporting-metrics/handle-time': 'handleTimeSeconds',
	'/reporting-metrics/agent-availability': 'agents',
	'/queue-metrics/contacts-waiting': 'contactsWaiting',
	'/queue-metrics/longest-wait-time': 'longestWaitTimeSeconds',
};

/**
 * Registers the start of this file's stack (before its tests, with `extraWorkflows` imported,
 * the fixture write back that fails on demand activated and n8n's environment as `extraEnv`
 * changes it) and its stop (after them).
 */
export function useOneProcessStack(
	extraWorkflows: Json[],
	extraEnv: Record<string, string> = {},
): void {
	beforeAll(async () => {
		stateDir = freshStateDir();
		stack = await local
			.startStack({
				userFolder: stateDir,
				n8nPort: 0,
				simulatorPort: 0,
				extraEnv,
				extraWorkflows: [...extraWorkflows, FAILING_WRITE_BACK],
				log: (line: string) => report(`[e2e] ${line}`),
			})
			.catch((error: Error) => {
				report(`[e2e] could not start the stack: ${error.message}`);
				throw error;
			});
		for (const fixture of [FAILING_WRITE_BACK]) {
			await rt.activateWorkflow(instance(), fixture.id);
			const hook = await waitFor(
				async () =>
					(await rt.registeredWebhooks(instance())).find((r: Json) => r.workflowId === fixture.id),
				{ what: `the webhook of ${fixture.id}` },
			);
			await rt.waitForWebhook(hook.url);
			fixtureHooks[fixture.id] = hook.url;
		}
		const settings = await rt.restCall(instance(), 'GET', '/settings', {
			cookie: instance().cookie,
		});
		report(
			`[e2e] n8n under test: ${settings.json?.data?.versionCli ?? '?'} (package.json of the runtime: ${instance().runtime.version}), Node ${await nodeVersion()}, user folder ${stateDir}`,
		);
	}, 900_000);

	async function nodeVersion(): Promise<string> {
		const { stdout } = await rt.run(instance().runtime.nodeBin, ['--version']);
		return stdout.trim();
	}

	afterAll(async () => {
		if (stack) await stack.stop();
		if (stateDir)
			report(`[e2e] n8n's user folder and log stay for inspection until the next run: ${stateDir}`);
	}, 120_000);
}

export async function conversationRows(): Promise<Json[]> {
	const tables = await rt.publicApi(instance(), 'GET', '/data-tables?limit=100');
	const table = (tables.data as Json[]).find((t) => t.name === local.CONVERSATIONS_TABLE.name);
	if (!table) throw new Error('the conversations data table does not exist');
	const rows = await rt.publicApi(instance(), 'GET', `/data-tables/${table.id}/rows?limit=250`);
	return rows.data as Json[];
}

export async function recordTableId(): Promise<string> {
	const tables = await rt.publicApi(instance(), 'GET', '/data-tables?limit=100');
	const table = (tables.data ?? []).find((t: Json) => t.name === local.RECORD_TABLE_NAME);
	if (!table) throw new Error('the record data table does not exist');
	return table.id as string;
}

/** The record's rows of one scope, read through n8n's public API. */
export async function recordRows(scope: string): Promise<Json[]> {
	const tableId = await recordTableId();
	const rows: Json[] = [];
	for (let cursor: string | undefined; ; ) {
		const filter = encodeURIComponent(
			JSON.stringify({
				type: 'and',
				filters: [{ columnName: 'scope', condition: 'eq', value: scope }],
			}),
		);
		const page = await rt.publicApi(
			instance(),
			'GET',
			`/data-tables/${tableId}/rows?limit=250&filter=${filter}${cursor ? `&cursor=${cursor}` : ''}`,
		);
		rows.push(...page.data);
		if (!page.nextCursor) return rows;
		cursor = page.nextCursor;
	}
}

/** Waits until every execution of the workflow finished and one of them carries `key`. */
export async function writeBackExecutionsUntil(key: string): Promise<Json[]> {
	return await waitFor(
		async () => {
			const list = await executionsOf(workflowId('writeBack'), true);
			const done = list.filter((e) => e.finished || e.status === 'success' || e.status === 'error');
			return done.some(
				(e) => triggerOutput(e, 'Conversation resolved or pending')?.idempotencyKey === key,
			) && done.length === list.length
				? list
				: undefined;
		},
		{ what: `the write back execution of ${key}` },
	);
}

/**
 * Delivers the write back of `key` again until it is answered as a duplicate. A redelivery sent
 * right after the first answer can be ahead of n8n's save of the record and then finds the
 * first delivery's claim: 409 in progress, never a second run; anything else fails.
 */
export async function redeliverExpectingDuplicate(
	key: string,
	url = webhook('writeBack'),
	conversationId = `conv-${key}`,
): Promise<void> {
	const answers: Json[] = [];
	await waitFor(
		async () => {
			const res = await postSigned(url, writeBack(key, conversationId), {
				secret: secret('writeBack'),
			});
			answers.push({ status: res.status, body: res.json });
			const last = answers[answers.length - 1];
			if (last.status === 409) {
				expect(last.body).toEqual(writeBackAnswer('running', key));
				return false;
			}
			expect({ key, ...last }).toEqual({
				key,
				status: 200,
				body: writeBackAnswer('duplicate', key),
			});
			return true;
		},
		{
			what: `a duplicate answer for ${key} (answers so far: ${JSON.stringify(answers)})`,
			timeoutMs: 15000,
			intervalMs: 300,
		},
	);
}
