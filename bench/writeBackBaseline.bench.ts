/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- benchmarks run in jest on a developer machine, never inside n8n */
/**
 * Trigger speed side by side with baseline commits: the write back in one n8n process, this
 * package against the package of each commit of BENCH_WRITE_BACK_BASELINE (built from git, its
 * package and credential names suffixed so all load side by side in the same n8n), with n8n's core
 * Webhook node and the minimal community trigger in the same rounds; with the default engine and
 * with lazy isolate acquisition; with the record empty and holding BENCH_WRITE_BACK_RECORDED_KEYS keys.
 *
 * BENCH_WRITE_BACK_BASELINE: the commits, comma-separated (default main). BENCH_WRITE_BACK_REQUESTS:
 * requests per target and round (default 300). BENCH_WRITE_BACK_RECORDED_KEYS: done rows added for
 * the second state (default 100,000; 0: the record empty only).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Pool } from 'undici';

import {
	baselineCommits,
	benchOwner,
	benchWorkflow,
	CC,
	ensureBuilt,
	installPackages,
	load,
	loadAverage,
	log,
	MINIMAL,
	n8nNodeOptions,
	n8nVersionOf,
	packBaseline,
	registeredPaths,
	rt,
	SECRET,
	summarise,
	x,
	type Baseline,
	type Instance,
	type LoadResult,
	type Summary,
} from './harness';
import { fmt, recordSection, type Figure } from './results';

const CONCURRENCY = 8;
const ROUNDS = 3;
const WARM_UP = 24;
const REQUESTS = Number(process.env.BENCH_WRITE_BACK_REQUESTS ?? '300') || 300;
const RECORDED_KEYS = Number(process.env.BENCH_WRITE_BACK_RECORDED_KEYS ?? '100000');
const RECORD_TABLE = 'contact_center_record';
/** 'core', 'min2', 'head', and 'base0', 'base1', … for the baseline commits in their order. */
type Target = string;
const HEAD_WEBHOOK_ID = '3a1c9e4d-28aa-4c31-9d0e-0000000000ed';
const baseWebhookId = (i: number) => `3a1c9e4d-28aa-4c31-9d0e-0000000${i}ba5e`;
const SIGNING_CREDENTIAL = {
	id: 'ccBenchSecret',
	name: 'Bench signing secret',
	type: 'contactCenterSigningSecretApi',
};

