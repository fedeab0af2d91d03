/* eslint-disable @typescript-eslint/no-explicit-any -- benchmarks run in jest on a developer machine, never inside n8n; JSON of n8n's public API and the plain JavaScript queue-mode library are untyped */
/**
 * The queue-mode busy hour with and without idempotency keys, side by side in one queue-mode stack
 * (main, 2 webhook processes, 2 workers, PostgreSQL, Redis): 48 write backs with distinct keys a
 * round, 12 in flight over both webhook processes, the slow write back fixture of
 * test/e2e/queueMode.e2e.test.ts with no delay, and the same load with the idempotency key left
 * out (same workflow and respond mode). A warm-up of each kind, then three rounds, the order
 * alternated. Figures: rate and latency of each kind, CPU per delivery by part of the stack, and
 * PostgreSQL's counters of the record's table. These rounds were part of the queue-mode e2e suite
 * until that suite kept only what it checks (one keyed busy hour: every delivery answered 200
 * processed, run once and in the record).
 */
import * as queueModule from '../scripts/lib/queue-mode';
import * as localModule from '../scripts/lib/local-setup';
import * as e2eHelpersModule from '../test/e2e/helpers';
import * as queueHelpersModule from '../test/e2e/queue-helpers';
import { log, rt, writeBackAnswer, writeBackPayload, x } from './harness';
import { recordSection, type Figure } from './results';

type Json = Record<string, any>;
const qm: Json = queueModule;
const local: Json = localModule;
const { readFixture, SLOW_WRITE_BACK_TABLE }: Json = e2eHelpersModule;
const { queueStateDir, stackCpuMs }: Json = queueHelpersModule;

const SLOW_WRITE_BACK: Json = readFixture('write-back-slow.json');
const ROUNDS = 3;
const DELIVERIES = 48;
const IN_FLIGHT = 12;
const WARM_UP = 24;

interface Load {
	rate: number;
	p50: number;
	p95: number;
	cpuMs: Record<string, number>;
	count: number;
	answers: Record<string, number>;
}

