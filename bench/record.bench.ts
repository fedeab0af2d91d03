/* eslint-disable no-console, @n8n/community-nodes/no-restricted-imports -- benchmarks run in jest on a developer machine, never inside n8n */
/**
 * The write back record in one n8n process: the write back trigger (example 4's workflow, respond
 * afterSuccess) with the durable record empty of its keys and then holding 100,000 keys, side by
 * side with the same deliveries without idempotency keys (only the exactly-once work differs). Per
 * phase: deliveries one at a time (latency) and 8 in flight (throughput), and how much n8n's SQLite
 * database grew per delivery.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

import { e2e, local, rt, stackForSuite, type Json } from './localStack';
import { fmt, median, percentile, recordSection } from './results';

const { postSigned, writeBackPayload } = e2e;

const WARM_UP = 5;
const SEQUENTIAL = 30;
const PARALLEL = 60;
const IN_FLIGHT = 8;
/** Rounds per state of the record; each round runs every kind of delivery once, in turn. */
const ROUNDS = 3;
const RECORDED_KEYS = 100_000;
const EXAMPLE_SCOPE = 'writeBack:5d0c4c3e-7b61-4c1f-9a57-2f2b4b0e0a04';

describe('The durable write back record in one n8n process, 0 against 100,000 keys', () => {
	const suite = stackForSuite('bench-record');

	const dbBytes = () =>
		['database.sqlite', 'database.sqlite-wal']
			.map((f) => path.join(suite.userFolder, '.n8n', f))
			.reduce((n, f) => n + (fs.existsSync(f) ? fs.statSync(f).size : 0), 0);

	async function phase(label: string, withKeys: boolean) {
		const url = suite.stack.webhooks.find((w: Json) => w.endpoint === 'writeBack').url;
		const secret = suite.stack.secrets.writeBack;
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
		for (let i = 0; i < WARM_UP; i++) await deliverOne();
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
		return { label, latencies, perSecond, bytesPerCall };
	}

	type Kind = { name: string; withKeys: boolean };
	type Measured = Awaited<ReturnType<typeof phase>>;

	/**
	 * ROUNDS rounds; each runs one phase of every kind in turn (the first kind first in odd rounds,
	 * last in even ones), so that a drift of the machine falls on every kind alike.
	 */
	async function rounds(state: string, kinds: Kind[]) {
		const byKind = new Map<string, Measured[]>(kinds.map((k) => [k.name, []]));
		for (let round = 0; round < ROUNDS; round++) {
			const order = round % 2 === 0 ? kinds : [...kinds].reverse();
			for (const kind of order)
				byKind.get(kind.name)!.push(await phase(`${state}-${kind.name}-${round}`, kind.withKeys));
		}
		const summary = (runs: Measured[]) => {
			const latencies = runs.flatMap((r) => r.latencies);
			return {
				p50: median(latencies),
				p95: percentile(latencies, 95),
				perSecond: median(runs.map((r) => r.perSecond)),
				// SQLite grows its files in steps, so a phase's growth is often 0: the mean of all rounds.
				bytesPerCall: runs.reduce((n, r) => n + r.bytesPerCall, 0) / runs.length,
				rounds: runs.map((r) => ({
					p50: median(r.latencies),
					perSecond: r.perSecond,
					bytesPerCall: r.bytesPerCall,
				})),
			};
		};
		return Object.fromEntries([...byKind].map(([name, runs]) => [name, summary(runs)])) as Record<
			string,
			ReturnType<typeof summary>
		>;
	}

	/**
	 * Single public API calls, one at a time, p50 of 60 after 10 warm-ups: what the record's read
	 * of one key (check) and its insert of one row (finish) cost, beside an insert into another,
	 * small data table that has nothing to do with the record.
	 */
	async function apiCalls(recordTableId: string, otherTableId: string, label: string) {
		const timed = async (call: (i: number) => Promise<unknown>) => {
			const times: number[] = [];
			for (let i = 0; i < 70; i++) {
				const started = performance.now();
				await call(i);
				if (i >= 10) times.push(performance.now() - started);
			}
			return median(times);
		};
		const rows = (id: string) => `/data-tables/${id}/rows`;
		const keyFilter = (i: number) =>
			JSON.stringify({
				type: 'and',
				filters: [
					{ columnName: 'recordKey', condition: 'eq', value: `${EXAMPLE_SCOPE}|${label}-${i}` },
				],
			});
		return {
			readOneKey: await timed(
				async (i) =>
					await rt.publicApi(
						suite.stack.instance,
						'GET',
						`${rows(recordTableId)}?${new URLSearchParams({ filter: keyFilter(i), limit: '250' })}`,
					),
			),
			insertRecordRow: await timed(
				async (i) =>
					await rt.publicApi(suite.stack.instance, 'POST', rows(recordTableId), {
						data: [
							{
								scope: EXAMPLE_SCOPE,
								recordKey: `${EXAMPLE_SCOPE}|${label}-${i}`,
								state: 'done',
								stateAt: Date.now(),
								detail: '',
							},
						],
						returnType: 'id',
					}),
			),
			insertOtherTableRow: await timed(
				async (i) =>
					await rt.publicApi(suite.stack.instance, 'POST', rows(otherTableId), {
						data: [{ note: `${label}-${i}` }],
						returnType: 'id',
					}),
			),
		};
	}

	it('measures', async () => {
		const keyless: Kind = { name: 'keyless', withKeys: false };
		const keyed: Kind = { name: 'keyed', withKeys: true };
		const empty = await rounds('empty', [keyless, keyed]);
		const tables = await rt.publicApi(suite.stack.instance, 'GET', '/data-tables?limit=100');
		const table = tables.data.find((t: Json) => t.name === local.RECORD_TABLE_NAME);
		const other = await rt.publicApi(suite.stack.instance, 'POST', '/data-tables', {
			name: 'bench_unrelated',
			columns: [{ name: 'note', type: 'string' }],
		});
		const calls0 = await apiCalls(table.id, other.id, 'api-empty');
		const bytesBeforeLoad = dbBytes();
		const now = Date.now();
		const loadedPrefix = `${EXAMPLE_SCOPE}|loaded-${now}-`;
		for (let from = 0; from < RECORDED_KEYS; from += 5000) {
			const data = Array.from({ length: 5000 }, (_, j) => ({
				scope: EXAMPLE_SCOPE,
				recordKey: `${loadedPrefix}${from + j}`,
				state: 'done',
				stateAt: now - Math.round(((from + j) / RECORDED_KEYS) * 71 * 3600 * 1000),
				detail: '',
			}));
			await rt.publicApi(suite.stack.instance, 'POST', `/data-tables/${table.id}/rows`, { data });
		}
		const bytesPerRecordedKey = (dbBytes() - bytesBeforeLoad) / RECORDED_KEYS;
		const calls100k = await apiCalls(table.id, other.id, 'api-full');
		const full = await rounds('full', [keyless, keyed]);
		// The same again with the loaded rows deleted: a drift of the machine over the run shows
		// as a difference between the two empty states.
		await rt.publicApi(
			suite.stack.instance,
			'DELETE',
			`/data-tables/${table.id}/rows/delete?${new URLSearchParams({
				filter: JSON.stringify({
					type: 'and',
					filters: [{ columnName: 'recordKey', condition: 'like', value: `${loadedPrefix}%` }],
				}),
			})}`,
		);
		const left = await rt.publicApi(
			suite.stack.instance,
			'GET',
			`/data-tables/${table.id}/rows?${new URLSearchParams({
				filter: JSON.stringify({
					type: 'and',
					filters: [{ columnName: 'recordKey', condition: 'like', value: `${loadedPrefix}%` }],
				}),
				limit: '1',
			})}`,
		);
		if (left.data.length > 0) throw new Error('the loaded rows were not deleted');
		const emptyAgain = await rounds('emptyAgain', [keyless, keyed]);
		const runs = { empty, full, emptyAgain, calls0, calls100k, bytesPerRecordedKey };
		console.log(JSON.stringify(runs, null, 1));
		const row = (r: Json) =>
			`p50 ${fmt(r.p50)} ms, p95 ${fmt(r.p95)} ms one at a time; ${fmt(r.perSecond)} per second with ${IN_FLIGHT} in flight; database grew ${fmt(r.bytesPerCall / 1024)} KiB per delivery`;
		const callRow = (calls: Json) =>
			`read one key's rows ${fmt(calls.readOneKey)} ms, insert one record row ${fmt(calls.insertRecordRow)} ms, insert one row into another small data table ${fmt(calls.insertOtherTableRow)} ms`;
		const bothEmpty = (kind: string, field: string) =>
			((empty[kind] as Json)[field] + (emptyAgain[kind] as Json)[field]) / 2;
		const keyedCost = (state: Json, field: string) => state.keyed[field] / state.keyless[field];
		recordSection({
			id: 'record',
			title: 'Write back record in one n8n process: 0 against 100,000 recorded keys',
			command:
				'flock /tmp/e2e.lock npx jest --selectProjects bench --runInBand --testTimeout=1800000 bench/record.bench.ts',
			method: `One n8n ${rt.N8N_VERSION} (SQLite, executions saved), example 4's workflow (respond afterSuccess, data table upsert). A phase: ${WARM_UP} warm-up deliveries, ${SEQUENTIAL} one at a time (latency; the SQLite files' growth divided by the deliveries), then ${PARALLEL} with ${IN_FLIGHT} in flight (throughput). Three states of the record, each measured in ${ROUNDS} rounds that run one phase of every kind in turn (order reversed every other round); figures are the p50/p95 of all rounds' latencies and the median of their rates. Kinds: without keys, and with keys (the record holds none of them). States: empty; ${RECORDED_KEYS.toLocaleString('en')} done rows inserted for the trigger; the same rows deleted again (empty again, which shows any drift of the machine over the run). Single API calls from the benchmark, p50 of 60 after 10 warm-ups, before and after the rows were inserted. Every delivery distinct and answered 200.`,
			figures: [
				{ name: 'Empty: without idempotency keys', value: row(empty.keyless) },
				{ name: 'Empty: with keys', value: row(empty.keyed) },
				{
					name: `${RECORDED_KEYS.toLocaleString('en')} keys recorded: without keys`,
					value: row(full.keyless),
				},
				{
					name: `${RECORDED_KEYS.toLocaleString('en')} keys recorded: with keys`,
					value: row(full.keyed),
				},
				{ name: 'Empty again: without keys', value: row(emptyAgain.keyless) },
				{ name: 'Empty again: with keys', value: row(emptyAgain.keyed) },
				{
					name: 'Latency p50 with keys, 100,000 recorded / empty (mean of both empty states)',
					value: `${(full.keyed.p50 / bothEmpty('keyed', 'p50')).toFixed(2)}x`,
				},
				{
					name: 'Latency p50 without keys (no record call), 100,000 recorded / empty',
					value: `${(full.keyless.p50 / bothEmpty('keyless', 'p50')).toFixed(2)}x`,
				},
				{
					name: 'Latency p50 with keys / without keys: empty, 100,000 recorded, empty again',
					value: [empty, full, emptyAgain]
						.map((st) => `${keyedCost(st, 'p50').toFixed(2)}x`)
						.join(', '),
				},
				{
					name: 'Throughput with keys / without keys: empty, 100,000 recorded, empty again',
					value: [empty, full, emptyAgain]
						.map((st) => `${keyedCost(st, 'perSecond').toFixed(2)}x`)
						.join(', '),
				},
				{
					name: 'Single public API calls (p50 of 60, one at a time), record empty',
					value: callRow(calls0),
				},
				{
					name: `Single public API calls, ${RECORDED_KEYS.toLocaleString('en')} keys recorded`,
					value: callRow(calls100k),
				},
				{
					name: 'Database growth per recorded key (the 100,000 rows inserted in pages of 5,000)',
					value: `${fmt(bytesPerRecordedKey)} bytes`,
				},
				{
					name: 'Database growth per delivery with keys, 100,000 recorded / empty',
					value: `${(full.keyed.bytesPerCall / Math.max(1, empty.keyed.bytesPerCall)).toFixed(2)}x`,
				},
			],
			raw: runs,
			n8nVersion: rt.N8N_VERSION,
		});
	});
});
