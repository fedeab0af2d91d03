/**
 * What the record's fault tests share: n8n's public API stand-in (test/harness/data-table-api.ts)
 * with the fault patterns measured against a real n8n, a record credential pointing at it, and
 * the service's side of write backs: deliveries of distinct keys, several in flight, each
 * delivered again after every non-2xx answer on the service's schedule (1, 2, 4, ... hours, the
 * hour scaled down).
 */
import {
	NodeConnectionTypes,
	sleep,
	type IDataObject,
	type IExecuteFunctions,
	type INodeType,
} from 'n8n-workflow';

import { ContactCenterRecordApi } from '../../credentials/ContactCenterRecordApi.credentials';
import { ContactCenterTrigger } from '../../nodes/ContactCenterTrigger/ContactCenterTrigger.node';
import type { Claimed, Found, Ticket } from '../../nodes/shared/once';
import { ContactCenterSigningSecretApi } from '../../credentials/ContactCenterSigningSecretApi.credentials';
import { resetRecordTiming } from '../harness/processState';
import { createCredentialStore, runNode, type CredentialStore } from '../harness';
import { startDataTableApi, type DataTableApi, type FaultRule } from '../harness/data-table-api';
import {
	createFlowDatabase,
	parseAnswer,
	type Delivery,
	type DeliveryResult,
	type FlowOptions,
} from '../harness/run-trigger-flow';
import { DEFAULT_SIGNING_SECRET, signBody, startSimulator } from '../simulator';

export const RECORD_TABLE = 'contact_center_record';

/** The fault patterns of the measurements in a real n8n (README, Guarantees). */
export const FAULT_PATTERNS: Array<{
	name: string;
	rule?: FaultRule;
	/** Applied once the load is under way. */
	during?: (api: DataTableApi) => void;
}> = [
	{
		name: '429 with Retry-After: 1 on every 3rd call',
		rule: ({ n }) => (n % 3 === 0 ? { status: 429, retryAfterSeconds: 1 } : undefined),
	},
	{
		name: '500 on every 4th call, a connection reset on every 7th',
		rule: ({ n }) => (n % 4 === 0 ? { status: 500 } : n % 7 === 0 ? { reset: true } : undefined),
	},
	{ name: 'the API down for 3 seconds', during: (api) => void api.outage(3000) },
	{ name: 'every call 700 ms slower', during: (api) => api.slow(700) },
];

/** The stand-in and a record credential of one of its users, shared by a test file. */
export function useRecordApi(extraCredentials: Record<string, IDataObject> = {}) {
	const fixture = {} as {
		api: DataTableApi;
		apiKey: string;
		credentials: CredentialStore;
	};
	beforeAll(async () => {
		fixture.api = await startDataTableApi();
		fixture.apiKey = fixture.api.addUser('record').apiKey;
		fixture.credentials = createCredentialStore(
			{
				contactCenterSigningSecretApi: { secret: DEFAULT_SIGNING_SECRET },
				contactCenterRecordApi: {
					baseUrl: fixture.api.baseUrl,
					apiKey: fixture.apiKey,
					dataTableName: RECORD_TABLE,
				},
				...extraCredentials,
			},
			{ credentialTypes: [new ContactCenterSigningSecretApi(), new ContactCenterRecordApi()] },
		);
	});
	afterEach(() => {
		fixture.api.setFaults(undefined);
		fixture.api.slow(0);
		resetRecordTiming();
	});
	afterAll(async () => await fixture.api.stop());
	return fixture;
}

type Simulator = Awaited<ReturnType<typeof startSimulator>>;

/** The service's simulator beside the stand-in, its OAuth2 credential in the fixture's store. */
export function useSimulatorBeside(
	fixture: { credentials: CredentialStore },
	options: Parameters<typeof startSimulator>[0] = {},
) {
	const service = {} as { sim: Simulator };
	beforeAll(async () => {
		service.sim = await startSimulator(options);
		fixture.credentials.set('contactCenterOAuth2Api', {
			baseUrl: service.sim.url,
			clientId: 'sim-client-id',
			clientSecret: 'sim-client-secret',
		});
	});
	afterAll(async () => await service.sim.stop());
	return service;
}

/** Fresh contacts for each campaign of a test file; `prefix` keeps them apart from other files'. */
export function campaignContacts(prefix: string) {
	let campaigns = 0;
	return (count: number) => {
		const campaign = ++campaigns;
		return Array.from(
			{ length: count },
			(_, i) => `${prefix}${String(campaign).padStart(3, '0')}${String(i).padStart(4, '0')}`,
		);
	};
}

/**
 * Runs `verbs` as a node's execute in n8n-core's execution context (its real httpRequest), with
 * the record credential of `credentials`; fails the test when they throw.
 */
