import {
	resolveWebhookDescriptionField,
	webhookDescriptionIsNativelyResolvable,
	type IDataObject,
	type INodeParameters,
} from 'n8n-workflow';

import { ContactCenterSigningSecretApi } from '../../credentials/ContactCenterSigningSecretApi.credentials';
import { ContactCenterTrigger } from '../../nodes/ContactCenterTrigger/ContactCenterTrigger.node';
import { fingerprintOf } from '../../nodes/ContactCenterTrigger/helpers/dedup';
import {
	CLAIM_WINDOW_MS,
	WRITE_BACK_LEDGER_KEY,
} from '../../nodes/ContactCenterTrigger/helpers/writeBackLedger';
import { createCredentialStore } from '../harness';
import { buildWorkflow } from '../harness/workflow-setup';
import {
	createFlowDatabase,
	deliver,
	parseAnswer,
	sharedProcessedDataTable,
	type Delivery,
	type FlowDatabase,
	type FlowOptions,
} from '../harness/run-trigger-flow';
import { DEFAULT_SIGNING_SECRET, signBody } from '../simulator';

const credentials = createCredentialStore(
	{ contactCenterSigningSecretApi: { secret: DEFAULT_SIGNING_SECRET } },
	{ credentialTypes: [new ContactCenterSigningSecretApi()] },
);

let database: FlowDatabase;
let flowCount = 0;
let flow: FlowOptions;

function flowFor(parameters: IDataObject): FlowOptions {
	return {
		database,
		triggerType: new ContactCenterTrigger(),
		typeVersion: 2,
		parameters,
		credentials,
		workflowId: `v2-flow-${++flowCount}`,
	};
}

beforeEach(() => {
	database = createFlowDatabase();
	flow = flowFor({ endpoint: 'writeBack' });
});

afterEach(() => {
	jest.restoreAllMocks();
});

function signedWith(secret: string, body: IDataObject, extra: Partial<Delivery> = {}): Delivery {
	const rawBody = Buffer.from(JSON.stringify(body));
	return {
		rawBody,
		headers: {
			'content-type': 'application/json',
			'x-service-signature': signBody(secret, rawBody),
		},
		...extra,
	};
}

const signed = (body: IDataObject, extra: Partial<Delivery> = {}) =>
	signedWith(DEFAULT_SIGNING_SECRET, body, extra);

function writeBack(idempotencyKey: string, data: IDataObject = {}): IDataObject {
	return {
		type: 'CONVERSATION_RESOLVED',
		version: 1,
		idempotencyKey,
		data: { conversation: { id: `conv-${idempotencyKey}`, currentStatus: 'resolved' }, ...data },
	};
}

const processedKeys = () => database.sink.processed.map((item) => item.idempotencyKey);

const answerOf = (status: string, key: string) => ({
	received: status !== 'inProgress',
	duplicate: status === 'duplicate' || status === 'inProgress',
	idempotencyKey: key,
	status,
});