describe('Trigger speed: write back in one n8n process against baseline commits', () => {
	let instance: Instance | undefined;
	let passed = false;
	const userFolder = path.join(rt.REPO_ROOT, '.n8n-local', 'bench-v3');
	afterAll(async () => {
		if (instance) await rt.stopServer(instance).catch(() => undefined);
		// Kept after a failure, for its n8n log.
		if (passed) fs.rmSync(userFolder, { recursive: true, force: true });
	}, 120_000);

	it('core Webhook, minimal trigger, the baselines and this package: default and lazy isolates, record empty and full', async () => {
		const commits = await baselineCommits('BENCH_WRITE_BACK_BASELINE', 'main');
		const bases = commits.map((_, i) => `base${i}`);
		const TARGETS: Target[] = ['core', 'min2', ...bases, 'head'];
		const labels: Record<Target, string> = {
			core: "n8n's core Webhook node",
			min2: 'minimal community trigger',
			...Object.fromEntries(bases.map((b, i) => [b, `Contact Center Trigger on ${commits[i]}`])),
			head: 'Contact Center Trigger, this package',
		};
		fs.rmSync(userFolder, { recursive: true, force: true });
		const [runtime] = await Promise.all([rt.installRuntime({ log }), ensureBuilt()]);
		const baselines: Baseline[] = [];
		for (const commit of commits)
			baselines.push(await packBaseline(commit, path.join(userFolder, 'pack')));
		instance = await rt.createInstance(runtime, { userFolder });
		await installPackages(userFolder, runtime, baselines);
		const baselineSecrets = baselines.map((baseline, i) => ({
			...SIGNING_CREDENTIAL,
			id: `ccBenchSecretBase${i}`,
			type: baseline.credentialType(SIGNING_CREDENTIAL.type),
		}));
		await rt.importCredentials(instance, [
			{ ...SIGNING_CREDENTIAL, data: { secret: SECRET } },
			...baselineSecrets.map((secret) => ({ ...secret, data: { secret: SECRET } })),
		]);
		const trigger = (i: number | 'head') => ({
			name: 'Contact Center Trigger',
			type:
				i === 'head' ? `${CC}.contactCenterTrigger` : baselines[i].nodeType('contactCenterTrigger'),
			// Each package's trigger at its own default version: a commit's may differ from this package's.
			typeVersion: i === 'head' ? 1.1 : baselines[i].typeVersion('contactCenterTrigger'),
			parameters: { endpoint: 'writeBack', respond: 'immediately' },
			webhookId: i === 'head' ? HEAD_WEBHOOK_ID : baseWebhookId(i),
		});
		const nodesOf: Record<Target, Array<Record<string, unknown>>> = {
			core: [
				{
					name: 'Webhook',
					type: 'n8n-nodes-base.webhook',
					typeVersion: 2.1,
					parameters: { httpMethod: 'POST', path: 'bench-core-webhook', options: {} },
				},
			],
			min2: [
				{ name: 'Minimal', type: `${MINIMAL}.minimalTrigger`, typeVersion: 2, parameters: {} },
			],
			...Object.fromEntries(bases.map((b, i) => [b, [trigger(i)]])),
			head: [trigger('head')],
		};
		const workflowId = (t: Target) => `ccBenchV3${t[0].toUpperCase()}${t.slice(1)}`;
		const workflows = TARGETS.map((t) =>
			benchWorkflow(workflowId(t), `bench v3: ${labels[t]}`, nodesOf[t]),
		);
		let recordTableId = '';
		let paths: Record<Target, string> | undefined;
		let n8nVersion = runtime.version;
		let access: { apiKey?: string; cookie?: string } = {};
		const loads: number[] = [];

		let port: number | undefined;
		const start = async (extraEnv: Record<string, string>) => {
			// The same port at every start: the record credentials hold the API URL.
			instance = await rt.createInstance(runtime, {
				userFolder,
				port,
				extraEnv: { ...extraEnv, ...n8nNodeOptions() },
			});
			port = instance.port;
			Object.assign(instance, access);
			await rt.startServer(instance, { log });
			const loadError = rt.packageLoadError(instance);
			if (loadError) throw new Error(loadError);
			loads.push(await loadAverage());
		};

		async function rounds(pool: Pool, setting: string, label: string) {
			const url = (t: Target) => `${instance!.baseUrl}${paths![t]}`;
			for (const t of TARGETS) await load(pool, url(t), 'writeBack', WARM_UP, CONCURRENCY);
			const results = {} as Record<Target, LoadResult[]>;
			for (let round = 0; round < ROUNDS; round++) {
				const order = TARGETS.map((_, i) => TARGETS[(i + round) % TARGETS.length]);
				for (const t of round % 2 === 0 ? order : [...order].reverse()) {
					const result = await load(pool, url(t), 'writeBack', REQUESTS, CONCURRENCY);
					(results[t] ??= []).push(result);
					log(
						`${setting} ${label} round ${round + 1} ${t}: ${fmt((result.requests / result.ms) * 1000)} req/s ${JSON.stringify(result.statuses)}`,
					);
				}
			}
			return Object.fromEntries(TARGETS.map((t) => [t, summarise(results[t])])) as Record<
				Target,
				Summary
			>;
		}

		async function fillRecord() {
			const now = Date.now();
			const scope = `writeBack:${HEAD_WEBHOOK_ID}`;
			for (let from = 0; from < RECORDED_KEYS; from += 5000) {
				const data = Array.from({ length: Math.min(5000, RECORDED_KEYS - from) }, (_, j) => ({
					scope,
					recordKey: `${scope}|recorded-${now}-${from + j}`,
					state: 'done',
					stateAt: now - Math.round(((from + j) / RECORDED_KEYS) * 71 * 3600 * 1000),
					detail: '',
				}));
				await rt.publicApi(instance!, 'POST', `/data-tables/${recordTableId}/rows`, { data });
			}
		}

		async function routed() {
			for (const t of TARGETS) {
				if (!(await rt.waitForWebhook(`${instance!.baseUrl}${paths![t]}`)))
					throw new Error(`${t}: webhook not routed after the start`);
			}
		}

		async function firstStart() {
			await rt.setupAccess(instance!, benchOwner);
			access = { apiKey: instance!.apiKey, cookie: instance!.cookie };
			const recordCredential = async (type: string, name: string) =>
				await rt.publicApi(instance!, 'POST', '/credentials', {
					name,
					type,
					data: {
						baseUrl: `${instance!.baseUrl}/api/v1`,
						apiKey: access.apiKey,
						dataTableName: RECORD_TABLE,
					},
				});
			const sides = [
				...baselines.map((baseline, i) => ({
					target: bases[i],
					secret: baselineSecrets[i],
					recordType: baseline.credentialType('contactCenterRecordApi'),
					recordName: `Record ${baseline.commit}`,
				})),
				{
					target: 'head',
					secret: SIGNING_CREDENTIAL,
					recordType: 'contactCenterRecordApi',
					recordName: 'Record',
				},
			];
			for (const side of sides) {
				const record = await recordCredential(side.recordType, side.recordName);
				workflows[TARGETS.indexOf(side.target)].nodes[0].credentials = {
					[side.secret.type]: { id: side.secret.id, name: side.secret.name },
					[side.recordType]: { id: record.id, name: record.name },
				};
			}
			await rt.importWorkflows(instance!, workflows);
			for (const wf of workflows) await rt.activateWorkflow(instance!, wf.id);
			const byId = await registeredPaths(
				instance!,
				workflows.map((wf) => wf.id),
			);
			paths = Object.fromEntries(TARGETS.map((t) => [t, byId[workflowId(t)]])) as Record<
				Target,
				string
			>;
			// n8n 2.41 activates in the background: the trigger's activation creates the table.
			for (let tries = 0; tries < 120 && !recordTableId; tries++) {
				const tables = await rt.publicApi(instance!, 'GET', '/data-tables?limit=100');
				recordTableId =
					tables.data.find((t: { name: string }) => t.name === RECORD_TABLE)?.id ?? '';
				if (!recordTableId) await rt.sleep(500);
			}
			if (!recordTableId) throw new Error('the record table was not created by the activation');
			n8nVersion = await n8nVersionOf(instance!);
		}

		async function emptyRecord() {
			await rt.publicApi(
				instance!,
				'DELETE',
				`/data-tables/${recordTableId}/rows/delete?${new URLSearchParams({
					filter: JSON.stringify({
						type: 'and',
						filters: [{ columnName: 'id', condition: 'gt', value: 0 }],
					}),
				})}`,
			);
		}

		async function engine(setting: string, extraEnv: Record<string, string>) {
			await start(extraEnv);
			if (paths === undefined) await firstStart();
			else await emptyRecord();
			await routed();
			let pool = new Pool(instance!.baseUrl, { connections: CONCURRENCY, pipelining: 1 });
			try {
				const empty = await rounds(pool, setting, 'record empty');
				if (RECORDED_KEYS === 0) return { setting, empty };
				const filledAt = performance.now();
				await fillRecord();
				const fillMs = performance.now() - filledAt;
				await pool.close();
				await rt.stopServer(instance!);
				// n8n started with the keys in the record: the first delivery starts the index load.
				await start(extraEnv);
				await routed();
				pool = new Pool(instance!.baseUrl, { connections: CONCURRENCY, pipelining: 1 });
				const loadStartedAt = performance.now();
				let indexLine: string | undefined;
				while (indexLine === undefined && performance.now() - loadStartedAt < 300_000) {
					await load(pool, `${instance!.baseUrl}${paths!.head}`, 'writeBack', 1, 1);
					await rt.sleep(500);
					indexLine = rt
						.readLog(instance!)
						.split('\n')
						.find((line: string) => line.includes("loaded into this process's index"));
				}
				const full = await rounds(pool, setting, 'record full');
				return {
					setting,
					empty,
					full: { states: full, fillMs, indexLine: indexLine ?? 'not logged' },
				};
			} finally {
				await pool.close();
				await rt.stopServer(instance!);
			}
		}

		const defaults = await engine('default engine', {});
		const lazy = await engine('N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true', {
			N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE: 'true',
		});
		instance = undefined;

		const keys = RECORDED_KEYS.toLocaleString('en');
		type States = Record<Target, Summary>;
		/** Each engine setting's states: the record empty, then (unless 0 keys) holding the keys. */
		const statesOf = (e: typeof defaults): Array<[string, States]> => [
			['record empty', e.empty],
			...(e.full ? [[`${keys} keys`, e.full.states] as [string, States]] : []),
		];
		const rps = (s: States, t: Target) => s[t].rps;
		const ratio = (s: States, t: Target, to: Target) => rps(s, t) / rps(s, to);
		const cell = (s: States, t: Target) =>
			`${fmt(rps(s, t))} req/s, p50 ${fmt(s[t].p50)} ms (${x(ratio(s, t, 'min2'))} minimal, ${x(ratio(s, t, 'core'))} core)`;
		const columns = [defaults, lazy].flatMap((e, i) =>
			statesOf(e).map(([state]) => `${i === 0 ? 'default engine' : 'lazy isolates'}, ${state}`),
		);
		const table = [
			`Throughput, ${CONCURRENCY} in flight, distinct keys, respond immediately, median of ${ROUNDS} rotated rounds of ${REQUESTS} (ratios to the minimal community trigger and to the core Webhook node in the same rounds):`,
			'',
			`| | ${columns.join(' | ')} |`,
			`|---|${columns.map(() => '---|').join('')}`,
			...TARGETS.map(
				(t) =>
					`| ${labels[t]} | ${[defaults, lazy].flatMap((e) => statesOf(e).map(([, s]) => cell(s, t))).join(' | ')} |`,
			),
		];
		const figures: Figure[] = [];
		for (const e of [defaults, lazy]) {
			for (const [state, s] of statesOf(e)) {
				for (const [i, base] of bases.entries()) {
					const same = ratio(s, 'head', base);
					// The packages run back to back in every round: each round's ratio shows the spread.
					const perRound = s.head.rounds.map((r, round) => x(r / s[base].rounds[round]));
					figures.push({
						name: `${e.setting}, ${state}: this package / ${commits[i]}, throughput in the same rounds`,
						value: `${x(same)} (${fmt(rps(s, 'head'))} / ${fmt(rps(s, base))} req/s; per round ${perRound.join(', ')})`,
						target: '≥ 0.95x',
						met: same >= 0.95,
					});
				}
			}
		}
		/** The same figure for each baseline, e.g. "(2fab142: 0.70x, e39331c: 0.24x)". */
		const goal = (
			name: string,
			of: (t: Target) => number,
			target: string,
			meets: (value: number) => boolean,
		) =>
			figures.push({
				name,
				value: `${x(of('head'))} (${bases.map((b, i) => `${commits[i]}: ${x(of(b))}`).join(', ')})`,
				target,
				met: meets(of('head')),
			});
		goal(
			'Default engine, record empty: write back / minimal community trigger',
			(t) => ratio(defaults.empty, t, 'min2'),
			'≥ 0.95x',
			(v) => v >= 0.95,
		);
		goal(
			"Lazy isolates, record empty: write back / n8n's core Webhook",
			(t) => ratio(lazy.empty, t, 'core'),
			'≥ 0.75x',
			(v) => v >= 0.75,
		);
		for (const e of [defaults, lazy]) {
			const full = e.full;
			if (!full) continue;
			// Against the minimal trigger in the same rounds, so that a change of machine load between the two states cancels out.
			const through = (t: Target) => ratio(full.states, t, 'min2') / ratio(e.empty, t, 'min2');
			const p50 = (t: Target) =>
				full.states[t].p50 / full.states.min2.p50 / (e.empty[t].p50 / e.empty.min2.p50);
			goal(
				`${e.setting}: ${keys} keys / record empty, throughput (each relative to the minimal trigger in its rounds)`,
				through,
				'≥ 0.9x',
				(v) => v >= 0.9,
			);
			goal(
				`${e.setting}: ${keys} keys / record empty, p50 latency (each relative to the minimal trigger in its rounds)`,
				p50,
				'≤ 1.1x',
				(v) => v <= 1.1,
			);
			figures.push({
				name: `${e.setting}: ${keys} done rows added through the public API, then n8n restarted; the index load n8n logged after the first delivery`,
				value: `${fmt(full.fillMs / 1000)} s; ${full.indexLine.replace(/^.*Contact Center record: /, '')}`,
			});
		}
		for (const e of [defaults, lazy]) {
			for (const [state, s] of statesOf(e)) {
				for (const t of TARGETS)
					figures.push({
						name: `${e.setting}, ${state}: ${labels[t]}`,
						value: `${fmt(s[t].rps)} req/s (rounds ${s[t].rounds.map((r) => fmt(r, 1)).join(', ')}; p50 ${fmt(s[t].p50)} ms, p99 ${fmt(s[t].p99)} ms; statuses ${JSON.stringify(s[t].statuses)})`,
					});
			}
		}
		const knobs = [
			`BENCH_WRITE_BACK_BASELINE=${commits.join(',')}`,
			...(REQUESTS === 300 ? [] : [`BENCH_WRITE_BACK_REQUESTS=${REQUESTS}`]),
			...(RECORDED_KEYS === 100_000 ? [] : [`BENCH_WRITE_BACK_RECORDED_KEYS=${RECORDED_KEYS}`]),
		];
		recordSection({
			id: 'write-back-baseline',
			title: `Trigger speed: write back in one n8n process against ${commits.join(' and ')}`,
			command: `flock /tmp/e2e.lock env ${knobs.join(' ')} npx jest --selectProjects bench --runInBand --testTimeout=1800000 bench/writeBackBaseline.bench.ts`,
			method: `One n8n ${n8nVersion}, SQLite, executions saved. Installed as community packages together: this package, the package of ${commits.length === 1 ? 'commit' : 'each of the commits'} ${commits.join(' and ')} (built from git by the benchmark, package and credential type names suffixed so that all load side by side, each trigger at its own default node version), and the minimal community trigger fixture. ${TARGETS.length} active workflows: n8n's core Webhook node, the minimal community trigger, and the Contact Center Trigger write back of each package (respond immediately, each with its own record credential on the same n8n's public API, all in one data table). ${CONCURRENCY} in flight with undici, distinct keys, ${WARM_UP} warm-up calls per target and state, then ${ROUNDS} rounds of ${REQUESTS} per target with the order rotated (and reversed every other round${REQUESTS < 300 ? `; rounds of ${REQUESTS} rather than 300 so that the run finishes on the shared 2-core machine while others run tests` : ''}); req/s = median of the rounds, p50 over all calls. Each engine setting: the record emptied, measured${RECORDED_KEYS === 0 ? ' (the record empty only)' : `; then ${keys} done rows of this package's trigger's scope added through the public API (stateAt spread over 71 hours), n8n restarted, deliveries until n8n logged the index loaded, measured again`}. n8n with its default expression engine, then with N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true. Load average (1 min) at each n8n start: ${loads.map((l) => fmt(l, 1)).join(', ')}.`,
			table,
			figures,
			n8nVersion,
			raw: { commits, defaults, lazy },
		});
		passed = true;
	});
});
