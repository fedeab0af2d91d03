/* eslint-disable @typescript-eslint/no-explicit-any -- test code: JSON read from n8n, untyped */
/**
 * End to end, in one real n8n process (2.41.1, SQLite, the packed package): nothing fails
 * silently. A write back workflow whose settings name an Error Workflow (Error Trigger -> a node,
 * as n8n's docs recommend), n8n's data table storage limited to 1 MB
 * (N8N_DATA_TABLES_MAX_SIZE_BYTES) and the record credential's Storage Limit set to match. In order:
 * 1. storage at n8n's warning level: a write back run shows the warning in its output and n8n's log;
 * 2. storage full: refused deliveries reported, the Error Workflow runs within 90 s with the cause;
 *    after space is freed every event delivered again is processed exactly once;
 * 3. a rotated signing secret: 60 refused deliveries make one report, the Error Workflow runs;
 * 4. the record's key revoked: reported as expired or revoked, the Error Workflow runs.
 */
import * as runtimeModule from '../../scripts/lib/n8n-runtime';
import * as localModule from '../../scripts/lib/local-setup';
import * as helpersModule from './helpers';

type Json = Record<string, any>;
const rt: Json = runtimeModule;
const local: Json = localModule;
const {
	errorWorkflowMessages,
	freshStateDir,
	postSigned,
	readFixture,
	triggerReportOf,
	report,
	waitFor,
	watchedCopy,
	writeBackPayload: writeBack,
}: Json = helpersModule;

const log = (line: string) => report(`[e2e reports] ${line}`);

const LIMIT_BYTES = 1024 * 1024;
/** How soon an ops team must learn of a refusal. */
const REPORTED_WITHIN_MS = 90_000;

const ERROR_WORKFLOW = readFixture('error-workflow.json');
/** The fixture whose CRM write is a Code node (no data table), watched by the Error Workflow. */
const WATCHED = watchedCopy(
	readFixture('write-back-fails-on-demand.json'),
	{
		id: 'ccE2eWriteBackWatched',
		name: 'e2e: write back watched by an Error Workflow',
		webhookId: 'e2e00000-0000-4000-8000-0000000000c1',
	},
	ERROR_WORKFLOW.id,
);
const TRIGGER = 'Write back';

const FILLER = {
	name: 'e2e_filler',
	columns: [{ name: 'text', type: 'string' }],
};

let stack: Json;
let url: string;
const instance = () => stack.instance as Json;
const secret = () => stack.secrets.writeBack as string;

beforeAll(async () => {
	stack = await local
		.startStack({
			userFolder: freshStateDir(),
			n8nPort: 0,
			simulatorPort: 0,
			extraWorkflows: [ERROR_WORKFLOW, WATCHED],
			extraEnv: {
				N8N_DATA_TABLES_MAX_SIZE_BYTES: String(LIMIT_BYTES),
				N8N_DATA_TABLES_SIZE_CHECK_CACHE_DURATION_MS: '0',
			},
			log,
		})
		.catch((error: Error) => {
			log(`could not start the stack: ${error.message}`);
			throw error;
		});
	await setRecordKey(instance().apiKey);
	// n8n 2.x runs only a published Error Workflow (workflow-execution.service.js loadErrorWorkflowData).
	await rt.activateWorkflow(instance(), ERROR_WORKFLOW.id);
	await rt.activateWorkflow(instance(), WATCHED.id);
	const hook = await waitFor(
		async () =>
			(await rt.registeredWebhooks(instance())).find((r: Json) => r.workflowId === WATCHED.id),
		{ what: 'the webhook of the watched workflow' },
	);
	await rt.waitForWebhook(hook.url);
	url = hook.url;
}, 900_000);

afterAll(async () => {
	await stack?.stop();
});

/** The example record credential with this key and the storage limit of this n8n. */
async function setRecordKey(apiKey: string) {
	await rt.publicApi(instance(), 'PATCH', `/credentials/${local.CREDENTIALS.record.id}`, {
		name: local.CREDENTIALS.record.name,
		type: local.CREDENTIALS.record.type,
		data: {
			baseUrl: `${instance().baseUrl}/api/v1`,
			apiKey,
			dataTableName: local.RECORD_TABLE_NAME,
			customStorageLimit: true,
			storageLimitMb: LIMIT_BYTES / (1024 * 1024),
		},
	});
}

const deliver = async (key: string, options: Json = { secret: secret() }) =>
	await postSigned(url, writeBack(key, `conv-${key}`), options);

const executions = async (workflowId = WATCHED.id) =>
	(await rt.listExecutions(instance(), { workflowId, includeData: true })) as Json[];

const errorWorkflowReceived = async () =>
	await errorWorkflowMessages(instance(), ERROR_WORKFLOW.id);