describe('Contact Center Trigger v2: write back deliveries through n8n-core (webhook call, then the run)', () => {
	it('runs a first delivery and answers 200 "processed" as JSON once the run succeeded', async () => {
		const result = await deliver(flow, signed(writeBack('k1')));
		expect(result.status).toBe(200);
		expect(result.headers['content-type']).toBe('application/json; charset=utf-8');
		expect(parseAnswer(result)).toEqual(answerOf('processed', 'k1'));
		expect(processedKeys()).toEqual(['k1']);
	});

	it('answers a redelivery of a key whose run succeeded with 200 "duplicate" in the same shape, without a run', async () => {
		await deliver(flow, signed(writeBack('k1')));
		const again = await deliver(flow, signed(writeBack('k1')));
		expect(again.status).toBe(200);
		expect(again.headers['content-type']).toBe('application/json; charset=utf-8');
		expect(parseAnswer(again)).toEqual(answerOf('duplicate', 'k1'));
		expect(again.executionId).toBeUndefined();
		expect(processedKeys()).toEqual(['k1']);
	});

	it('keeps its record in the database only: the saved static data names the fingerprint, not the key', async () => {
		await deliver(flow, signed(writeBack('k1')));
		const ledger = (database.staticData['node:Contact Center Trigger'] as IDataObject)[
			WRITE_BACK_LEDGER_KEY
		];
		expect(ledger).toMatch(new RegExp(`^${fingerprintOf('k1')}[0-9a-z]{5}$`));
		expect(JSON.stringify(database.staticData)).not.toContain('k1');
	});

	it('keeps the records of deliveries answered at overlapping times in one process', async () => {
		const keys = ['o1', 'o2', 'o3', 'o4'];
		await Promise.all(keys.map(async (key) => await deliver(flow, signed(writeBack(key)))));
		// In n8n's database, not only in this process's memory: what a restarted n8n would read.
		const ledger = (database.staticData['node:Contact Center Trigger'] as IDataObject)[
			WRITE_BACK_LEDGER_KEY
		] as string;
		for (const key of keys) expect(ledger).toContain(fingerprintOf(key));
		for (const key of keys) {
			expect(parseAnswer(await deliver(flow, signed(writeBack(key))))).toEqual(
				answerOf('duplicate', key),
			);
		}
		expect(processedKeys().sort()).toEqual(keys);
	});

	it('records nothing for a run that failed', async () => {
		await deliver(flow, signed(writeBack('k1', { failThisRun: true })));
		expect(JSON.stringify(database.staticData)).not.toContain(fingerprintOf('k1'));
	});

	it('leaves a failed run to n8n (500) and runs the redelivery again, so nothing is lost', async () => {
		const failed = await deliver(flow, signed(writeBack('k1', { failThisRun: true })));
		expect(failed.status).toBe(500);
		expect(processedKeys()).toEqual([]);

		const retried = await deliver(flow, signed(writeBack('k1')));
		expect(parseAnswer(retried)).toEqual(answerOf('processed', 'k1'));
		expect(processedKeys()).toEqual(['k1']);

		const late = await deliver(flow, signed(writeBack('k1')));
		expect(parseAnswer(late)).toEqual(answerOf('duplicate', 'k1'));
		expect(processedKeys()).toEqual(['k1']);
	});

	it('recognises a redelivery after n8n restarts: nothing it needs lives in the process', async () => {
		await deliver(flow, signed(writeBack('k1')));
		const restarted: FlowDatabase = {
			...database,
			staticData: JSON.parse(JSON.stringify(database.staticData)) as IDataObject,
		};
		const again = await deliver({ ...flow, database: restarted }, signed(writeBack('k1')));
		expect(parseAnswer(again)).toEqual(answerOf('duplicate', 'k1'));
	});

	it("in queue mode never saves the worker's empty static data over the workflow's", async () => {
		database.staticData = { 'node:Other node': { cursor: 42 } };
		const queue = { ...flow, queueMode: true };
		expect(parseAnswer(await deliver(queue, signed(writeBack('k1'))))).toEqual(
			answerOf('processed', 'k1'),
		);
		expect(parseAnswer(await deliver(queue, signed(writeBack('k2'))))).toEqual(
			answerOf('processed', 'k2'),
		);
		expect(database.staticData['node:Other node']).toEqual({ cursor: 42 });
		expect(parseAnswer(await deliver(queue, signed(writeBack('k1'))))).toEqual(
			answerOf('duplicate', 'k1'),
		);
		expect(processedKeys()).toEqual(['k1', 'k2']);
	});

	it('in queue mode, a claim whose write another process overwrote backs off with 409, so only one of them runs', async () => {
		const table = sharedProcessedDataTable();
		const record = table.checkProcessedAndRecord.bind(table);
		// Another n8n process read the row before this claim and writes it back after it.
		const spy = jest
			.spyOn(table, 'checkProcessedAndRecord')
			.mockImplementationOnce(async (items, scope, context, options) => {
				const [rowKey] = [...table.rows.keys()].filter((k) =>
					k.startsWith(`${context.workflow.id}|`),
				);
				const before = rowKey === undefined ? undefined : [...(table.rows.get(rowKey) ?? [])];
				const result = await record(items, scope, context, options);
				const key = [...table.rows.keys()].find((k) => k.startsWith(`${context.workflow.id}|`))!;
				table.rows.set(key, before ?? []);
				return result;
			});
		const result = await deliver({ ...flow, queueMode: true }, signed(writeBack('k1')));
		expect(spy).toHaveBeenCalled();
		expect(result.status).toBe(409);
		expect(processedKeys()).toEqual([]);
	});

	it('answers an unselected type 200 "ignored" in the same shape, without a run', async () => {
		const ignored = await deliver(
			flowFor({ endpoint: 'writeBack', events: ['CONVERSATION_SET_TO_PENDING'] }),
			signed(writeBack('k1')),
		);
		expect(ignored.status).toBe(200);
		expect(ignored.body).toEqual({ ...answerOf('ignored', 'k1'), duplicate: false });
		expect(ignored.executionId).toBeUndefined();
		expect(processedKeys()).toEqual([]);
	});

	it('runs every delivery that carries no idempotency key', async () => {
		const body = writeBack('x');
		delete body.idempotencyKey;
		await deliver(flow, signed(body));
		const second = await deliver(flow, signed(body));
		expect(parseAnswer(second)).toEqual({ ...answerOf('processed', 'x'), idempotencyKey: null });
		expect(database.sink.processed).toHaveLength(2);
	});

	it('"Immediately" answers before the run ends, and still recognises a processed key', async () => {
		const immediate = flowFor({ endpoint: 'writeBack', respond: 'immediately' });
		const failed = await deliver(immediate, signed(writeBack('k1', { failThisRun: true })));
		// Answered before the run failed: the event counts as delivered.
		expect(parseAnswer(failed)).toEqual(answerOf('processed', 'k1'));
		await deliver(immediate, signed(writeBack('k2')));
		expect(parseAnswer(await deliver(immediate, signed(writeBack('k2'))))).toEqual(
			answerOf('duplicate', 'k2'),
		);
	});

	it('keeps no record for calls to the test URL', async () => {
		await deliver(flow, signed(writeBack('k1'), { mode: 'manual' }));
		const again = await deliver(flow, signed(writeBack('k1'), { mode: 'manual' }));
		expect(parseAnswer(again)).toEqual(answerOf('processed', 'k1'));
		expect(processedKeys()).toEqual(['k1', 'k1']);
	});

	it('answers 401 to an unsigned delivery and starts no run', async () => {
		const result = await deliver(flow, { rawBody: Buffer.from('{}'), headers: {} });
		expect(result.status).toBe(401);
		expect(result.executionId).toBeUndefined();
	});
});

