/* eslint-disable @typescript-eslint/no-explicit-any, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- benchmarks run in jest on a developer machine, never inside n8n; JSON of n8n's public API and the plain JavaScript queue-mode library are untyped */
/**
 * The queue-mode busy hour of test/e2e/queueMode.e2e.test.ts (write backs with distinct keys, 48 a
 * round, 12 in flight over both webhook processes, the slow write back fixture with no delay),
 * this package side by side with the package of a baseline commit in ONE queue-mode stack (main,
 * 2 webhook processes, 2 workers, PostgreSQL, Redis): the baseline is built from git and installed
 * beside this package under suffixed names (bench/harness.ts packBaseline), its workflow the same
 * fixture on its own trigger and credentials, both recording into the same data table. Rounds
 * alternate which package goes first. The harness relies only on the workflow JSON (the trigger's
 * node type) and HTTP.
 *
 * BENCH_QUEUE_BASELINE: the commit to compare with (default: main). BENCH_QUEUE_ROUNDS: rounds
 * (default 6).
 */
import * as path from 'node:path';

import * as queueModule from '../scripts/lib/queue-mode';
import * as localModule from '../scripts/lib/local-setup';
import * as e2eHelpersModule from '../test/e2e/helpers';
import * as queueHelpersModule from '../test/e2e/queue-helpers';
import {
	baselineCommit,
	loadAverage,
	log,
	packBaseline,
	rt,
	SECRET,
	writeBackAnswer,
	writeBackPayload,
	x,
} from './harness';
import { fmt, median, percentile, recordSection, type Figure } from './results';

type Json = Record<string, any>;
const qm: Json = queueModule;
const local: Json = localModule;
const { readFixture, SLOW_WRITE_BACK_TABLE }: Json = e2eHelpersModule;
const { queueStateDir }: Json = queueHelpersModule;

const ROUNDS = Number(process.env.BENCH_QUEUE_ROUNDS ?? '6') || 6;
const DELIVERIES = 48;
const IN_FLIGHT = 12;
const WARM_UP = 24;

const SLOW_WRITE_BACK: Json = readFixture('write-back-slow.json');
const TRIGGER_TYPE = 'contactCenterTrigger';

type Side = 'head' | 'base';

interface Round {
	side: Side;
	rate: number;
	p50: number;
	p95: number;
	answers: Record<string, number>;
}

/** The fixture on the baseline package's trigger, with the baseline's credentials. */
function baselineWorkflow(
	baseline: Awaited<ReturnType<typeof packBaseline>>,
	credentials: Record<string, { id: string; name: string }>,
): Json {
	const workflow: Json = JSON.parse(JSON.stringify(SLOW_WRITE_BACK));
	for (const node of workflow.nodes as Json[]) {
		if (!String(node.type).endsWith(`.${TRIGGER_TYPE}`)) continue;
		node.type = baseline.nodeType(TRIGGER_TYPE);
		// The fixture's typeVersion is this package's; the commit's trigger may have had another.
		node.typeVersion = baseline.typeVersion(TRIGGER_TYPE);
		node.webhookId = 'e2e00000-0000-4000-8000-0000000000b1';
		node.credentials = credentials;
	}
	return {
		name: `bench: slow write back on ${baseline.commit}`,
		nodes: workflow.nodes,
		connections: workflow.connections,
		settings: { executionOrder: 'v1' },
	};
}