/** Waits for the Error Workflow to receive a message matching `pattern`; resolves with the time it took. */
async function errorWorkflowRuns(pattern: RegExp, since: number): Promise<number> {
	await waitFor(async () => (await errorWorkflowReceived()).some((m: string) => pattern.test(m)), {
		what: `an Error Workflow run for ${pattern}`,
		timeoutMs: REPORTED_WITHIN_MS,
		intervalMs: 1000,
	});
	return Date.now() - since;
}

/** Idempotency keys whose run reached the CRM write without an error, with how often. */
async function crmWritesPerKey(): Promise<Map<string, number>> {
	const perKey = new Map<string, number>();
	for (const e of await executions()) {
		const write = e.data?.resultData?.runData?.['Write to CRM']?.[0];
		if (write === undefined || write.error) continue;
		const key = e.data.resultData.runData[TRIGGER][0].data.main[0][0].json.idempotencyKey;
		perKey.set(key, (perKey.get(key) ?? 0) + 1);
	}
	return perKey;
}

async function storageStatus(): Promise<Json> {
	const limits = await rt.restCall(instance(), 'GET', '/data-tables-global/limits', {
		cookie: instance().cookie,
	});
	return limits.json?.data ?? limits.json;
}

/** Adds filler rows until n8n's own limits endpoint reports `status` (or an insert is refused). */
async function fillUntil(status: 'warn' | 'error') {
	const table = await local.ensureDataTable(instance(), FILLER);
	const row = { text: 'x'.repeat(2000) };
	for (let batch = 0; batch < 200; batch++) {
		const current = await storageStatus();
		if (current.quotaStatus === status) return current;
		const inserted = await fetch(`${instance().baseUrl}/api/v1/data-tables/${table.id}/rows`, {
			method: 'POST',
			headers: { 'content-type': 'application/json', 'x-n8n-api-key': instance().apiKey },
			body: JSON.stringify({ data: Array.from({ length: 20 }, () => row) }),
		});
		if (inserted.status !== 200) return await storageStatus();
	}
	throw new Error(`the storage did not reach "${status}"`);
}

