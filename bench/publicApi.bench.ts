/* eslint-disable no-console, @typescript-eslint/no-explicit-any, @n8n/community-nodes/no-restricted-imports -- benchmarks run in jest on a developer machine, never inside n8n */
/**
 * What one call to n8n's public API costs the n8n process that serves it, the floor of
 * the one-process write back (each new delivery's `done` row goes out in such a call, shared by the
 * deliveries that gather for it). n8n's CPU time per call (user + system of its process, every
 * thread, from /proc) for a read of one table row, a list of one table, and inserts of 1, 2, 4 and
 * 8 record rows in one call; with the data table nearly empty, then holding 100,000 rows.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

import { RECORD_COLUMNS } from '../nodes/shared/once';
import * as localModule from '../scripts/lib/local-setup';
import * as runtimeModule from '../scripts/lib/n8n-runtime';
import { fmt, median, recordSection, type Figure } from './results';

type Json = Record<string, any>;
const rt: Json = runtimeModule;
const local: Json = localModule;

const CALLS = 150;
const WARM_UP = 10;
const ROUNDS = 3;
const FILLED_ROWS = 100_000;
const SCOPE = 'writeBack:3a1c9e4d-28aa-4c31-9d0e-000000000028';
/** Clock ticks per second of /proc's CPU times on Linux (sysconf(_SC_CLK_TCK)). */
const TICKS_PER_SECOND = 100;

const log = (message: string) => console.log(`[bench] ${message}`);

/** CPU time (user + system, all threads) the process has used, in ms. */
function cpuMsOf(pid: number): number {
	const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
	return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}

let rowCounter = 0;
const recordRow = () => ({
	scope: SCOPE,
	recordKey: `${SCOPE}|bench-${Date.now()}-${rowCounter++}`,
	state: 'done',
	stateAt: Date.now(),
	detail: '',
});

