/* eslint-disable no-console, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- benchmarks run in jest on a developer machine, never inside n8n: they read /proc and sample on a timer */
/**
 * Send Once at its default (recorded in n8n's own deduplication store) against Send Once Off, in
 * one real n8n (one process, SQLite), 5,000 contacts at 50 sends per second, then in a fresh n8n at
 * 20: the share of the limit, the makespans, n8n's peak memory during each, the first campaign of
 * the fresh n8n, and a rerun that skips every contact.
 */
import * as fs from 'node:fs';

import { activateWhenStarted, campaignFigures, runCampaign } from './campaignRun';
import { e2e, rt, stackForSuite, type Json } from './localStack';
import { fmt, pct, recordSection } from './results';

const { readFixture } = e2e;

/** Sends per second the simulator accepts: the two rates, each in a fresh n8n. */
const RATES = [50, 20];
const CAMPAIGN = 5000;
const FIRST = 100;

type Mode = 'off' | 'message';

function campaignWorkflow(mode: Mode): Json {
	const workflow = readFixture('send-campaign-defaults.json');
	workflow.id = `ccBenchN8nStore${mode === 'off' ? 'Off' : 'On'}`;
	workflow.name = `Bench: Send Once ${mode} (n8n store)`;
	for (const node of workflow.nodes) {
		if (node.type.endsWith('.webhook')) {
			node.parameters.path = `bench-n8n-store-${mode}`;
			node.webhookId = `5e1d0000-0000-4000-8000-0000000${mode === 'off' ? 'cb01' : 'cb02'}`;
		}
		if (node.type.endsWith('.contactCenter')) {
			if (mode === 'off') node.parameters.sendOnce = 'off';
			node.parameters.options.includeSendDetails = false;
		}
	}
	return workflow;
}

