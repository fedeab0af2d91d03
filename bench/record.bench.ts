/* eslint-disable no-console, @typescript-eslint/no-explicit-any, @n8n/community-nodes/no-restricted-imports -- benchmarks run in jest on a developer machine, never inside n8n */
/**
 * Issue 19, targets 4 and 5 in one n8n process: the write back trigger (version 3, example 4's
 * workflow, respond afterSuccess) with the durable record empty of its keys and then holding
 * 100,000 keys, side by side with the same deliveries without idempotency keys (only the
 * exactly-once work differs) and with the same workflow on trigger version 2 (the version before
 * the record: its ledger in static data, its claim in memory). Per phase: deliveries one at a time
 * (latency) and 8 in flight (throughput), and how much n8n's SQLite database grew per delivery.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

import * as runtimeModule from '../scripts/lib/n8n-runtime';
import * as localModule from '../scripts/lib/local-setup';
import * as helpersModule from '../test/e2e/helpers';
import { fmt, median, percentile, recordSection } from './results';

type Json = Record<string, any>;
const rt: Json = runtimeModule;
const local: Json = localModule;
const { postSigned, writeBackPayload }: Json = helpersModule;

const SEQUENTIAL = 60;
const PARALLEL = 160;
const IN_FLIGHT = 8;
const RECORDED_KEYS = 100_000;
const EXAMPLE_SCOPE = 'writeBack:5d0c4c3e-7b61-4c1f-9a57-2f2b4b0e0a04';

/** Example 4 with its trigger on version 2, which keeps no record (so no record credential). */
function exampleOnTriggerV2(): Json {
	const example = rt.loadExamples().find((e: Json) => e.workflow.id === 'ccExWriteBack');
	const workflow = rt.localVariant(example.workflow);
	workflow.id = 'benchWriteBackV2';
	workflow.name = 'Bench: example 4 on trigger version 2';
	for (const node of rt.triggerNodes(workflow)) {
		node.typeVersion = 2;
		node.webhookId = '7a3f1c52-2b9e-4d61-8c0a-5e4b9d2f1a70';
		delete node.credentials.contactCenterRecordApi;
	}
	return workflow;
}

