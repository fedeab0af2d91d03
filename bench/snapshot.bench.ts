/* eslint-disable no-console -- benchmarks print their figures; they run in jest on a developer machine, never inside n8n */
/**
 * Metric -> Get Snapshot (all 8 metrics, called concurrently) against one
 * Metric -> Get call, with the simulator adding 100 ms to every answer. Wall time of the whole node
 * execution in n8n-core's ExecuteContext, median of 10 runs each, the two kinds alternated.
 */
import type { INodeParameters } from 'n8n-workflow';

import { createCredentialStore, type CredentialStore } from '../test/harness';
import { runContactCenter } from '../test/integration/contactCenterFixture';
import { startSimulator, type Simulator } from '../test/simulator';
import { fmt, median, recordSection } from './results';

const LATENCY_MS = 100;
const RUNS = 10;

const SNAPSHOT: INodeParameters = { resource: 'metric', operation: 'getSnapshot' };
const SINGLE: INodeParameters = { resource: 'metric', operation: 'get', metric: 'handleTime' };

describe('Metric Get Snapshot against one Metric Get', () => {
	let sim: Simulator;
	let credentials: CredentialStore;

	beforeAll(async () => {
		sim = await startSimulator({ latencyMs: LATENCY_MS });
		credentials = createCredentialStore({
			contactCenterOAuth2Api: {
				baseUrl: sim.url,
				clientId: 'sim-client-id',
				clientSecret: 'sim-client-secret',
			},
		});
	});
	afterAll(async () => await sim?.stop());

	it('measures wall times', async () => {
		const timed = async (parameters: INodeParameters) => {
			const before = sim.requests.length;
			const started = performance.now();
			const { json, error } = await runContactCenter(credentials, parameters);
			const ms = performance.now() - started;
			if (error) throw error;
			return {
				ms,
				calls: sim.requests.length - before,
				columns: Object.keys(json[0] ?? {}).length,
			};
		};
		// Warm-up: the token (fetched once, then reused) and module caches.
		await timed(SINGLE);
		await timed(SNAPSHOT);

		const single: number[] = [];
		const snapshot: number[] = [];
		let snapshotCalls = 0;
		for (let run = 0; run < RUNS; run++) {
			single.push((await timed(SINGLE)).ms);
			const s = await timed(SNAPSHOT);
			snapshot.push(s.ms);
			snapshotCalls = s.calls;
		}
		const ratio = median(snapshot) / median(single);
		console.log({ single, snapshot, ratio, snapshotCalls });
		recordSection({
			id: 'snapshot',
			title: 'Metric Get Snapshot against one metric call',
			command:
				'npx jest --selectProjects bench --runInBand --testTimeout=1800000 bench/snapshot.bench.ts',
			method: `Simulator latency ${LATENCY_MS} ms on every answer; token fetched before timing. Wall time of one node execution (n8n-core's ExecuteContext, one input item), ${RUNS} runs of each kind alternated, medians compared. Single call: Metric -> Get (Handle Time). Snapshot: Metric -> Get Snapshot with all 8 metrics (${snapshotCalls} service calls per run, run concurrently).`,
			figures: [
				{
					name: 'One Metric Get: median wall time',
					value: `${fmt(median(single))} ms (min ${fmt(Math.min(...single))}, max ${fmt(Math.max(...single))})`,
				},
				{
					name: 'Get Snapshot, 8 metrics: median wall time',
					value: `${fmt(median(snapshot))} ms (min ${fmt(Math.min(...snapshot))}, max ${fmt(Math.max(...snapshot))})`,
				},
				{
					name: 'Snapshot / single call',
					value: `${ratio.toFixed(2)}x`,
					target: '≤ 1.3x',
					met: ratio <= 1.3,
				},
				{
					name: 'Sequential calls would take at least',
					value: `${snapshotCalls * LATENCY_MS} ms (${snapshotCalls} x ${LATENCY_MS} ms)`,
				},
			],
		});
	});
});