describe.each([
	['in one n8n process (claims in its memory)', false],
	['in queue mode (claims in processed_data, runs on a worker)', true],
])('Contact Center Trigger v2: concurrent and interrupted deliveries %s', (_where, queueMode) => {
	const modeFlow = () => ({ ...flow, queueMode });

	it('answers concurrent duplicates "in progress" (409) while the first delivery runs; exactly one runs', async () => {
		const results = await Promise.all(
			Array.from({ length: 6 }, async () => await deliver(modeFlow(), signed(writeBack('k1')))),
		);
		const statuses = results.map((r) => (parseAnswer(r) as IDataObject).status).sort();
		expect(statuses.filter((s) => s === 'processed')).toHaveLength(1);
		expect(
			statuses.every((s) => s === 'processed' || s === 'inProgress' || s === 'duplicate'),
		).toBe(true);
		for (const result of results) {
			expect(result.status).toBe(
				(parseAnswer(result) as IDataObject).status === 'inProgress' ? 409 : 200,
			);
		}
		expect(processedKeys()).toEqual(['k1']);
		expect(parseAnswer(await deliver(modeFlow(), signed(writeBack('k1'))))).toEqual(
			answerOf('duplicate', 'k1'),
		);
	});

	it('runs one of several concurrent redeliveries after a failed run', async () => {
		await deliver(modeFlow(), signed(writeBack('k1', { failThisRun: true })));
		const results = await Promise.all(
			Array.from({ length: 4 }, async () => await deliver(modeFlow(), signed(writeBack('k1')))),
		);
		const statuses = results.map((r) => (parseAnswer(r) as IDataObject).status);
		expect(statuses.filter((s) => s === 'processed')).toHaveLength(1);
		expect(processedKeys()).toEqual(['k1']);
	});

	it('never answers 2xx for a run whose n8n process died; the redelivery runs again after the claim window', async () => {
		const start = Date.now();
		const clock = jest.spyOn(Date, 'now').mockReturnValue(start);
		const crashed = await deliver(modeFlow(), signed(writeBack('k1'), { crash: true }));
		expect(crashed.status).toBeUndefined();

		// A redelivery while the claim stands cannot tell a dead run from a slow one: not 2xx.
		const soon = await deliver(modeFlow(), signed(writeBack('k1')));
		expect(soon.status).toBe(409);

		// The service retries after 1 hour at the earliest; by then the claim has lapsed.
		clock.mockReturnValue(start + 2 * CLAIM_WINDOW_MS + 60_000);
		const later = await deliver(modeFlow(), signed(writeBack('k1')));
		expect(parseAnswer(later)).toEqual(answerOf('processed', 'k1'));
		// The run that died had reached the sink: its effect happened, and happens again.
		expect(processedKeys()).toEqual(['k1', 'k1']);
		expect(parseAnswer(await deliver(modeFlow(), signed(writeBack('k1'))))).toEqual(
			answerOf('duplicate', 'k1'),
		);
	});

	it('claims where every process that may run a duplicate looks: memory in one process, processed_data in queue mode', async () => {
		const claims = jest.spyOn(sharedProcessedDataTable(), 'checkProcessedAndRecord');
		expect(parseAnswer(await deliver(modeFlow(), signed(writeBack('k1'))))).toEqual(
			answerOf('processed', 'k1'),
		);
		expect(claims.mock.calls.length > 0).toBe(queueMode);
	});
});