describe('Issue 19: the durable write back record in one n8n process, 0 against 100,000 keys', () => {
	let stack: Json;
	let v2Url = '';
	const userFolder = path.join(rt.REPO_ROOT, '.n8n-local', 'bench-record');

	beforeAll(async () => {
		fs.rmSync(userFolder, { recursive: true, force: true });
		stack = await local.startStack({
			userFolder,
			n8nPort: 0,
			simulatorPort: 0,
			log: () => {},
			extraWorkflows: [exampleOnTriggerV2()],
		});
		await rt.activateWorkflow(stack.instance, 'benchWriteBackV2');
		let hook: Json | undefined;
		for (let attempt = 0; attempt < 80 && !hook; attempt++) {
			hook = (await rt.registeredWebhooks(stack.instance)).find(
				(r: Json) => r.workflowId === 'benchWriteBackV2',
			);
			if (!hook) await rt.sleep(250);
		}
		if (!hook) throw new Error('the version 2 workflow registered no webhook');
		await rt.waitForWebhook(hook.url);
		v2Url = hook.url;
	}, 900_000);
	afterAll(async () => await stack?.stop(), 120_000);

	const dbBytes = () =>
		['database.sqlite', 'database.sqlite-wal']
			.map((f) => path.join(userFolder, '.n8n', f))
			.reduce((n, f) => n + (fs.existsSync(f) ? fs.statSync(f).size : 0), 0);

	async function phase(label: string, withKeys: boolean, triggerV2 = false) {
		const url = triggerV2
			? v2Url
			: stack.webhooks.find((w: Json) => w.endpoint === 'writeBack').url;
		const secret = stack.secrets.writeBack;
		let n = 0;
		const deliverOne = async () => {
			const key = `${label}-${Date.now()}-${n++}`;
			const body = writeBackPayload(key, `conv-${key}`);
			if (!withKeys) delete body.idempotencyKey;
			const started = performance.now();
			const res = await postSigned(url, body, { secret });
			if (res.status !== 200) throw new Error(`${label}: ${res.status} ${res.text}`);
			return performance.now() - started;
		};
		for (let i = 0; i < 10; i++) await deliverOne();
		const bytesBefore = dbBytes();
		const latencies: number[] = [];
		for (let i = 0; i < SEQUENTIAL; i++) latencies.push(await deliverOne());
		const bytesPerCall = (dbBytes() - bytesBefore) / SEQUENTIAL;
		let sent = 0;
		const started = performance.now();
		await Promise.all(
			Array.from({ length: IN_FLIGHT }, async () => {
				while (sent++ < PARALLEL) await deliverOne();
			}),
		);
		const perSecond = PARALLEL / ((performance.now() - started) / 1000);
		return {
			label,
			p50: median(latencies),
			p95: percentile(latencies, 95),
			perSecond,
			bytesPerCall,
		};
	}

	it('measures', async () => {
		const keyless0 = await phase('nokey-empty', false);
		const keyed0 = await phase('key-empty', true);
		const keyedV2 = await phase('key-v2', true, true);
		const tables = await rt.publicApi(stack.instance, 'GET', '/data-tables?limit=100');
		const table = tables.data.find((t: Json) => t.name === local.RECORD_TABLE_NAME);
		const now = Date.now();
		for (let from = 0; from < RECORDED_KEYS; from += 5000) {
			const data = Array.from({ length: 5000 }, (_, j) => ({
				scope: EXAMPLE_SCOPE,
				recordKey: `${EXAMPLE_SCOPE}|loaded-${now}-${from + j}`,
				state: 'done',
				stateAt: now - Math.round(((from + j) / RECORDED_KEYS) * 71 * 3600 * 1000),
				detail: '',
			}));
			await rt.publicApi(stack.instance, 'POST', `/data-tables/${table.id}/rows`, { data });
		}
		const keyed100k = await phase('key-full', true);
		const keyless100k = await phase('nokey-full', false);
		const runs = [keyless0, keyed0, keyedV2, keyed100k, keyless100k];
		console.log(runs);
		const row = (r: Json) =>
			`p50 ${fmt(r.p50)} ms, p95 ${fmt(r.p95)} ms one at a time; ${fmt(r.perSecond)} per second with ${IN_FLIGHT} in flight; database grew ${fmt(r.bytesPerCall / 1024)} KiB per delivery`;
		const keylessRate = (keyless0.perSecond + keyless100k.perSecond) / 2;
		recordSection({
			id: 'record',
			title: '5. Write back record in one n8n process: 0 against 100,000 recorded keys (issue 19)',
			method: `One n8n ${rt.N8N_VERSION} (SQLite, executions saved), example 4's workflow (trigger version 3, respond afterSuccess, data table upsert). Each phase: 10 warm-up deliveries, ${SEQUENTIAL} one at a time (latency; the SQLite files' growth divided by the deliveries), then ${PARALLEL} with ${IN_FLIGHT} in flight (throughput). Order: without keys, with keys (record empty of them), with keys through the same workflow on trigger version 2 (imported beside it, the version before the record: ledger in static data, claim in memory), ${RECORDED_KEYS.toLocaleString('en')} done rows inserted for the trigger, with keys, without keys. Every delivery distinct and answered 200.`,
			figures: [
				{ name: 'Without idempotency keys, record empty', value: row(keyless0) },
				{ name: 'With keys, record empty', value: row(keyed0) },
				{ name: 'With keys, trigger version 2 (before the record)', value: row(keyedV2) },
				{
					name: `With keys, ${RECORDED_KEYS.toLocaleString('en')} keys recorded`,
					value: row(keyed100k),
				},
				{
					name: `Without keys, ${RECORDED_KEYS.toLocaleString('en')} keys recorded`,
					value: row(keyless100k),
				},
				{
					name: 'Latency p50 with keys, 100,000 recorded / empty',
					value: `${(keyed100k.p50 / keyed0.p50).toFixed(2)}x`,
				},
				{
					name: 'Database growth per delivery with keys, 100,000 recorded / empty',
					value: `${(keyed100k.bytesPerCall / Math.max(1, keyed0.bytesPerCall)).toFixed(2)}x`,
				},
				{
					name: 'With keys, record empty / trigger version 2: latency p50, throughput',
					value: `${(keyed0.p50 / keyedV2.p50).toFixed(2)}x, ${(keyed0.perSecond / keyedV2.perSecond).toFixed(2)}x`,
				},
				{
					name: 'Throughput with keys / without keys (mean of both phases each)',
					value: `${((keyed0.perSecond + keyed100k.perSecond) / 2 / keylessRate).toFixed(2)}x`,
				},
			],
			raw: runs,
			n8nVersion: rt.N8N_VERSION,
		});
	});
});
