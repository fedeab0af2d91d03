/* eslint-disable no-console -- benchmarks run in jest on a developer machine, never inside n8n */
/**
 * Send Once at the rate limit in a real n8n (one process): the same campaign workflow with Send
 * Once off and at its default (Same Message Once), alternated in one n8n, against the simulator
 * at 20 sends per second. The record is n8n's own data table, through its public API.
 */
import { e2e, rt, stackForSuite, type Json } from './localStack';
import { recordSection } from './results';
import { sideBySideFigures, type SendOnceMode, type SendOnceRound } from './sendOnceFigures';

const { readFixture, waitFor } = e2e;

const LIMIT = 60;
const WINDOW_S = 3;
const CAMPAIGN = 240;
const ROUNDS = 2;

/** The e2e suites' campaign workflow (rate and period from the request), with Send Once set. */
function campaignWorkflow(mode: SendOnceMode): Json {
	const workflow = readFixture('send-campaign.json');
	workflow.id = `ccBenchSendOnce${mode === 'off' ? 'Off' : 'On'}`;
	workflow.name = `Bench: Send Once ${mode}`;
	for (const node of workflow.nodes) {
		if (node.type.endsWith('.webhook')) node.parameters.path = `bench-send-once-${mode}`;
		if (node.type.endsWith('.contactCenter')) node.parameters.sendOnce = mode;
	}
	return workflow;
}

interface Round extends SendOnceRound {
	accepted: number;
}

describe(`Send Once at the rate limit in n8n ${rt.N8N_VERSION} (${LIMIT} per ${WINDOW_S} s, ${CAMPAIGN} contacts)`, () => {
	const workflows = { off: campaignWorkflow('off'), message: campaignWorkflow('message') };
	const rounds: Round[] = [];
	let campaigns = 0;
	const suite = stackForSuite('bench-send-once', {
		simulatorOptions: {
			sendRateLimit: { limit: LIMIT, windowMs: WINDOW_S * 1000 },
			settleAfterMs: 0,
		},
		extraWorkflows: Object.values(workflows),
	});

	beforeAll(async () => {
		for (const workflow of Object.values(workflows)) {
			await rt.activateWorkflow(suite.stack.instance, workflow.id);
			await waitFor(
				async () =>
					(await rt.registeredWebhooks(suite.stack.instance)).some(
						(r: Json) => r.workflowId === workflow.id,
					),
				{ what: `the webhook of ${workflow.id}` },
			);
		}
	}, 900_000);

	async function campaign(mode: SendOnceMode, count = CAMPAIGN): Promise<Round> {
		await rt.sleep(WINDOW_S * 1000 + 500);
		campaigns++;
		const c = {
			campaign: `bench-${Date.now()}-${campaigns}`,
			prefix: String(70 + campaigns),
			count,
			rate: LIMIT,
			period: WINDOW_S,
		};
		const workflow = workflows[mode];
		const known = new Set(
			(await rt.listExecutions(suite.stack.instance, { workflowId: workflow.id })).map(
				(e: Json) => e.id,
			),
		);
		const url = `${suite.stack.instance.baseUrl}/webhook/bench-send-once-${mode}`;
		await rt.waitForWebhook(url);
		const res = await fetch(url, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify(c),
		});
		expect(res.status).toBe(200);
		const execution = await waitFor(
			async () =>
				(await rt.listExecutions(suite.stack.instance, { workflowId: workflow.id })).find(
					(e: Json) => !known.has(e.id) && e.stoppedAt,
				),
			{ what: `the ${mode} campaign to end`, timeoutMs: 600_000, intervalMs: 250 },
		);
		const accepted = (suite.stack.simulator.requests as Json[]).filter(
			(r) =>
				r.method === 'POST' &&
				r.path.replace(/\/+$/, '') === '/proactive-messaging' &&
				r.status === 200 &&
				r.body?.metadata?.campaign === c.campaign,
		);
		const perContact = new Map<string, number>();
		for (const r of accepted)
			perContact.set(r.body.contact, (perContact.get(r.body.contact) ?? 0) + 1);
		const times = accepted.map((r) => r.at).sort((a, b) => a - b);
		const spanMs = times[times.length - 1] - times[0];
		const round: Round = {
			mode,
			accepted: accepted.length,
			twice: [...perContact.values()].filter((n) => n > 1).length,
			lost: count - perContact.size,
			share: spanMs > 0 ? (accepted.length - 1) / ((spanMs / (WINDOW_S * 1000)) * LIMIT) : 0,
			makespanMs: Date.parse(execution.stoppedAt) - Date.parse(execution.startedAt),
		};
		console.log(round);
		return round;
	}

	it("warm-up: the OAuth2 token and the record's data table, outside the measured campaigns", async () => {
		await campaign('message', 1);
	}, 600_000);

	for (let round = 1; round <= ROUNDS; round++) {
		it(`round ${round}: Send Once off, then Same Message Once`, async () => {
			rounds.push(await campaign('off'));
			rounds.push(await campaign('message'));
		}, 1_200_000);
	}

	it('records the figures', () => {
		const figures = sideBySideFigures(rounds, LIMIT / WINDOW_S);
		recordSection({
			id: 'send-once-n8n',
			title: 'Send Once at the rate limit in a real n8n',
			command:
				'npx jest --selectProjects bench --runInBand --testTimeout=1800000 bench/sendOnceInN8n.bench.ts',
			method: `n8n ${rt.N8N_VERSION} in one process (SQLite), this package installed from its build; the simulator's limit ${LIMIT} sends per ${WINDOW_S} s (429 with Retry-After beyond it). The e2e suites' campaign workflow (a webhook, a Code node making one item per contact, the Contact Center node's Send with Rate Limit ${LIMIT} per ${WINDOW_S} s) in two copies, Send Once Off and Same Message Once (the record: n8n's own data table through its public API), ${CAMPAIGN} contacts a campaign, alternated, ${ROUNDS} rounds in one n8n, after a campaign of one contact that fetched the token and created the record's table. Share = (accepted - 1) / ((last accept - first accept) / window x limit), from the simulator's log; makespan = the execution's start to stop as n8n lists it. The window was left to empty before each campaign.`,
			figures,
			n8nVersion: rt.N8N_VERSION,
			raw: rounds,
		});
	});
});