describe('Contact Center Trigger v2: lookup answered by the trigger when no Respond to Lookup did', () => {
	it('answers 404 with an empty body and no JSON content type after a run that found nobody', async () => {
		const result = await deliver(
			flowFor({ endpoint: 'lookup' }),
			signed({ email: 'x@example.com' }),
		);
		expect(result.status).toBe(404);
		expect(result.body).toBe('');
		expect(result.headers).toEqual({});
	});

	it('answers 500 when "If No Response Is Sent" says so', async () => {
		const result = await deliver(
			flowFor({ endpoint: 'lookup', ifNoResponse: 'serverError' }),
			signed({ email: 'x@example.com' }),
		);
		expect(result.status).toBe(500);
	});

	it('answers a failed lookup run 500 itself (n8n 2.33 to 2.37 would answer 200 first), not 404', async () => {
		const result = await deliver(flowFor({ endpoint: 'lookup' }), signed({ failThisRun: true }));
		expect(result.status).toBe(500);
		const body = typeof result.body === 'string' ? JSON.parse(result.body) : result.body;
		expect(body).toEqual({ message: 'The workflow run failed; the call was not processed' });
	});
});

describe('Contact Center Trigger: webhook description resolved without the expression engine', () => {
	const cases: Array<
		[number, IDataObject, { path: string; responseMode: string; responseCode: number }]
	> = [
		[
			2,
			{ endpoint: 'lookup' },
			{ path: 'lookup', responseMode: 'responseNode', responseCode: 404 },
		],
		[
			2,
			{ endpoint: 'lookup', ifNoResponse: 'serverError' },
			{ path: 'lookup', responseMode: 'responseNode', responseCode: 500 },
		],
		[
			2,
			{ endpoint: 'writeBack' },
			{ path: 'write-back', responseMode: 'responseNode', responseCode: 200 },
		],
		[
			2,
			{ endpoint: 'writeBack', respond: 'immediately' },
			{ path: 'write-back', responseMode: 'responseNode', responseCode: 200 },
		],
		[
			2,
			{ endpoint: 'notification' },
			{ path: 'notification', responseMode: 'onReceived', responseCode: 204 },
		],
		[
			1,
			{ endpoint: 'lookup' },
			{ path: 'lookup', responseMode: 'responseNode', responseCode: 404 },
		],
		[
			1,
			{ endpoint: 'writeBack' },
			{ path: 'write-back', responseMode: 'onReceived', responseCode: 200 },
		],
		[
			1,
			{ endpoint: 'writeBack', responseTiming: 'whenFinished' },
			{ path: 'write-back', responseMode: 'lastNode', responseCode: 200 },
		],
		[
			1,
			{ endpoint: 'notification' },
			{ path: 'notification', responseMode: 'onReceived', responseCode: 204 },
		],
	];

	it.each(cases)(
		'version %i, %j: the native resolvers and the editor templates agree',
		(typeVersion, parameters, expected) => {
			const nodeType = new ContactCenterTrigger();
			const { workflow, node } = buildWorkflow({
				nodeType,
				parameters: parameters as INodeParameters,
				typeVersion,
			});
			const [webhook] = nodeType.description.webhooks ?? [];
			expect(webhookDescriptionIsNativelyResolvable(webhook)).toBe(true);
			for (const field of ['path', 'responseMode', 'responseCode'] as const) {
				const native = resolveWebhookDescriptionField(node, webhook, field);
				const template = workflow.expression.getSimpleParameterValue(
					node,
					webhook[field] as string,
					'webhook',
					{},
				);
				expect({ field, native }).toEqual({
					field,
					native: { resolved: true, value: expected[field] },
				});
				expect({ field, template }).toEqual({ field, template: expected[field] });
			}
		},
	);
});

