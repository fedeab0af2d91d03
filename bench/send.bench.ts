/* eslint-disable no-console -- benchmarks print their figures; they run in jest on a developer machine, never inside n8n */
/**
 * Send at the service's rate limit, scaled down to 60 per 3 s so a run stays short. A batch of 10x the limit through the Contact Center node (paced), the same batch through a
 * naive loop (one request per item, no pacing, as n8n's Twilio node does), and two executions
 * sharing the limit. Everything runs through n8n-core's real ExecuteContext against the simulator.
 */
import {
	NodeApiError,
	NodeConnectionTypes,
	sleep,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
	type JsonObject,
} from 'n8n-workflow';

import { createCredentialStore, runNode, type CredentialStore } from '../test/harness';
import { runContactCenter, sendParameters } from '../test/integration/contactCenterFixture';
import { startSimulator, type LoggedRequest, type Simulator } from '../test/simulator';
import { fmt, pct, recordSection, type Figure } from './results';

const LIMIT = 60;
const WINDOW_MS = 3000;
const BATCH = 600;
/** The node's options for the scaled limit, as the service would state it: 60 messages per 3 seconds. */
const AT_THE_LIMIT = { rateLimitMessages: LIMIT, rateLimitPeriodSeconds: WINDOW_MS / 1000 };

const phones = (prefix: string, count: number) =>
	Array.from({ length: count }, (_, i) => ({
		phone: `+1555${prefix}${String(i).padStart(4, '0')}`,
	}));

/**
 * A naive send loop: one authenticated request per item, no pacing and no retry, with Continue On
 * Fail honoured per item, the way n8n's Twilio and MessageBird nodes send.
 */
class NaiveSendLoop implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Naive Send Loop',
		name: 'naiveSendLoop',
		group: ['transform'],
		version: 1,
		description: 'Sends one message per item, as fast as the service answers',
		defaults: { name: 'Naive Send Loop' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'contactCenterOAuth2Api', required: true }],
		properties: [],
		usableAsTool: true,
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const credentials = await this.getCredentials('contactCenterOAuth2Api');
		const out: INodeExecutionData[] = [];
		for (let i = 0; i < items.length; i++) {
			try {
				const response = (await this.helpers.httpRequestWithAuthentication.call(
					this,
					'contactCenterOAuth2Api',
					{
						method: 'POST',
						url: `${String(credentials.baseUrl)}/proactive-messaging/`,
						body: {
							medium: 'TWILIO',
							channel: 'Support SMS',
							contact: items[i].json.phone,
							text: 'Your order has shipped',
						},
						json: true,
					},
				)) as IDataObject;
				out.push({ json: { sent: true, correlationId: response.correlationId } });
			} catch (error) {
				if (this.continueOnFail()) {
					out.push({ json: { sent: false, error: (error as Error).message } });
					continue;
				}
				throw new NodeApiError(this.getNode(), error as JsonObject, { itemIndex: i });
			}
		}
		return [out];
	}
}

interface BatchFigures {
	items: number;
	accepted: number;
	refused: number;
	retried: number;
	lost: number;
	refusedAfterFirstWindow: number;
	/** Accepted sends per window over the batch as a fraction of the limit. */
	rateFraction: number;
	/** Most accepted sends in any window of WINDOW_MS (the service's own count). */
	maxInAnyWindow: number;
	wallMs: number;
	spanMs: number;
}

const isSend = (r: LoggedRequest) =>
	r.method === 'POST' && r.path.replace(/\/+$/, '') === '/proactive-messaging';

/**
 * Figures of one batch from the simulator's request log (the service's view) and the node's output.
 * Rate: (accepted - 1) sends over the time from the first to the last accepted send, as a fraction
 * of LIMIT per WINDOW_MS. Even spacing exactly at the limit gives 100 %.
 */
function batchFigures(
	sends: LoggedRequest[],
	output: IDataObject[],
	items: number,
	wallMs: number,
): BatchFigures {
	const accepted = sends.filter((r) => r.status === 200);
	const refused = sends.filter(
		(r) =>
			r.status === 429 || (r.status === 400 && JSON.stringify(r.body ?? '').includes('Rate limit')),
	);
	const rateRefused = sends.filter((r) => r.status === 429);
	const acceptTimes = accepted.map((r) => r.at).sort((a, b) => a - b);
	const first = acceptTimes[0] ?? 0;
	const last = acceptTimes[acceptTimes.length - 1] ?? 0;
	let maxInAnyWindow = 0;
	for (let lo = 0, hi = 0; hi < acceptTimes.length; hi++) {
		while (acceptTimes[hi] - acceptTimes[lo] >= WINDOW_MS) lo++;
		maxInAnyWindow = Math.max(maxInAnyWindow, hi - lo + 1);
	}
	const sentContacts = new Set(accepted.map((r) => String((r.body as IDataObject).contact)));
	const spanMs = last - first;
	return {
		items,
		accepted: accepted.length,
		refused: Math.max(refused.length, rateRefused.length),
		retried: output.reduce((sum, item) => sum + Math.max(0, Number(item.attempts ?? 1) - 1), 0),
		lost: items - sentContacts.size,
		refusedAfterFirstWindow: rateRefused.filter((r) => r.at > first + WINDOW_MS).length,
		rateFraction: spanMs > 0 ? (accepted.length - 1) / ((spanMs / WINDOW_MS) * LIMIT) : 0,
		maxInAnyWindow,
		wallMs,
		spanMs,
	};
}

