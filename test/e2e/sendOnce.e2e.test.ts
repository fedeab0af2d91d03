/* eslint-disable @typescript-eslint/no-explicit-any -- test code: JSON read from n8n and the simulator, untyped */
/**
 * End to end, Send Once and the shared rate limit, in a real n8n 2.41.1 (one process): a campaign
 * started by a webhook, n8n killed with SIGKILL half way, started again, then what a user does
 * next (n8n's Retry with the original or the saved workflow, or running the workflow again). Every
 * contact must have been messaged exactly once, as the simulator counts them. Then two campaigns at
 * the same moment against a rate limit that another sender has just used up.
 */
import * as runtimeModule from '../../scripts/lib/n8n-runtime';
import * as localModule from '../../scripts/lib/local-setup';
import * as helpersModule from './helpers';

type Json = Record<string, any>;
const rt: Json = runtimeModule;
const local: Json = localModule;
const { freshStateDir, readFixture, report, sendAsOtherSender, waitFor }: Json = helpersModule;

const CAMPAIGN = readFixture('send-campaign.json');
const KEYED_CAMPAIGN = readFixture('send-campaign-keyed.json');
/** The campaign with its Send node as the editor adds it: Send Once at its default, no Record API credential. */
const DEFAULTS_CAMPAIGN = readFixture('send-campaign-defaults.json');
const SEND_NODE = 'Send campaign';

let stack: Json;
const sim = () => stack.simulator as Json;
const instance = () => stack.instance as Json;
const log = (line: string) => report(`[e2e send once] ${line}`);

beforeAll(async () => {
	stack = await local.startStack({
		userFolder: freshStateDir(),
		n8nPort: 0,
		simulatorPort: 0,
		extraWorkflows: [CAMPAIGN, KEYED_CAMPAIGN, DEFAULTS_CAMPAIGN],
		log,
	});
	for (const fixture of [CAMPAIGN, KEYED_CAMPAIGN, DEFAULTS_CAMPAIGN]) {
		await rt.activateWorkflow(instance(), fixture.id);
		await waitFor(
			async () =>
				(await rt.registeredWebhooks(instance())).some((r: Json) => r.workflowId === fixture.id),
			{ what: `the webhook of ${fixture.id}` },
		);
	}
}, 900_000);

afterAll(async () => {
	await stack?.stop();
});

const hookUrl = (fixture: Json) =>
	`${instance().baseUrl}/webhook/${fixture.nodes.find((n: Json) => n.type.endsWith('.webhook')).parameters.path}`;

let prefixes = 0;
interface Campaign {
	campaign: string;
	prefix: string;
	count: number;
	rate: number;
	period: number;
}
function newCampaign(count: number, rate: number, period: number): Campaign {
	prefixes += 1;
	return {
		campaign: `c${Date.now()}-${prefixes}`,
		prefix: String(10 + prefixes),
		count,
		rate,
		period,
	};
}
const phonesOf = (c: Campaign) =>
	Array.from({ length: c.count }, (_, i) => `+3161${c.prefix}${String(i).padStart(4, '0')}`);

async function start(fixture: Json, c: Campaign) {
	await rt.waitForWebhook(hookUrl(fixture));
	const res = await fetch(hookUrl(fixture), {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(c),
	});
	expect(res.status).toBe(200);
}

/** Messages the service accepted for a campaign, by contact. */
function acceptedByContact(c: Campaign): Map<string, number> {
	const counts = new Map<string, number>();
	for (const m of sim().messages as Json[]) {
		if (m.body?.metadata?.campaign !== c.campaign) continue;
		counts.set(m.body.contact, (counts.get(m.body.contact) ?? 0) + 1);
	}
	return counts;
}
const acceptedCount = (c: Campaign) =>
	[...acceptedByContact(c).values()].reduce((sum, n) => sum + n, 0);

/** Each contact of the campaign messaged exactly once: the contacts messaged 0 or 2+ times. */
function notExactlyOnce(c: Campaign) {
	const counts = acceptedByContact(c);
	return phonesOf(c)
		.filter((phone) => counts.get(phone) !== 1)
		.map((phone) => `${phone}: ${counts.get(phone) ?? 0}`);
}

