/* eslint-disable no-console -- benchmarks run in jest on a developer machine, never inside n8n */
/**
 * Send Once at the rate limit in a real n8n (one process): the same campaign workflow with Send
 * Once off and at its default (Same Message Once), alternated in one n8n, against the simulator
 * at 20 sends per second. The record is n8n's own data table, through its public API.
 */
import { activateWhenStarted, campaignFigures, runCampaign } from './campaignRun';
import { e2e, rt, stackForSuite, type Json } from './localStack';
import { recordSection } from './results';
import { sideBySideFigures, type SendOnceMode, type SendOnceRound } from './sendOnceFigures';

const { readFixture } = e2e;

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

	activateWhenStarted(suite, Object.values(workflows));

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
		const run = await runCampaign(suite, workflows[mode].id, `bench-send-once-${mode}`, c, 600_000);
		const { twice, contacts, share, makespanMs } = campaignFigures(run, LIMIT, WINDOW_S * 1000);
		const round: Round = {
			mode,
			accepted: run.accepted.length,
			twice,
			lost: count - contacts,
			share,
			makespanMs,
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
