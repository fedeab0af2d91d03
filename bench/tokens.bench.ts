/* eslint-disable no-console -- benchmarks print their figures; they run in jest on a developer machine, never inside n8n */
/**
 * Token requests over many executions. Each execution is one Send of one
 * message through n8n-core's real OAuth2 helpers; a credential store stands for one n8n credential
 * (n8n keeps the token in the credential's oauthTokenData between executions). The simulator's
 * clock is moved past the 12-hour token lifetime to show one new token per lifetime.
 */
import { createCredentialStore, type CredentialStore } from '../test/harness';
import { runContactCenter, sendParameters } from '../test/integration/contactCenterFixture';
import { startSimulator, type Simulator } from '../test/simulator';
import { recordSection, type Figure } from './results';

const RUNS = 50;
const TOKEN_TTL_MS = 43_200_000;

describe('Token requests over N executions', () => {
	let sim: Simulator;
	let clockOffsetMs = 0;
	const phases: Array<{
		name: string;
		runs: number;
		tokenRequests: number;
		unauthorized: number;
		failedRuns: number;
		expected: number;
	}> = [];

	const newCredential = (): CredentialStore =>
		createCredentialStore({
			contactCenterOAuth2Api: {
				baseUrl: sim.url,
				clientId: 'sim-client-id',
				clientSecret: 'sim-client-secret',
			},
		});

	/** Runs `RUNS` executions of one Send each and records the token requests they made. */
	async function phase(name: string, credentials: CredentialStore, expected: number) {
		sim.resetCounters();
		let failedRuns = 0;
		for (let run = 0; run < RUNS; run++) {
			const { json, error } = await runContactCenter(
				credentials,
				sendParameters({ contact: `+1555900${String(run).padStart(4, '0')}` }),
			);
			if (error || json[0]?.sent !== true) failedRuns++;
		}
		const { tokenRequests, unauthorized } = sim.counters;
		phases.push({ name, runs: RUNS, tokenRequests, unauthorized, failedRuns, expected });
		console.log(name, { tokenRequests, unauthorized, failedRuns });
	}

	beforeAll(async () => {
		sim = await startSimulator({
			sendRateLimit: { limit: 100_000, windowMs: 60_000 },
			tokenTtlSeconds: TOKEN_TTL_MS / 1000,
			now: () => Date.now() + clockOffsetMs,
		});
	});
	afterAll(async () => await sim?.stop());

	it('counts token requests', async () => {
		const first = newCredential();
		await phase(`${RUNS} executions, one credential, fresh`, first, 1);
		clockOffsetMs += TOKEN_TTL_MS + 60_000;
		await phase(`${RUNS} more executions after the service's clock moved 12 h 1 min on`, first, 1);
		sim.expireAllTokens();
		await phase(`${RUNS} more executions after expireAllTokens()`, first, 1);
		await phase(`${RUNS} executions with a second credential`, newCredential(), 1);

		const figures: Figure[] = phases.map((p) => ({
			name: `${p.name}: token requests`,
			value: `${p.tokenRequests} (401 answers: ${p.unauthorized}, failed runs: ${p.failedRuns})`,
			target: `${p.expected}`,
			met: p.tokenRequests === p.expected && p.failedRuns === 0,
		}));
		const total = phases.reduce((sum, p) => sum + p.tokenRequests, 0);
		figures.push({
			name: `All ${phases.length * RUNS} executions: token requests`,
			value: `${total}: one per credential per 12-hour lifetime, plus one after the forced expiry`,
			target: '1 per 12 h per credential',
			met: phases.every((p) => p.tokenRequests === p.expected && p.failedRuns === 0),
		});
		recordSection({
			id: 'tokens',
			title: 'Token requests over N executions',
			command:
				'npx jest --selectProjects bench --runInBand --testTimeout=1800000 bench/tokens.bench.ts',
			method: `Each execution is the Contact Center node sending one message (n8n-core's ExecuteContext and OAuth2 helpers against the simulator, token lifetime 43 200 s). A credential store plays one n8n credential: n8n keeps the token in its oauthTokenData between executions. Phases of ${RUNS} sequential executions: fresh; after the simulator's clock moved past the token lifetime; after expireAllTokens(); with a second credential. Counts from the simulator's counters.`,
			figures,
			notes: [
				"n8n does not renew a client-credentials token ahead of its expiry: the first request after the expiry gets a 401, n8n-core fetches one new token and replays the request (the '401 answers' column). Nothing is lost; it costs one extra round trip per 12 hours per credential.",
			],
		});
	});
});