/** SIGKILL of n8n (its process group) once the service has accepted `after` of the campaign. */
async function killAfter(c: Campaign, after: number) {
	await waitFor(async () => acceptedCount(c) >= after, {
		what: `${after} messages accepted`,
		timeoutMs: 120_000,
		intervalMs: 5,
	});
	await rt.killServer(instance());
	const atKill = acceptedCount(c);
	log(`n8n killed (SIGKILL) with ${atKill} of ${c.count} accepted`);
	return atKill;
}

async function restart() {
	await rt.startServer(instance(), { log });
}

async function executionsOf(fixture: Json, includeData = false): Promise<Json[]> {
	return await rt.listExecutions(instance(), { workflowId: fixture.id, includeData });
}

/** The Send node's output rows of a finished execution. */
async function sendOutput(fixture: Json, executionId: string): Promise<Json[]> {
	const execution = (await executionsOf(fixture, true)).find((e) => e.id === executionId);
	const runs = execution?.data?.resultData?.runData?.[SEND_NODE] ?? [];
	return (runs[runs.length - 1]?.data?.main?.[0] ?? []).map((item: Json) => item.json);
}

/** Waits for a new execution of the workflow (not in `known`) to end; resolves with it. */
async function nextFinished(fixture: Json, known: Set<string>): Promise<Json> {
	return await waitFor(
		async () =>
			(await executionsOf(fixture)).find(
				(e) => !known.has(e.id) && e.finished !== undefined && e.stoppedAt,
			),
		{ what: `an execution of ${fixture.id} to end`, timeoutMs: 600_000, intervalMs: 500 },
	);
}

async function retry(executionId: string, loadWorkflow: boolean) {
	const res = await rt.restCall(instance(), 'POST', `/executions/${executionId}/retry`, {
		body: { loadWorkflow },
		cookie: instance().cookie,
	});
	log(
		`Retry (${loadWorkflow ? 'saved' : 'original'} workflow) of ${executionId}: ${res.status} ${res.text.slice(0, 200)}`,
	);
	expect(res.status).toBe(200);
}

function outcomes(rows: Json[]) {
	const counts: Record<string, number> = {};
	for (const row of rows) counts[row.outcome] = (counts[row.outcome] ?? 0) + 1;
	return counts;
}

/** Starts a 90-message campaign, kills n8n after about 40, starts n8n again; the killed execution. */
async function campaignKilledHalfWay(fixture: Json, c: Campaign) {
	sim().options.sendRateLimit = { limit: c.rate, windowMs: c.period * 1000 };
	const before = new Set((await executionsOf(fixture)).map((e) => e.id));
	await start(fixture, c);
	const atKill = await killAfter(c, 40);
	expect(atKill).toBeLessThan(c.count);
	await restart();
	const killed = await waitFor(
		async () => (await executionsOf(fixture)).find((e) => !before.has(e.id)),
		{ what: 'the killed execution' },
	);
	log(`the killed execution after the restart: ${killed.id} status ${killed.status}`);
	return { killed, atKill };
}