describe('queue mode: the busy hour side by side with a baseline commit', () => {
	let stack: Json | undefined;
	afterAll(async () => await stack?.stop(), 120_000);

	it('write backs with distinct keys, this package and the baseline in one queue-mode stack, rounds alternated', async () => {
		const commit = await baselineCommit('BENCH_QUEUE_BASELINE', 'main');
		const stateDir = await queueStateDir({ log });
		const baseline = await packBaseline(commit, path.join(stateDir, 'baseline-pack'));
		const startedAt = Date.now();
		stack = await qm.startQueueStack({
			stateDir,
			extraWorkflows: [SLOW_WRITE_BACK],
			activate: [SLOW_WRITE_BACK.id],
			dataTables: [SLOW_WRITE_BACK_TABLE],
			extraTarballs: [baseline.tarball],
			log,
		});
		const stackStartS = Math.round((Date.now() - startedAt) / 1000);
		const main = stack!.main;
		for (const p of stack!.all()) {
			const loadError = rt.packageLoadError(p);
			if (loadError) throw new Error(`${p.name}: ${loadError}`);
		}

		const secretCredential = await rt.publicApi(main, 'POST', '/credentials', {
			name: `Write back secret ${commit}`,
			type: baseline.credentialType('contactCenterSigningSecretApi'),
			data: { [local.signingSecretField() ?? 'secret']: SECRET },
		});
		const recordCredential = await rt.publicApi(main, 'POST', '/credentials', {
			name: `Record ${commit}`,
			type: baseline.credentialType('contactCenterRecordApi'),
			data: {
				baseUrl: `${main.baseUrl}/api/v1`,
				apiKey: main.apiKey,
				dataTableName: local.RECORD_TABLE_NAME,
			},
		});
		const created = await rt.publicApi(
			main,
			'POST',
			'/workflows',
			baselineWorkflow(baseline, {
				[baseline.credentialType('contactCenterSigningSecretApi')]: {
					id: secretCredential.id,
					name: secretCredential.name,
				},
				[baseline.credentialType('contactCenterRecordApi')]: {
					id: recordCredential.id,
					name: recordCredential.name,
				},
			}),
		);
		await rt.activateWorkflow(main, created.id);
		let row: Json | undefined;
		for (let tries = 0; tries < 80 && !row; tries++) {
			row = (await qm.registeredWebhooks(stack!.pg)).find((r: Json) => r.workflowId === created.id);
			if (!row) await rt.sleep(250);
		}
		if (!row) throw new Error(`the ${commit} workflow registered no webhook`);
		const urls: Record<Side, string[]> = {
			head: stack!.urlsOf(SLOW_WRITE_BACK.id),
			base: stack!.webhookProcesses.map((p: Json) => `${p.baseUrl}/webhook/${row!.webhookPath}`),
		};
		for (const url of urls.base) await qm.waitForRoute(url);

		const stamp = Date.now();
		/** One busy hour: `count` deliveries with distinct keys, IN_FLIGHT at a time, alternating webhook processes. */
		async function busyHour(side: Side, label: string, count: number): Promise<Round> {
			const answers: Record<string, number> = {};
			const latencies: number[] = [];
			let next = 0;
			const started = performance.now();
			await Promise.all(
				Array.from({ length: IN_FLIGHT }, async () => {
					for (let i = next++; i < count; i = next++) {
						const key = `bench-${side}-${stamp}-${label}-${i}`;
						const sent = performance.now();
						const answer = await writeBackAnswer(
							urls[side][i % 2],
							writeBackPayload(key, `conv-${key}`, { slowMs: 0 }),
						);
						latencies.push(performance.now() - sent);
						answers[answer] = (answers[answer] ?? 0) + 1;
					}
				}),
			);
			const seconds = (performance.now() - started) / 1000;
			const round = {
				side,
				rate: count / seconds,
				p50: median(latencies),
				p95: percentile(latencies, 95),
				answers,
			};
			log(`${label} ${side}: ${fmt(round.rate, 2)} deliveries/s ${JSON.stringify(answers)}`);
			return round;
		}

		const loads = [await loadAverage()];
		await busyHour('head', 'warm-up', WARM_UP);
		await busyHour('base', 'warm-up', WARM_UP);
		const rounds: Round[] = [];
		for (let round = 0; round < ROUNDS; round++) {
			const order: Side[] = round % 2 === 0 ? ['head', 'base'] : ['base', 'head'];
			for (const side of order) rounds.push(await busyHour(side, `round ${round + 1}`, DELIVERIES));
		}
		loads.push(await loadAverage());

		const of = (side: Side) => rounds.filter((r) => r.side === side);
		const rate = (side: Side) => median(of(side).map((r) => r.rate));
		const p95 = (side: Side) => median(of(side).map((r) => r.p95));
		const tally = (side: Side) => {
			const out: Record<string, number> = {};
			for (const r of of(side))
				for (const [answer, n] of Object.entries(r.answers)) out[answer] = (out[answer] ?? 0) + n;
			return out;
		};
		const perRoundRatios = of('head').map((r, i) => r.rate / of('base')[i].rate);
		const label: Record<Side, string> = {
			head: 'this package',
			base: `the package of ${commit}`,
		};
		const figures: Figure[] = [
			{
				name: 'Deliveries per second, this package / baseline (medians of the rounds)',
				value: `${x(rate('head') / rate('base'))} (per round ${perRoundRatios.map((r) => x(r)).join(', ')})`,
				target: '≥ 1.00x (no slower)',
				met: rate('head') / rate('base') >= 1,
			},
			{
				name: 'p95 latency, this package / baseline (medians of the rounds)',
				value: x(p95('head') / p95('base')),
			},
			...(['head', 'base'] as const).flatMap((side) => [
				{
					name: `${label[side]}: deliveries per second`,
					value: `${fmt(rate(side), 2)} (rounds ${of(side)
						.map((r) => fmt(r.rate, 2))
						.join(', ')})`,
				},
				{
					name: `${label[side]}: p50 / p95 latency`,
					value: `${fmt(median(of(side).map((r) => r.p50)), 0)} / ${fmt(p95(side), 0)} ms`,
				},
				{ name: `${label[side]}: answers`, value: JSON.stringify(tally(side)) },
			]),
		];
		recordSection({
			id: 'queue-busy-hour',
			title: `Queue-mode busy hour, this package against ${commit}`,
			command: `flock /tmp/e2e.lock env BENCH_QUEUE_BASELINE=${commit}${ROUNDS === 6 ? '' : ` BENCH_QUEUE_ROUNDS=${ROUNDS}`} npx jest --selectProjects bench --runInBand --testTimeout=3600000 bench/queueMode.bench.ts`,
			method: `One n8n ${rt.N8N_VERSION} queue-mode stack (main, 2 webhook processes, 2 workers, PostgreSQL 15, Redis 7; scripts/lib/queue-mode.js, stack up in ${stackStartS} s) with this package and the package of ${commit} (built from git, names suffixed) installed in every process. Each package's trigger (respond after the workflow succeeds) starts the slow write back fixture of the queue-mode e2e suite without delay (a Code node, then a data table insert), each with its own signing secret and record credential, both recording into one data table. A busy hour: ${DELIVERIES} signed write backs with distinct idempotency keys, ${IN_FLIGHT} in flight, alternately to the two webhook processes, each awaited for its answer. ${WARM_UP} warm-up deliveries each, then ${ROUNDS} rounds of one busy hour per package, the order alternated every round; figures are medians of the rounds. Load average (1 min) before and after the rounds: ${loads.map((l) => fmt(l, 1)).join(', ')}; compare the two packages, not runs.`,
			figures,
			n8nVersion: rt.N8N_VERSION,
			raw: { commit, rounds },
		});
		for (const side of ['head', 'base'] as const)
			expect(Object.keys(tally(side))).toEqual(['200 processed']);
	});
});