export async function runWithRecord(
	credentials: CredentialStore,
	verbs: (context: IExecuteFunctions) => Promise<void>,
) {
	const probe: INodeType = {
		description: {
			displayName: 'Record Probe',
			name: 'recordProbe',
			group: ['transform'],
			version: 1,
			description: 'Calls the record',
			defaults: { name: 'Record Probe' },
			inputs: [NodeConnectionTypes.Main],
			outputs: [NodeConnectionTypes.Main],
			credentials: [{ name: 'contactCenterRecordApi', required: true }],
			properties: [],
		},
		async execute(this: IExecuteFunctions) {
			await verbs(this);
			return [[{ json: {} }]];
		},
	};
	const { error } = await runNode({ nodeType: probe, parameters: {}, credentials });
	expect(error).toBeUndefined();
}

/** The record's rows, or none while its table does not exist yet. */
export function recordRows(api: DataTableApi, apiKey?: string) {
	return api.tables(apiKey).some((table) => table.name === RECORD_TABLE)
		? api.rowsOf(RECORD_TABLE, apiKey)
		: [];
}

export function writeBack(idempotencyKey: string): IDataObject {
	return {
		type: 'CONVERSATION_RESOLVED',
		version: 1,
		idempotencyKey,
		data: { conversation: { id: `conv-${idempotencyKey}`, currentStatus: 'resolved' } },
	};
}

export function signed(body: IDataObject): Delivery {
	const rawBody = Buffer.from(JSON.stringify(body));
	return {
		rawBody,
		headers: {
			'content-type': 'application/json',
			'x-service-signature': signBody(DEFAULT_SIGNING_SECRET, rawBody),
		},
	};
}

export interface Answer {
	key: string;
	delivery: number;
	status?: number;
	state?: string;
}

export const isAccepted = (answer: Answer) =>
	answer.status !== undefined && answer.status >= 200 && answer.status < 300;

/**
 * The service's side of a busy hour: `count` distinct keys, `inFlight` at a time, each delivered
 * again after every answer that is not 2xx, 1, 2, 4, ... scaled hours later, at most 7 times.
 */
export async function deliverAll(
	deliverOne: (delivery: Delivery) => Promise<DeliveryResult>,
	keys: string[],
	{ inFlight = 6, scaledHourMs = 200 } = {},
): Promise<{ first: Answer[]; all: Answer[] }> {
	const first: Answer[] = [];
	const all: Answer[] = [];
	let next = 0;
	await Promise.all(
		Array.from({ length: inFlight }, async () => {
			for (let i = next++; i < keys.length; i = next++) {
				for (let delivery = 0; delivery < 7; delivery++) {
					if (delivery > 0) await sleep(scaledHourMs * 2 ** (delivery - 1));
					const result = await deliverOne(signed(writeBack(keys[i])));
					const answer: Answer = {
						key: keys[i],
						delivery,
						status: result.status,
						state: parseAnswer(result)?.status as string | undefined,
					};
					all.push(answer);
					if (delivery === 0) first.push(answer);
					if (isAccepted(answer)) break;
				}
			}
		}),
	);
	return { first, all };
}

/** Runs per key of the workflow's downstream node, and what the guarantee says of them. */
export function tallyRuns(keys: string[], processed: IDataObject[], answers: Answer[]) {
	const runs = new Map<string, number>();
	for (const item of processed) {
		const key = String(item.idempotencyKey);
		runs.set(key, (runs.get(key) ?? 0) + 1);
	}
	const accepted = new Set(answers.filter(isAccepted).map((answer) => answer.key));
	return {
		runTwice: keys.filter((key) => (runs.get(key) ?? 0) > 1),
		lost: keys.filter((key) => accepted.has(key) && (runs.get(key) ?? 0) === 0),
		neverAccepted: keys.filter((key) => !accepted.has(key)),
	};
}

/** Waits until the condition holds (a row written in the background), failing after `timeoutMs`. */
export async function waitFor(condition: () => boolean, timeoutMs = 10_000) {
	const deadline = Date.now() + timeoutMs;
	while (!condition() && Date.now() < deadline) await sleep(50);
	expect(condition()).toBe(true);
}

/** A write back trigger workflow with a fresh downstream log; `queueMode`: runs as on a worker. */
export function writeBackFlow(credentials: CredentialStore, queueMode = false): FlowOptions {
	return {
		database: createFlowDatabase(),
		triggerType: new ContactCenterTrigger(),
		typeVersion: 1.1,
		parameters: { endpoint: 'writeBack' },
		credentials,
		workflowId: queueMode ? 'queue-faults' : 'faults',
		queueMode,
	};
}

let keyCount = 0;

/** `count` keys no earlier test used. */
export const newKeys = (label: string, count: number) =>
	Array.from({ length: count }, (_, i) => `${label}-${++keyCount}-${i}`);

/** A record credential on the stand-in with `apiKey` (a store of its own: its own credential id). */
export const recordCredentialsWith = (api: DataTableApi, apiKey: string) =>
	createCredentialStore(
		{ contactCenterRecordApi: { baseUrl: api.baseUrl, apiKey, dataTableName: RECORD_TABLE } },
		{ credentialTypes: [new ContactCenterRecordApi()] },
	);

/** The ticket of a claim that must have been taken. */
export const ticketOf = (claimed: Found<Claimed>): Ticket => {
	if (claimed.state !== 'claimed') throw new Error(`The work was not claimed: ${claimed.state}`);
	return claimed.ticket;
};