describe('Send Once: a campaign killed half way, then what a user does next', () => {
	test('Retry with the original workflow, then running the workflow again: every contact messaged exactly once', async () => {
		const c = newCampaign(90, 300, 60);
		const { killed } = await campaignKilledHalfWay(CAMPAIGN, c);
		const known = new Set((await executionsOf(CAMPAIGN)).map((e) => e.id));
		await retry(killed.id, false);
		const retried = await nextFinished(CAMPAIGN, known);
		const retriedRows = await sendOutput(CAMPAIGN, retried.id);
		log(`the Retry's Send output: ${JSON.stringify(outcomes(retriedRows))}`);
		expect(notExactlyOnce(c)).toEqual([]);
		expect(retriedRows).toHaveLength(90);
		expect(
			retriedRows.filter((r) => r.outcome === 'already accepted').length,
		).toBeGreaterThanOrEqual(39);

		known.add(retried.id);
		await start(CAMPAIGN, c);
		const rerun = await nextFinished(CAMPAIGN, known);
		const rerunRows = await sendOutput(CAMPAIGN, rerun.id);
		log(`the rerun's Send output: ${JSON.stringify(outcomes(rerunRows))}`);
		expect(notExactlyOnce(c)).toEqual([]);
		expect(rerunRows).toHaveLength(90);
		const alreadySent = rerunRows.filter((r) => r.outcome === 'already accepted');
		// At most the one message in flight at the kill may be reported as "may have been sent".
		expect(alreadySent.length).toBeGreaterThanOrEqual(89);
		for (const row of alreadySent) {
			expect(row).toMatchObject({
				correlationId: expect.stringMatching(/^[0-9a-f-]{36}$/),
				sentAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
			});
		}
	});

	test('Retry with the saved workflow, Send Once Key per contact and campaign: every contact messaged exactly once', async () => {
		const c = newCampaign(90, 300, 60);
		const { killed } = await campaignKilledHalfWay(KEYED_CAMPAIGN, c);
		const known = new Set((await executionsOf(KEYED_CAMPAIGN)).map((e) => e.id));
		await retry(killed.id, true);
		const retried = await nextFinished(KEYED_CAMPAIGN, known);
		const rows = await sendOutput(KEYED_CAMPAIGN, retried.id);
		log(`the Retry's Send output: ${JSON.stringify(outcomes(rows))}`);
		expect(notExactlyOnce(c)).toEqual([]);
		expect(rows.map((r) => r.sendOnceKey)).toEqual(phonesOf(c).map((p) => `${p}-${c.campaign}`));
	});

	test('running the workflow again right after the restart: every contact messaged exactly once', async () => {
		const c = newCampaign(90, 300, 60);
		await campaignKilledHalfWay(CAMPAIGN, c);
		const known = new Set((await executionsOf(CAMPAIGN)).map((e) => e.id));
		await start(CAMPAIGN, c);
		const rerun = await nextFinished(CAMPAIGN, known);
		const rows = await sendOutput(CAMPAIGN, rerun.id);
		log(`the rerun's Send output: ${JSON.stringify(outcomes(rows))}`);
		expect(notExactlyOnce(c)).toEqual([]);
		expect(rows.filter((r) => r.outcome === 'accepted').length).toBeGreaterThanOrEqual(90 - 41);
	});
});