describe('Send at the rate limit (60 per 3 s, batch of 600)', () => {
	let sim: Simulator;
	let credentials: CredentialStore;
	const figures: Record<string, BatchFigures> = {};

	/** Sends of the simulator log from `from` on. */
	const sendsSince = (from: number) => sim.requests.filter((r) => isSend(r) && r.at >= from);
	/** Lets every earlier send leave the service's window. */
	const emptyWindow = async () => await sleep(WINDOW_MS + 500);

	beforeAll(async () => {
		sim = await startSimulator({
			sendRateLimit: { limit: LIMIT, windowMs: WINDOW_MS },
			settleAfterMs: 0,
		});
		credentials = createCredentialStore({
			contactCenterOAuth2Api: {
				baseUrl: sim.url,
				clientId: 'sim-client-id',
				clientSecret: 'sim-client-secret',
			},
		});
		// Fetch the token once, outside the measured batches (a status read does not count against the limit).
		await runContactCenter(
			credentials,
			{ resource: 'proactiveMessage', operation: 'getStatus', correlationId: 'warm-up' },
			[{}],
			true,
		);
	});

	afterAll(async () => await sim?.stop());

	it('the Contact Center node, paced at the limit', async () => {
		await emptyWindow();
		sim.resetCounters();
		const started = Date.now();
		const { json, error } = await runContactCenter(
			credentials,
			sendParameters({ contact: '={{ $json.phone }}', options: AT_THE_LIMIT }),
			phones('200', BATCH),
			true,
		);
		const wallMs = Date.now() - started;
		if (error) throw error;
		figures.paced = batchFigures(sendsSince(started), json, BATCH, wallMs);
		console.log('paced', figures.paced);
	});

	it('a naive loop, one request per item, no pacing', async () => {
		await emptyWindow();
		sim.resetCounters();
		const started = Date.now();
		const result = await runNode({
			nodeType: new NaiveSendLoop(),
			parameters: {},
			credentials,
			continueOnFail: true,
			inputItems: phones('300', BATCH).map((item) => ({ json: item })),
		});
		const wallMs = Date.now() - started;
		if (result.error) throw result.error;
		const json = (result.output?.[0] ?? []).map((item) => item.json);
		figures.naive = batchFigures(sendsSince(started), json, BATCH, wallMs);
		console.log('naive', figures.naive);
	});

	it('two executions of 300 each sharing the limit', async () => {
		await emptyWindow();
		sim.resetCounters();
		const started = Date.now();
		const runs = await Promise.all(
			['401', '402'].map(
				async (prefix) =>
					await runContactCenter(
						credentials,
						sendParameters({ contact: '={{ $json.phone }}', options: AT_THE_LIMIT }),
						phones(prefix, BATCH / 2),
						true,
					),
			),
		);
		const wallMs = Date.now() - started;
		for (const run of runs) if (run.error) throw run.error;
		const json = runs.flatMap((run) => run.json);
		figures.shared = batchFigures(sendsSince(started), json, BATCH, wallMs);
		const failed = json.filter((item) => item.sent !== true);
		if (failed.length) console.log('shared: failed items', failed.slice(0, 3));
		console.log('shared', figures.shared);
	});

	let afterOther:
		| {
				makespanMs: number;
				idealMs: number;
				lost: number;
				inError: number;
				twice: number;
				refused: number;
		  }
		| undefined;
	it('two executions of 60 started together just after another sender used up the window', async () => {
		await emptyWindow();
		sim.resetCounters();
		// The other sender: 60 sends at once, as fast as the service answers.
		const other = await runNode({
			nodeType: new NaiveSendLoop(),
			parameters: {},
			credentials,
			continueOnFail: true,
			inputItems: phones('500', LIMIT).map((item) => ({ json: item })),
		});
		if (other.error) throw other.error;
		const otherFirst = Math.min(
			...sendsSince(0)
				.filter((r) => r.status === 200)
				.map((r) => r.at),
		);
		const started = Date.now();
		const runs = await Promise.all(
			['501', '502'].map(
				async (prefix) =>
					await runContactCenter(
						credentials,
						sendParameters({ contact: '={{ $json.phone }}', options: AT_THE_LIMIT }),
						phones(prefix, LIMIT),
						true,
					),
			),
		);
		for (const run of runs) if (run.error) throw run.error;
		const json = runs.flatMap((run) => run.json);
		const accepted = sendsSince(started).filter((r) => r.status === 200);
		const perContact = new Map<string, number>();
		for (const r of accepted) {
			const contact = String((r.body as IDataObject).contact);
			perContact.set(contact, (perContact.get(contact) ?? 0) + 1);
		}
		afterOther = {
			makespanMs: Math.max(...accepted.map((r) => r.at)) - otherFirst,
			idealMs: WINDOW_MS + ((2 * LIMIT) / LIMIT) * WINDOW_MS,
			lost: 2 * LIMIT - perContact.size,
			inError: json.filter((item) => item.error !== undefined).length,
			twice: [...perContact.values()].filter((n) => n > 1).length,
			refused: sendsSince(started).filter((r) => r.status === 429).length,
		};
		console.log('after another sender', afterOther);
	});

	it('records the figures', () => {
		const { paced, naive, shared } = figures;
		const list: Figure[] = [];
		if (paced) {
			list.push(
				{
					name: 'Node, paced: accepted-send rate over the batch',
					value: pct(paced.rateFraction),
					target: '≥ 98 % of the limit',
					met: paced.rateFraction >= 0.98,
				},
				{
					name: 'Node, paced: lost messages',
					value: `${paced.lost} of ${paced.items}`,
					target: '0',
					met: paced.lost === 0,
				},
				{
					name: 'Node, paced: refusals after the first window',
					value: String(paced.refusedAfterFirstWindow),
					target: '0',
					met: paced.refusedAfterFirstWindow === 0,
				},
				{ name: 'Node, paced: refused / retried', value: `${paced.refused} / ${paced.retried}` },
				{
					name: 'Node, paced: most accepted in any 3 s window',
					value: `${paced.maxInAnyWindow} (limit ${LIMIT})`,
				},
				{
					name: 'Node, paced: first to last accepted send / whole execution',
					value: `${fmt(paced.spanMs / 1000, 2)} s / ${fmt(paced.wallMs / 1000, 2)} s (even spacing: ${fmt(((BATCH - 1) * WINDOW_MS) / LIMIT / 1000, 2)} s)`,
				},
			);
		}
		if (naive) {
			list.push(
				{ name: 'Naive loop: lost messages', value: `${naive.lost} of ${naive.items}` },
				{
					name: 'Naive loop: accepted / refused',
					value: `${naive.accepted} / ${naive.refused} in ${fmt(naive.wallMs / 1000, 2)} s`,
				},
			);
		}
		if (shared) {
			list.push(
				{
					name: 'Two executions of 300: lost messages',
					value: `${shared.lost} of ${shared.items}`,
					target: '0',
					met: shared.lost === 0,
				},
				{
					name: 'Two executions of 300: refused / retried',
					value: `${shared.refused} / ${shared.retried}`,
				},
				{
					name: 'Two executions of 300: accepted-send rate (both together)',
					value: pct(shared.rateFraction),
				},
				{
					name: 'Two executions of 300: most accepted in any 3 s window',
					value: `${shared.maxInAnyWindow} (limit ${LIMIT})`,
				},
				{ name: 'Two executions of 300: wall time', value: `${fmt(shared.wallMs / 1000, 2)} s` },
			);
		}
		if (afterOther) {
			list.push(
				{
					name: "Two executions of 60 after another sender used up the window: makespan / the limit's ideal",
					value: `${fmt(afterOther.makespanMs / 1000, 2)} s / ${fmt(afterOther.idealMs / 1000, 2)} s = ${fmt(afterOther.makespanMs / afterOther.idealMs, 2)}x`,
					target: '≤ 1.15x',
					met: afterOther.makespanMs / afterOther.idealMs <= 1.15,
				},
				{
					name: 'Two executions of 60 after another sender: lost / items in error / contacts messaged twice',
					value: `${afterOther.lost} / ${afterOther.inError} / ${afterOther.twice} (refusals waited out: ${afterOther.refused})`,
					target: '0 / 0 / 0',
					met: afterOther.lost + afterOther.inError + afterOther.twice === 0,
				},
			);
		}
		recordSection({
			id: 'send',
			title: 'Send at the rate limit',
			command:
				'npx jest --selectProjects bench --runInBand --testTimeout=1800000 bench/send.bench.ts',
			method: `Simulator limit ${LIMIT} sends per ${WINDOW_MS / 1000} s (sliding window, 429 with Retry-After), a batch of ${BATCH} items (10x the limit) through the Contact Center node (Send, Continue On Fail, options Rate Limit Messages ${AT_THE_LIMIT.rateLimitMessages} per Rate Limit Period ${AT_THE_LIMIT.rateLimitPeriodSeconds} s) in n8n-core's ExecuteContext; the same batch through a naive loop node (httpRequestWithAuthentication once per item, no pacing, Continue On Fail, like n8n's Twilio node); then two concurrent executions of ${BATCH / 2} each; then another sender uses the whole window at once (${LIMIT} sends through the naive loop) and two executions of ${LIMIT} start together: the makespan runs from the other sender's first accepted send to the last accepted send of the two, and the limit's ideal is one window (until the other sender's sends leave it) plus ${2 * LIMIT} sends at the limit. Send Once is off here; "Send Once at the rate limit" measures it on and off side by side. Rate = (accepted - 1) / ((last accept - first accept) / window x limit), from the simulator's request log; even spacing exactly at the limit is 100 %. Lost = items whose message the service never accepted. Retried = sum over items of (attempts - 1). The window was left to empty before each run.`,
			figures: list,
		});
	});
});