describe("What one call to n8n's public API costs n8n", () => {
	let instance: Json | undefined;
	const userFolder = path.join(rt.REPO_ROOT, '.n8n-local', 'bench-public-api');
	afterAll(async () => {
		if (instance) await rt.stopServer(instance).catch(() => undefined);
	}, 120_000);

	it('reads, lists and inserts of 1 to 8 rows, table empty and holding 100,000 rows', async () => {
		fs.rmSync(userFolder, { recursive: true, force: true });
		const runtime = await rt.installRuntime({ log });
		const n8n: Json = await rt.createInstance(runtime, { userFolder });
		instance = n8n;
		await rt.startServer(n8n, { log });
		await rt.setupAccess(n8n, local.DEFAULT_OWNER);
		const pid: number = n8n.server.child.pid;
		const dataTable = await local.ensureDataTable(n8n, {
			name: local.RECORD_TABLE_NAME,
			columns: RECORD_COLUMNS,
		});
		const rowsUrl = `${n8n.baseUrl}/api/v1/data-tables/${dataTable.id}/rows`;
		const headers = { 'X-N8N-API-KEY': n8n.apiKey, 'content-type': 'application/json' };
		const call = async (url: string, init: RequestInit = {}) => {
			const res = await fetch(url, { ...init, headers });
			if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
			await res.json();
		};
		const insert = (rows: number) => () =>
			call(rowsUrl, {
				method: 'POST',
				body: JSON.stringify({ data: Array.from({ length: rows }, recordRow), returnType: 'id' }),
			});
		const kinds: Array<[string, () => Promise<void>]> = [
			['read one row (GET rows, limit 1)', () => call(`${rowsUrl}?limit=1`)],
			[
				'list one data table (GET data-tables, limit 1)',
				() => call(`${n8n.baseUrl}/api/v1/data-tables?limit=1`),
			],
			['insert 1 row', insert(1)],
			['insert 2 rows', insert(2)],
			['insert 4 rows', insert(4)],
			['insert 8 rows', insert(8)],
		];

		/** Median over rotated rounds of n8n's CPU ms and the wall ms per call, one call at a time. */
		async function measure(state: string) {
			const cpu = new Map(kinds.map(([label]) => [label, [] as number[]]));
			const wall = new Map(kinds.map(([label]) => [label, [] as number[]]));
			for (const [, run] of kinds) for (let i = 0; i < WARM_UP; i++) await run();
			for (let round = 0; round < ROUNDS; round++) {
				for (let k = 0; k < kinds.length; k++) {
					const [label, run] = kinds[(k + round) % kinds.length];
					const cpuStart = cpuMsOf(pid);
					const start = performance.now();
					for (let i = 0; i < CALLS; i++) await run();
					const wallMs = (performance.now() - start) / CALLS;
					const cpuMs = (cpuMsOf(pid) - cpuStart) / CALLS;
					cpu.get(label)!.push(cpuMs);
					wall.get(label)!.push(wallMs);
					log(
						`${state} round ${round + 1} ${label}: ${fmt(cpuMs, 1)} ms CPU, ${fmt(wallMs, 1)} ms`,
					);
				}
			}
			return Object.fromEntries(
				kinds.map(([label]) => [
					label,
					{ cpu: median(cpu.get(label)!), wall: median(wall.get(label)!), rounds: cpu.get(label)! },
				]),
			) as Record<string, { cpu: number; wall: number; rounds: number[] }>;
		}

		const empty = await measure('table empty');
		for (let from = 0; from < FILLED_ROWS; from += 5000)
			await rt.publicApi(n8n, 'POST', `/data-tables/${dataTable.id}/rows`, {
				data: Array.from({ length: 5000 }, recordRow),
			});
		const filled = await measure('100,000 rows');

		const figures: Figure[] = [];
		const table = [
			'| call | n8n CPU per call, table empty | per row | n8n CPU per call, 100,000 rows | per row |',
			'|---|---|---|---|---|',
		];
		for (const [label] of kinds) {
			const rows = Number(/insert (\d+)/.exec(label)?.[1] ?? 1);
			table.push(
				`| ${label} | ${fmt(empty[label].cpu, 1)} ms (wall ${fmt(empty[label].wall, 1)} ms) | ${fmt(empty[label].cpu / rows, 1)} ms | ${fmt(filled[label].cpu, 1)} ms (wall ${fmt(filled[label].wall, 1)} ms) | ${fmt(filled[label].cpu / rows, 1)} ms |`,
			);
			for (const [state, s] of [
				['table empty', empty],
				['100,000 rows', filled],
			] as const)
				figures.push({
					name: `${state}: ${label}`,
					value: `${fmt(s[label].cpu, 1)} ms of n8n CPU per call (rounds ${s[label].rounds.map((r) => fmt(r, 1)).join(', ')}), ${fmt(s[label].wall, 1)} ms per call`,
				});
		}
		figures.unshift(
			{
				name: 'Insert of 8 rows / insert of 1 row, n8n CPU per call (table empty; 100,000 rows)',
				value: `${fmt(empty['insert 8 rows'].cpu / empty['insert 1 row'].cpu)}x; ${fmt(filled['insert 8 rows'].cpu / filled['insert 1 row'].cpu)}x`,
			},
			{
				name: 'Insert of 1 row / list of one data table, n8n CPU per call (table empty; 100,000 rows)',
				value: `${fmt(empty['insert 1 row'].cpu / empty['list one data table (GET data-tables, limit 1)'].cpu)}x; ${fmt(filled['insert 1 row'].cpu / filled['list one data table (GET data-tables, limit 1)'].cpu)}x`,
			},
			{
				name: 'Insert of 1 row, 100,000 rows / table empty, n8n CPU per call',
				value: `${fmt(filled['insert 1 row'].cpu / empty['insert 1 row'].cpu)}x`,
			},
		);
		recordSection({
			id: 'public-api-cost',
			title: "What one call to n8n's public API costs n8n",
			command:
				'flock /tmp/e2e.lock npx jest --selectProjects bench --runInBand --testTimeout=1800000 bench/publicApi.bench.ts',
			method: `One n8n ${runtime.version}, SQLite, nothing else running in it; one data table with the record's columns. Calls one at a time with fetch and the owner's API key: ${WARM_UP} warm-up calls of each kind, then ${ROUNDS} rounds of ${CALLS} calls per kind with the order rotated. n8n CPU = user + system time of n8n's process (every thread, SQLite's included) from /proc over the calls, per call; median of the rounds. Then ${FILLED_ROWS.toLocaleString('en')} record rows added (20 calls of 5,000) and the same again.`,
			table: table,
			figures,
			n8nVersion: runtime.version,
			raw: { empty, filled },
		});
	});
});