describe('queue mode: the busy hour with and without idempotency keys', () => {
	let stack: Json | undefined;
	afterAll(async () => await stack?.stop(), 120_000);

	it('write backs with distinct keys beside the same load without keys, in one queue-mode stack, rounds alternated', async () => {
		const stateDir = await queueStateDir({ log });
		const startedAt = Date.now();
		stack = await qm.startQueueStack({
			stateDir,
			extraWorkflows: [SLOW_WRITE_BACK],
			activate: [SLOW_WRITE_BACK.id],
			dataTables: [SLOW_WRITE_BACK_TABLE],
			log,
		});
		const stackStartS = Math.round((Date.now() - startedAt) / 1000);
		const hooks: string[] = stack!.urlsOf(SLOW_WRITE_BACK.id);
		const stamp = Date.now();

		/** One load: `count` deliveries with distinct keys (or none), IN_FLIGHT at a time, alternating webhook processes. */
		async function load(label: string, withKeys: boolean, count = DELIVERIES): Promise<Load> {
			const answers: Record<string, number> = {};
			const latencies: number[] = [];
			let next = 0;
			const cpuBefore = stackCpuMs(stack);
			const started = Date.now();
			await Promise.all(
				Array.from({ length: IN_FLIGHT }, async () => {
					for (let i = next++; i < count; i = next++) {
						const key = `bench-keys-${stamp}-${label}-${i}`;
						const payload = writeBackPayload(key, `conv-${key}`, { slowMs: 0 });
						if (!withKeys) delete payload.idempotencyKey;
						const sent = Date.now();
						const answer = await writeBackAnswer(hooks[i % 2], payload);
						latencies.push(Date.now() - sent);
						answers[answer] = (answers[answer] ?? 0) + 1;
					}
				}),
			);
			const seconds = (Date.now() - started) / 1000;
			const cpuAfter = stackCpuMs(stack);
			const cpuMs: Record<string, number> = {};
			for (const part of Object.keys(cpuAfter)) cpuMs[part] = cpuAfter[part] - cpuBefore[part];
			const sorted = [...latencies].sort((a, b) => a - b);
			const at = (q: number) =>
				sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
			log(`${label}: ${(count / seconds).toFixed(2)} deliveries/s ${JSON.stringify(answers)}`);
			return { rate: count / seconds, p50: at(0.5), p95: at(0.95), cpuMs, count, answers };
		}

		/** PostgreSQL's counters of the record's data table: scans, rows inserted, updated, deleted. */
		async function recordTableStatistics(): Promise<Json> {
			const tables = await rt.publicApi(stack!.main, 'GET', '/data-tables?limit=100');
			const table = (tables.data as Json[]).find((t) => t.name === local.RECORD_TABLE_NAME);
			if (!table) throw new Error('no record data table');
			const [row] = await qm.queryPostgres(
				stack!.pg,
				`SELECT seq_scan, idx_scan, n_tup_ins, n_tup_upd, n_tup_del FROM pg_stat_user_tables WHERE relname = 'data_table_user_${table.id}'`,
			);
			return row ?? {};
		}

		await load('warm-nokey', false, WARM_UP);
		await load('warm-key', true, WARM_UP);
		// PostgreSQL 15 publishes an idle backend's table statistics within 10 s (PGSTAT_IDLE_INTERVAL).
		await rt.sleep(11_000);
		const recordStatsBefore = await recordTableStatistics();
		const keyed: Load[] = [];
		const keyless: Load[] = [];
		for (let round = 0; round < ROUNDS; round++) {
			const pair = [
				async () => keyless.push(await load(`nokey-${round}`, false)),
				async () => keyed.push(await load(`key-${round}`, true)),
			];
			if (round % 2 === 1) pair.reverse();
			for (const run of pair) await run();
		}
		await rt.sleep(11_000);
		const recordStats = await recordTableStatistics();

		const summary = (runs: Load[]) =>
			JSON.stringify({
				perSecond: runs.map((r) => Number(r.rate.toFixed(2))),
				p50Ms: runs.map((r) => r.p50),
				p95Ms: runs.map((r) => r.p95),
			});
		const rate = (runs: Load[]) => runs.reduce((n, r) => n + r.rate, 0) / runs.length;
		const p95 = (runs: Load[]) => runs.reduce((n, r) => n + r.p95, 0) / runs.length;
		const cpuPerDelivery = (runs: Load[]) => {
			const deliveries = runs.reduce((n, r) => n + r.count, 0);
			const out: Record<string, number> = {};
			for (const part of Object.keys(runs[0].cpuMs))
				out[part] = Math.round(runs.reduce((n, r) => n + r.cpuMs[part], 0) / deliveries);
			out.all = Object.values(out).reduce((n, v) => n + v, 0);
			return out;
		};
		const keyedCpu = cpuPerDelivery(keyed);
		const keylessCpu = cpuPerDelivery(keyless);
		const perKeyed = (column: string) =>
			(
				(Number(recordStats[column]) - Number(recordStatsBefore[column])) /
				(ROUNDS * DELIVERIES)
			).toFixed(2);
		const tally = (runs: Load[]) => {
			const out: Record<string, number> = {};
			for (const r of runs)
				for (const [answer, n] of Object.entries(r.answers)) out[answer] = (out[answer] ?? 0) + n;
			return out;
		};
		const figures: Figure[] = [
			{
				name: `with idempotency keys (${ROUNDS} rounds of ${DELIVERIES}, ${IN_FLIGHT} in flight)`,
				value: summary(keyed),
			},
			{ name: 'without idempotency keys, same workflow and respond mode', value: summary(keyless) },
			{
				name: 'deliveries per second, keyed / keyless',
				value: x(rate(keyed) / rate(keyless)),
				target: '≥ 0.90x',
				met: rate(keyed) / rate(keyless) >= 0.9,
			},
			{
				name: 'p95 latency, keyed / keyless',
				value: x(p95(keyed) / p95(keyless)),
				target: '≤ 1.15x',
				met: p95(keyed) / p95(keyless) <= 1.15,
			},
			{
				name: 'CPU ms per delivery by part of the stack, with keys',
				value: JSON.stringify(keyedCpu),
			},
			{
				name: 'CPU ms per delivery by part of the stack, without keys',
				value: JSON.stringify(keylessCpu),
			},
			{
				name: 'CPU per delivery, without keys / with keys (the rate ratio the CPU allows on a CPU-bound machine)',
				value: x(keylessCpu.all / keyedCpu.all),
			},
			{
				name: `record table work per delivery with a key (PostgreSQL statistics over the ${ROUNDS} rounds)`,
				value: JSON.stringify({
					sequentialScans: perKeyed('seq_scan'),
					indexScans: perKeyed('idx_scan'),
					rowsInserted: perKeyed('n_tup_ins'),
					rowsUpdated: perKeyed('n_tup_upd'),
					rowsDeleted: perKeyed('n_tup_del'),
				}),
			},
			{ name: 'answers with keys', value: JSON.stringify(tally(keyed)) },
			{ name: 'answers without keys', value: JSON.stringify(tally(keyless)) },
		];
		recordSection({
			id: 'queue-keys',
			title: 'Queue-mode busy hour, with and without idempotency keys',
			command:
				'flock /tmp/e2e.lock npx jest --selectProjects bench --runInBand --testTimeout=3600000 bench/queueModeKeys.bench.ts',
			method: `One n8n ${rt.N8N_VERSION} queue-mode stack (main, 2 webhook processes, 2 workers, PostgreSQL 15, Redis 7; scripts/lib/queue-mode.js, stack up in ${stackStartS} s). The trigger (respond after the workflow succeeds) starts the slow write back fixture of the queue-mode e2e suite without delay (a Code node, then a data table insert). A busy hour: ${DELIVERIES} signed write backs, ${IN_FLIGHT} in flight, alternately to the two webhook processes, each awaited for its answer, with distinct idempotency keys or with the key left out. ${WARM_UP} warm-up deliveries of each kind, then ${ROUNDS} rounds of one busy hour per kind, the order alternated every round. CPU read from /proc for each part of the stack with its child processes; the record's table counters from pg_stat_user_tables, read 11 s after the load (PostgreSQL publishes them within 10 s).`,
			figures,
			n8nVersion: rt.N8N_VERSION,
			raw: { keyed, keyless },
		});
		expect(Object.keys(tally(keyed))).toEqual(['200 processed']);
		expect(Object.keys(tally(keyless))).toEqual(['200 processed']);
	});
});