describe("Send Once at its defaults (n8n's own store, no Record API credential)", () => {
	test('the first run sends to everyone; run again, it messages nobody twice', async () => {
		const c = newCampaign(20, 600, 60);
		sim().options.sendRateLimit = { limit: c.rate, windowMs: c.period * 1000 };
		const known = new Set((await executionsOf(DEFAULTS_CAMPAIGN)).map((e) => e.id));
		await start(DEFAULTS_CAMPAIGN, c);
		const first = await nextFinished(DEFAULTS_CAMPAIGN, known);
		expect(first.status).toBe('success');
		const firstRows = await sendOutput(DEFAULTS_CAMPAIGN, first.id);
		expect(firstRows.map((r) => r.outcome)).toEqual(Array(20).fill('accepted'));
		known.add(first.id);
		await start(DEFAULTS_CAMPAIGN, c);
		const second = await nextFinished(DEFAULTS_CAMPAIGN, known);
		const secondRows = await sendOutput(DEFAULTS_CAMPAIGN, second.id);
		expect(secondRows.map((r) => r.outcome)).toEqual(Array(20).fill('already accepted'));
		expect(notExactlyOnce(c)).toEqual([]);
	});

	// A kill -9 half way, at the rate the service allows and well above it; then the same campaign again.
	for (const { rate, count, killAt, leftOut } of [
		{ rate: 50, count: 400, killAt: 150, leftOut: 5 },
		{ rate: 2, count: 12, killAt: 5, leftOut: 1 },
	]) {
		test(`killed half way at ${rate} a second, run again: nobody messaged twice, at most ${leftOut} left out as "may have been sent"`, async () => {
			const c = newCampaign(count, rate, 1);
			sim().options.sendRateLimit = { limit: rate, windowMs: 1000 };
			const before = new Set((await executionsOf(DEFAULTS_CAMPAIGN)).map((e) => e.id));
			await start(DEFAULTS_CAMPAIGN, c);
			const atKill = await killAfter(c, killAt);
			expect(atKill).toBeLessThan(count);
			await restart();
			await rt.waitForWebhook(hookUrl(DEFAULTS_CAMPAIGN));
			const known = new Set((await executionsOf(DEFAULTS_CAMPAIGN)).map((e) => e.id));
			for (const id of before) known.add(id);
			const rerunStarted = Date.now();
			await start(DEFAULTS_CAMPAIGN, c);
			const rerun = await nextFinished(DEFAULTS_CAMPAIGN, known);
			const rows = await sendOutput(DEFAULTS_CAMPAIGN, rerun.id);
			const counts = outcomes(rows);
			log(
				`at ${rate}/s, killed with ${atKill} of ${count} accepted; the rerun took ${((Date.parse(rerun.stoppedAt) - rerunStarted) / 1000).toFixed(1)} s: ${JSON.stringify(counts)}`,
			);
			const accepted = acceptedByContact(c);
			expect(phonesOf(c).filter((p) => (accepted.get(p) ?? 0) > 1)).toEqual([]);
			const missing = phonesOf(c).filter((p) => !accepted.has(p));
			expect(missing.length).toBeLessThanOrEqual(leftOut);
			expect(counts['may have been sent'] ?? 0).toBeLessThanOrEqual(leftOut);
			// Every contact not messaged is one the rerun reports as "may have been sent".
			const maybe = new Set(
				rows.filter((r) => r.outcome === 'may have been sent').map((r) => r.contact),
			);
			expect(missing.filter((p) => !maybe.has(p))).toEqual([]);
		});
	}
});

describe('Several campaigns share the rate limit', () => {
	test('two campaigns at the same moment, after another sender used up the limit: every contact once, no item in error', async () => {
		const limit = 20;
		const periodSeconds = 10;
		sim().options.sendRateLimit = { limit, windowMs: periodSeconds * 1000 };
		// Earlier tests' sends leave the window first.
		await rt.sleep(periodSeconds * 1000);
		// Another sender of the organization uses the whole window.
		const other = newCampaign(limit, limit, periodSeconds);
		const otherStart = Date.now();
		await sendAsOtherSender(sim(), phonesOf(other), { campaign: other.campaign });

		const a = newCampaign(limit, limit, periodSeconds);
		const b = newCampaign(limit, limit, periodSeconds);
		const known = new Set((await executionsOf(CAMPAIGN)).map((e) => e.id));
		await Promise.all([start(CAMPAIGN, a), start(CAMPAIGN, b)]);
		const first = await nextFinished(CAMPAIGN, known);
		known.add(first.id);
		const second = await nextFinished(CAMPAIGN, known);
		const makespanMs =
			Math.max(...[first, second].map((e) => Date.parse(e.stoppedAt))) - otherStart;
		const idealMs = periodSeconds * 1000 + ((2 * limit) / limit) * periodSeconds * 1000;
		log(
			`two campaigns of ${limit} after a full window (limit ${limit} per ${periodSeconds} s): makespan ${(makespanMs / 1000).toFixed(1)} s, the limit's ideal ${idealMs / 1000} s (${(makespanMs / idealMs).toFixed(2)}x); refusals by the limit ${sim().counters.sendsRefusedRateLimit}`,
		);
		const rows = [
			...(await sendOutput(CAMPAIGN, first.id)),
			...(await sendOutput(CAMPAIGN, second.id)),
		];
		expect(rows.filter((r) => r.error !== undefined)).toEqual([]);
		expect(rows.map((r) => r.outcome)).toEqual(Array(2 * limit).fill('accepted'));
		expect(notExactlyOnce(a)).toEqual([]);
		expect(notExactlyOnce(b)).toEqual([]);
	});
});