describe('Contact Center Trigger: signing key reuse', () => {
	const OTHER_SECRET = 'a1'.repeat(32);
	it('reads the credential once a minute, takes a new secret at once, and keeps accepting the replaced one for at most a minute', async () => {
		const store = createCredentialStore(
			{ contactCenterSigningSecretApi: { secret: DEFAULT_SIGNING_SECRET } },
			{ credentialTypes: [new ContactCenterSigningSecretApi()] },
		);
		const reads = jest.spyOn(store, 'getDecrypted');
		const notification = { ...flowFor({ endpoint: 'notification' }), credentials: store };
		const start = Date.now();
		const clock = jest.spyOn(Date, 'now').mockReturnValue(start);
		const body = { eventType: 'DATA_IMPORT_ERROR', messages: [] };

		for (let i = 0; i < 3; i++) {
			expect((await deliver(notification, signedWith(DEFAULT_SIGNING_SECRET, body))).status).toBe(
				200,
			);
		}
		expect(reads).toHaveBeenCalledTimes(1);

		store.set('contactCenterSigningSecretApi', { secret: OTHER_SECRET });
		expect((await deliver(notification, signedWith(OTHER_SECRET, body))).status).toBe(200);
		expect(reads).toHaveBeenCalledTimes(2);

		store.set('contactCenterSigningSecretApi', { secret: DEFAULT_SIGNING_SECRET });
		// Signed with the replaced secret, within the minute: still accepted.
		expect((await deliver(notification, signedWith(OTHER_SECRET, body))).status).toBe(200);
		clock.mockReturnValue(start + 61_000);
		expect((await deliver(notification, signedWith(OTHER_SECRET, body))).status).toBe(401);
		expect((await deliver(notification, signedWith(DEFAULT_SIGNING_SECRET, body))).status).toBe(
			200,
		);
	});
});