/** n8n's resident memory in MB, from /proc. */
function rssMb(pid: number): number {
	const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
	return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

interface Round {
	mode: Mode;
	count: number;
	share: number;
	makespanMs: number;
	peakRssMb: number;
	baseRssMb: number;
	twice: number;
	lost: number;
	longestGaps: Array<{ ms: number; before: number }>;
}

describe.each(RATES)(
	`Send Once in n8n's store at %i/s, ${CAMPAIGN} contacts, in n8n ${rt.N8N_VERSION}`,
	(LIMIT) => {
		const workflows = { off: campaignWorkflow('off'), message: campaignWorkflow('message') };
		const rounds: Round[] = [];
		let campaigns = 0;
		let rerunMs = 0;
		const suite = stackForSuite(`bench-n8n-store-${LIMIT}`, {
			simulatorOptions: { sendRateLimit: { limit: LIMIT, windowMs: 1000 }, settleAfterMs: 0 },
			extraWorkflows: Object.values(workflows),
		});

		activateWhenStarted(suite, Object.values(workflows));

		let last: Json | undefined;
		/** A campaign of new contacts, or with `again` the last one once more (every contact already sent). */
		async function campaign(mode: Mode, count: number, again = false): Promise<Round> {
			await rt.sleep(1500);
			campaigns++;
			const c = again
				? last!
				: {
						campaign: `bench-${Date.now()}-${campaigns}`,
						prefix: String(20 + campaigns),
						count,
						rate: LIMIT,
						period: 1,
					};
			last = c;
			const pid: number = suite.stack.instance.server.child.pid;
			const baseRssMb = rssMb(pid);
			let peakRssMb = baseRssMb;
			const sampler = setInterval(() => {
				peakRssMb = Math.max(peakRssMb, rssMb(pid));
			}, 200);
			const run = await runCampaign(
				suite,
				workflows[mode].id,
				`bench-n8n-store-${mode}`,
				c,
				900_000,
			).finally(() => clearInterval(sampler));
			const { twice, contacts, share, makespanMs, longestGaps } = campaignFigures(run, LIMIT, 1000);
			const round: Round = {
				mode,
				count,
				share,
				makespanMs,
				peakRssMb,
				baseRssMb,
				twice,
				lost: again ? 0 : count - contacts,
				longestGaps,
			};
			console.log(round);
			return round;
		}

		it('the first Send Once campaign of the fresh n8n', async () => {
			rounds.push(await campaign('message', FIRST));
		}, 600_000);

		it(`${CAMPAIGN} contacts with Send Once off, then at its default, then that campaign again`, async () => {
			rounds.push(await campaign('off', CAMPAIGN));
			const on = await campaign('message', CAMPAIGN);
			rounds.push(on);
			const started = Date.now();
			// The same contacts, the same text: every one is skipped.
			const again = await campaign('message', CAMPAIGN, true);
			expect(again.twice + (again.share > 0 ? 1 : 0)).toBe(0);
			rerunMs = again.makespanMs;
			console.log({ rerunMs, wall: Date.now() - started });
		}, 1_800_000);

		it('records the figures', () => {
			const [first, off, on] = rounds;
			const ratio = on.makespanMs / off.makespanMs;
			const memoryBound = 1.25 * off.peakRssMb + 64;
			recordSection({
				id: LIMIT === 50 ? 'send-once-n8n-store' : `send-once-n8n-store-${LIMIT}`,
				title: `Send Once in n8n's own store at ${LIMIT} per second, 5,000 contacts`,
				command:
					'npx jest --selectProjects bench --runInBand --testTimeout=1800000 bench/sendOnceN8nStore.bench.ts',
				method: `n8n ${rt.N8N_VERSION} in one process (SQLite), this package installed from its build; the simulator's limit ${LIMIT} sends per second (429 with Retry-After beyond it). The e2e suites' campaign workflow with its Send node at its defaults (Send Once on, Record Sends In: n8n) and a copy with Send Once Off, ${CAMPAIGN} contacts each, one after the other in one n8n, after a first campaign of ${FIRST} contacts on the fresh n8n. Share = (accepted - 1) / ((last accept - first accept) x limit), from the simulator's log; makespan = the execution's start to stop as n8n lists it; memory = n8n's main process resident set (/proc VmRSS) sampled every 200 ms during the campaign, beside its value at the campaign's start. The rerun sends the ${CAMPAIGN}-contact campaign again: every contact is skipped.`,
				figures: [
					{
						name: 'First Send Once campaign of a fresh n8n: share of the limit',
						value: pct(first.share),
						target: '≥ 90 %',
						met: first.share >= 0.9,
					},
					{ name: 'Send Once off: share of the limit', value: pct(off.share) },
					{
						name: 'Send Once on (n8n store): share of the limit',
						value: pct(on.share),
						target: '≥ 95 %',
						met: on.share >= 0.95,
					},
					{
						name: 'Makespan, off / on',
						value: `${fmt(off.makespanMs / 1000, 1)} s / ${fmt(on.makespanMs / 1000, 1)} s (${fmt(ratio, 3)}x)`,
						target: '≤ 1.10x',
						met: ratio <= 1.1,
					},
					{
						name: "n8n's peak memory, off / on (at the start)",
						value: `${fmt(off.peakRssMb, 0)} MB (${fmt(off.baseRssMb, 0)}) / ${fmt(on.peakRssMb, 0)} MB (${fmt(on.baseRssMb, 0)})`,
						target: `on ≤ 1.25 x off + 64 MB = ${fmt(memoryBound, 0)} MB`,
						met: on.peakRssMb <= memoryBound,
					},
					{
						name: `Rerun of the ${CAMPAIGN} contacts, all skipped`,
						value: `${fmt(rerunMs / 1000, 1)} s`,
						target: '≤ 15 s (no contact left to send)',
						met: rerunMs <= 15_000,
					},
					{
						name: 'Contacts messaged twice / never',
						value: rounds.map((r) => `${r.twice} / ${r.lost}`).join(', '),
						target: '0 / 0',
						met: rounds.every((r) => r.twice === 0 && r.lost === 0),
					},
				],
				n8nVersion: rt.N8N_VERSION,
				raw: { rounds, rerunMs },
			});
		});
	},
);