test("1. at n8n's warning level, a write back run warns in its output and in n8n's log, naming the used and the maximum size", async () => {
	const status = await fillUntil('warn');
	log(`storage at n8n's warning level: ${JSON.stringify({ ...status, dataTables: undefined })}`);
	const key = `warn-${Date.now()}`;
	expect((await deliver(key)).status).toBe(200);
	const run = await waitFor(
		async () =>
			(await executions()).find(
				(e) =>
					e.data?.resultData?.runData?.[TRIGGER]?.[0]?.data?.main?.[0]?.[0]?.json
						?.idempotencyKey === key,
			),
		{ what: 'the run of the write back' },
	);
	const hints = run.data.resultData.runData[TRIGGER][0].hints as Json[];
	log(`hints: ${JSON.stringify(hints)}`);
	expect(hints).toEqual([
		expect.objectContaining({
			type: 'warning',
			message: expect.stringMatching(
				/data table storage is nearly full: .* of its 1\.0 MB limit used/,
			),
		}),
	]);
	expect(rt.readLog(instance())).toMatch(/Contact Center: n8n's data table storage is nearly full/);
}, 300_000);

test('2. storage full: refused deliveries reported, and the write back kept only in memory reported by its own run (each an Error Workflow run within 90 s, the cause and the fix); after space is freed, every event delivered again is processed exactly once', async () => {
	const status = await fillUntil('error');
	log(`storage full: ${JSON.stringify({ ...status, dataTables: undefined })}`);
	const stamp = Date.now();
	const keys = [0, 1, 2, 3].map((i) => `full-${stamp}-${i}`);
	const first = [];
	for (const key of keys) first.push(await deliver(key));
	log(
		`answers with the storage full: ${first.map((a) => `${a.status} ${a.text.slice(0, 120)}`).join(' | ')}`,
	);
	// The first is run from this process's index and kept as done in its memory; the rest are refused.
	expect(first.map((answer) => answer.status)).toEqual([200, 503, 503, 503]);
	const tookMs = await errorWorkflowRuns(/^n8n's data table storage is full/, stamp);
	log(`Error Workflow ran ${tookMs} ms after the first refused delivery`);
	const reports = (await executions()).map(triggerReportOf).filter(Boolean) as Json[];
	const full = reports.filter((error: Json) => /storage is full/.test(error.message));
	expect(full).toHaveLength(1);
	expect(full[0].description).toMatch(/N8N_DATA_TABLES_MAX_SIZE_BYTES/);
	expect(full[0].description).toMatch(
		/1 processed write back is kept as done only in this n8n process's memory/,
	);
	// The run of the first asked for its own report, through the trigger's Write Back URL.
	const keptPattern =
		/^1 write back was processed and answered 200, but n8n's API did not take its record row/;
	const keptTookMs = await errorWorkflowRuns(keptPattern, stamp);
	log(`Error Workflow ran ${keptTookMs} ms after the write back kept only in memory`);
	const kept = ((await executions()).map(triggerReportOf).filter(Boolean) as Json[]).filter(
		(error: Json) => keptPattern.test(error.message),
	);
	expect(kept).toHaveLength(1);
	expect(kept[0].description).toMatch(/Should that process restart before the rows are written/);
	// The run's report call was taken (answered 202): a refused one is logged by the run that made it.
	expect(rt.readLog(instance())).not.toMatch(/could not be reported as a failed execution/);

	const filler = await local.ensureDataTable(instance(), FILLER);
	await rt.publicApi(instance(), 'DELETE', `/data-tables/${filler.id}`);
	// The service delivers each refused one again (an hour later; here as soon as the record takes rows).
	const again = await waitFor(
		async () => {
			const answer = await deliver(keys[1]);
			return answer.status === 200 ? answer : undefined;
		},
		{ what: 'a redelivery accepted after space was freed', timeoutMs: 120_000, intervalMs: 2000 },
	);
	expect(again.json?.status).toBe('processed');
	for (const key of keys.slice(2)) expect((await deliver(key)).json?.status).toBe('processed');
	for (const key of keys) expect((await deliver(key)).json?.status).toBe('duplicate');
	const writes = await crmWritesPerKey();
	expect(keys.map((key) => writes.get(key))).toEqual([1, 1, 1, 1]);
}, 400_000);

test('3. a rotated signing secret: 60 deliveries answered 401, one report, the Error Workflow runs within 90 s with the cause and the fix; none runs the CRM write', async () => {
	const stamp = Date.now();
	const before = (await executions()).length;
	const keys = Array.from({ length: 60 }, (_, i) => `rotated-${stamp}-${i}`);
	const answers = [];
	for (const key of keys) answers.push(await deliver(key, { secret: 'ab'.repeat(32) }));
	expect(new Set(answers.map((answer) => answer.status))).toEqual(new Set([401]));
	const tookMs = await errorWorkflowRuns(/^The signature did not match/, stamp);
	log(`Error Workflow ran ${tookMs} ms after the first of 60 refused deliveries`);
	const added = (await executions()).slice(0, (await executions()).length - before);
	const reports = added.map(triggerReportOf).filter(Boolean) as Json[];
	expect(reports).toHaveLength(1);
	expect(added).toHaveLength(1);
	expect(reports[0].message).toMatch(/: 1 call to the write back URL refused \(401\)/);
	expect(reports[0].description).toMatch(
		/paste the service's current secret key into the credential/,
	);
	expect(rt.readLog(instance())).toMatch(
		/Contact Center Trigger ".*": The signature did not match/,
	);
	const writes = await crmWritesPerKey();
	expect(keys.filter((key) => writes.has(key))).toEqual([]);
	// The service delivers them again once the credential has its key: each processed once.
	for (const key of keys.slice(0, 5)) expect((await deliver(key)).json?.status).toBe('processed');
}, 300_000);

test('4. the record key revoked: the next deliveries are refused 503, reported as the key expired or revoked, the Error Workflow runs within 90 s', async () => {
	const { rawApiKey, label } = await rt.createApiKey(instance(), instance().cookie, {
		labelPrefix: 'revoked',
		expiresAt: null,
	});
	await setRecordKey(rawApiKey);
	// A process reuses a record credential it has read for a minute.
	await rt.sleep(61_000);
	const listed = await rt.restCall(instance(), 'GET', '/api-keys', { cookie: instance().cookie });
	const all = listed.json?.data ?? listed.json;
	const key = ((Array.isArray(all) ? all : (all?.items ?? [])) as Json[]).find(
		(k) => k.label === label,
	);
	const removed = await rt.restCall(instance(), 'DELETE', `/api-keys/${key?.id}`, {
		cookie: instance().cookie,
	});
	expect(removed.status).toBe(200);
	const stamp = Date.now();
	const answers = [];
	for (const i of [0, 1, 2]) answers.push(await deliver(`revoked-${stamp}-${i}`));
	log(
		`answers after the key was revoked: ${answers.map((a) => `${a.status} ${a.text.slice(0, 120)}`).join(' | ')}`,
	);
	expect(answers.slice(1).map((answer) => answer.status)).toEqual([503, 503]);
	const tookMs = await errorWorkflowRuns(/^The record's n8n API key was refused by n8n/, stamp);
	log(`Error Workflow ran ${tookMs} ms after the first refused delivery`);
	await setRecordKey(instance().apiKey);
}, 300_000);
