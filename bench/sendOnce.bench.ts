/* eslint-disable no-console -- benchmarks print their figures; they run in jest on a developer machine, never inside n8n */
/**
 * Send Once at the rate limit: the same campaign through the Contact Center node with Send Once
 * off and at its default (Same Message Once), alternated in one run, against the simulator at 20
 * sends per second. The record lives in the stand-in of n8n's data table API, each of its answers
 * delayed as a real n8n's are.
 */
import { sleep, type IDataObject } from 'n8n-workflow';

import { ContactCenterRecordApi } from '../credentials/ContactCenterRecordApi.credentials';
import { createCredentialStore, type CredentialStore } from '../test/harness';
import { startDataTableApi, type DataTableApi } from '../test/harness/data-table-api';
import { runContactCenter, sendParameters } from '../test/integration/contactCenterFixture';
import { startSimulator, type LoggedRequest, type Simulator } from '../test/simulator';
import { fmt, recordSection, type Figure } from './results';
import { sideBySideFigures, type SendOnceMode, type SendOnceRound } from './sendOnceFigures';

const LIMIT = 60;
const WINDOW_MS = 3000;
const CAMPAIGN = 240;
const ROUNDS = 2;
/** How long n8n's public API takes to answer a data table call (a real n8n in one process: 5 to 30 ms). */
const API_LATENCY_MS = 20;
const AT_THE_LIMIT = { rateLimitMessages: LIMIT, rateLimitPeriodSeconds: WINDOW_MS / 1000 };

interface Round extends SendOnceRound {
	accepted: number;
	/** Calls to n8n's data table API during the campaign, and rows inserted by them. */
	recordCalls: number;
	insertCalls: number;
	insertedRows: number;
}

const isSend = (r: LoggedRequest) =>
	r.method === 'POST' && r.path.replace(/\/+$/, '') === '/proactive-messaging';

describe(`Send Once at the rate limit (${LIMIT} per ${WINDOW_MS / 1000} s, ${CAMPAIGN} contacts)`, () => {
	let sim: Simulator;
	let api: DataTableApi;
	let credentials: CredentialStore;
	const rounds: Round[] = [];
	let campaigns = 0;

	beforeAll(async () => {
		sim = await startSimulator({
			sendRateLimit: { limit: LIMIT, windowMs: WINDOW_MS },
			settleAfterMs: 0,
		});
		api = await startDataTableApi();
		credentials = createCredentialStore(
			{
				contactCenterOAuth2Api: {
					baseUrl: sim.url,
					clientId: 'sim-client-id',
					clientSecret: 'sim-client-secret',
				},
				contactCenterRecordApi: {
					baseUrl: api.baseUrl,
					apiKey: api.addUser('record').apiKey,
					dataTableName: 'contact_center_record',
				},
			},
			{ credentialTypes: [new ContactCenterRecordApi()] },
		);
		// The token and the record's table, outside the measured campaigns.
		await runContactCenter(
			credentials,
			sendParameters({ contact: '+15550000000', sendOnce: 'message', sendOnceStore: 'dataTable' }),
			[{}],
			true,
		);
		api.slow(API_LATENCY_MS);
	});

	afterAll(async () => {
		await api?.stop();
		await sim?.stop();
	});

	async function campaign(mode: SendOnceMode): Promise<Round> {
		await sleep(WINDOW_MS + 500);
		campaigns++;
		const contacts = Array.from(
			{ length: CAMPAIGN },
			(_, i) => `+3162${String(campaigns).padStart(2, '0')}${String(i).padStart(4, '0')}`,
		);
		const callsBefore = api.calls.length;
		const started = Date.now();
		const { json, error } = await runContactCenter(
			credentials,
			sendParameters({ contact: '={{ $json.phone }}', sendOnce: mode, sendOnceStore: "dataTable", options: AT_THE_LIMIT }),
			contacts.map((phone) => ({ phone })),
			true,
		);
		const makespanMs = Date.now() - started;
		if (error) throw error;
		const failed = json.filter((item: IDataObject) => item.outcome !== 'accepted');
		if (failed.length) console.log(mode, 'items not sent', failed.slice(0, 3));
		const accepted = sim.requests.filter((r) => isSend(r) && r.at >= started && r.status === 200);
		const perContact = new Map<string, number>();
		for (const r of accepted) {
			const contact = String((r.body as IDataObject).contact);
			perContact.set(contact, (perContact.get(contact) ?? 0) + 1);
		}
		const times = accepted.map((r) => r.at).sort((a, b) => a - b);
		const spanMs = times[times.length - 1] - times[0];
		const calls = api.calls.slice(callsBefore);
		const inserts = calls.filter((call) => call.operation === 'insertRows');
		const round: Round = {
			mode,
			accepted: accepted.length,
			twice: [...perContact.values()].filter((n) => n > 1).length,
			lost: contacts.filter((contact) => !perContact.has(contact)).length,
			share: spanMs > 0 ? (accepted.length - 1) / ((spanMs / WINDOW_MS) * LIMIT) : 0,
			makespanMs,
			recordCalls: calls.length,
			insertCalls: inserts.length,
			insertedRows: inserts.reduce(
				(sum, call) => sum + ((call.body as { data?: unknown[] })?.data?.length ?? 0),
				0,
			),
		};
		console.log(round);
		return round;
	}

	for (let round = 1; round <= ROUNDS; round++) {
		it(`round ${round}: Send Once off, then Same Message Once`, async () => {
			rounds.push(await campaign('off'));
			rounds.push(await campaign('message'));
		});
	}

	it('records the figures', () => {
		const figures: Figure[] = [
			...sideBySideFigures(rounds, (LIMIT * 1000) / WINDOW_MS),
			{
				name: "Same Message Once: calls to n8n's data table API per message; rows per insert",
				value: rounds
					.filter((r) => r.mode === 'message')
					.map(
						(r) =>
							`${fmt(r.recordCalls / CAMPAIGN, 2)}; ${fmt(r.insertedRows / Math.max(1, r.insertCalls), 1)}`,
					)
					.join(', '),
			},
		];
		recordSection({
			id: 'send-once',
			title: 'Send Once at the rate limit',
			command:
				'npx jest --selectProjects bench --runInBand --testTimeout=1800000 bench/sendOnce.bench.ts',
			method: `Simulator limit ${LIMIT} sends per ${WINDOW_MS / 1000} s (20 per second; 429 with Retry-After beyond it); a campaign of ${CAMPAIGN} contacts through the Contact Center node (Send, Continue On Fail, Rate Limit ${LIMIT} per ${WINDOW_MS / 1000} s) in n8n-core's ExecuteContext, with Send Once off and at Same Message Once, alternated, ${ROUNDS} rounds in one run. The record is in the stand-in of n8n's data table API (test/harness/data-table-api.ts), every answer delayed by ${API_LATENCY_MS} ms. Share = (accepted - 1) / ((last accept - first accept) / window x limit), from the simulator's log; makespan = the node's whole execution. The window was left to empty before each campaign.`,
			figures,
			raw: rounds,
		});
	});
});
