/**
 * Nothing fails silently, in one n8n process: every call the trigger refuses is reported as a run
 * that fails at the trigger (so n8n lists a failed execution and runs the Error Workflow), at most
 * once per cause per 5 minutes, with the count, the cause and the fix; no other node runs and no
 * event's key is touched. The webhook call and the run through n8n-core, the record in the data
 * table API stand-in. Queue mode: trigger-queue.reports.test.ts.
 */
/* eslint-disable @n8n/community-nodes/no-restricted-imports -- a test serves the trigger's own URL with node:http */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { IDataObject, IRunExecutionData } from 'n8n-workflow';

import { resetTriggerState } from '../../nodes/ContactCenterTrigger/processState';
import { REPORT_INTERVAL_MS } from '../../nodes/ContactCenterTrigger/reports';
import { once } from '../../nodes/shared/once';
import { captureLogs } from '../harness';
import { setRecordTiming } from '../harness/processState';
import {
	deliver,
	parseAnswer,
	type Delivery,
	type DeliveryResult,
	type FlowOptions,
} from '../harness/run-trigger-flow';
import { DEFAULT_SIGNING_SECRET, signBody } from '../simulator';
import {
	newKeys,
	recordRows,
	signed,
	useRecordApi,
	waitFor,
	writeBack,
	writeBackFlow,
} from './recordFaults';

const fixture = useRecordApi();

let flow: FlowOptions;
beforeEach(() => {
	resetTriggerState();
	flow = writeBackFlow(fixture.credentials);
});
afterEach(() => {
	fixture.api.setMaxSize(undefined);
	jest.restoreAllMocks();
});

/** A delivery signed with the service's new secret key, which the credential does not have yet. */
const signedWithNewKey = (body: IDataObject): Delivery => {
	const rawBody = Buffer.from(JSON.stringify(body));
	return {
		rawBody,
		headers: {
			'content-type': 'application/json',
			'x-service-signature': signBody('ab'.repeat(32), rawBody),
		},
	};
};

/** The runs the deliveries started: each a report that failed at the trigger, or a real run. */
function runsOf(results: Array<{ executionId?: string }>) {
	return results
		.map((result) => result.executionId)
		.filter((id): id is string => id !== undefined)
		.map((id) => flow.database.executions.get(id) as IRunExecutionData);
}

const errorOf = (run: IRunExecutionData) =>
	run.resultData.error as (Error & { description?: string }) | undefined;

const rowsOfKey = (key: string) =>
	recordRows(fixture.api, fixture.apiKey).filter((row) =>
		String(row.recordKey).endsWith(`|${key}`),
	);

/**
 * The kept key's `done` row is in the record and this process has taken note (it no longer holds
 * the key only in memory, nor believes the storage full): what the next delivery finds.
 */
const keptRowWritten = async (key: string, timeoutMs?: number) =>
	await waitFor(() => {
		const done = rowsOfKey(key).find((row) => row.state === 'done');
		return done !== undefined && once.countDoneOnlyInMemory(String(done.scope)) === 0;
	}, timeoutMs);

/**
 * The trigger's Write Back URL, served on 127.0.0.1 the way n8n serves it: each call is kept and
 * delivered to `deliverTo` (another trigger, for a proxy that routes wrongly), or only answered
 * 202 when `deliverTo` is null (a call captured on its way).
 */
async function serveOwnUrl(of: FlowOptions, deliverTo: FlowOptions | null = of) {
	const calls: DeliveryResult[] = [];
	const requests: Delivery[] = [];
	const server = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			const headers = Object.fromEntries(
				Object.entries(req.headers).map(([name, value]) => [name, String(value)]),
			);
			const request = { rawBody: Buffer.concat(chunks), headers };
			requests.push(request);
			if (deliverTo === null) {
				res.writeHead(202, { 'content-type': 'application/json' }).end('{"message":"reported"}');
				return;
			}
			void deliver(deliverTo, request).then((result) => {
				calls.push(result);
				res
					.writeHead(result.status ?? 500, { 'content-type': 'application/json' })
					.end(JSON.stringify(result.body ?? {}));
			});
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	of.webhookBaseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook`;
	return { calls, requests, close: async () => await new Promise((done) => server.close(done)) };
}

type OwnUrl = Awaited<ReturnType<typeof serveOwnUrl>>;

/**
 * A write back processed while n8n refuses its done row, so that its run makes a report call to
 * the trigger's own URL; resolves with that call once it is made and the row is written.
 */
async function keptWriteBack(label: string, own: OwnUrl): Promise<Delivery> {
	setRecordTiming({ pendingRetryMs: 100 });
	const [warmUp, kept] = newKeys(label, 2);
	expect(parseAnswer(await deliver(flow, signed(writeBack(warmUp))))?.status).toBe('processed');
	const before = own.requests.length;
	fixture.api.setMaxSize(fixture.api.totalSize());
	try {
		expect(parseAnswer(await deliver(flow, signed(writeBack(kept))))?.status).toBe('processed');
		await waitFor(() => own.requests.length > before);
	} finally {
		fixture.api.setMaxSize(undefined);
	}
	await keptRowWritten(kept);
	return own.requests[before];
}

describe('write back in one n8n process: refusals reported in n8n', () => {
	test('a rotated signing secret: 60 deliveries answered 401, one report failing at the trigger with the cause, the count and the fix; none of them runs a node or touches a key', async () => {
		const keys = newKeys('rotated', 60);
		const results = [];
		for (const key of keys) results.push(await deliver(flow, signedWithNewKey(writeBack(key))));
		expect(new Set(results.map((result) => result.status))).toEqual(new Set([401]));
		const reports = runsOf(results);
		expect(reports).toHaveLength(1);
		expect(Object.keys(reports[0].resultData.runData)).toEqual(['Contact Center Trigger']);
		const error = errorOf(reports[0]);
		expect(error?.message).toMatch(
			/^The signature did not match the secret key in the "contactCenterSigningSecretApi credential" credential \(Contact Center Signing Secret API\): 1 call to the write back URL refused \(401\) since /,
		);
		expect(error?.description).toMatch(
			/paste the service's current secret key into the credential/,
		);
		expect(error?.description).toMatch(/again after 1, 2, 4, 8, 16 and 32 hours/);
		expect(error?.description).toMatch(/at most once every 5 minutes/);
		expect(flow.database.sink.processed).toEqual([]);
		expect(keys.flatMap(rowsOfKey)).toEqual([]);

		// Five minutes on: the next refused call reports the 59 counted since, and itself.
		const later = Date.now() + REPORT_INTERVAL_MS;
		jest.spyOn(Date, 'now').mockReturnValue(later);
		const [next] = newKeys('rotated-later', 1);
		const after = await deliver(flow, signedWithNewKey(writeBack(next)));
		expect(errorOf(runsOf([after])[0])?.message).toMatch(
			/: 60 calls to the write back URL refused/,
		);
	});

	test('unsigned calls are a cause of their own: 100 of them make one report, and a rotated secret still gets its own', async () => {
		const results = [];
		for (let i = 0; i < 100; i++)
			results.push(await deliver(flow, { rawBody: Buffer.from('{}'), headers: {} }));
		results.push(await deliver(flow, signedWithNewKey(writeBack(newKeys('own', 1)[0]))));
		const messages = runsOf(results).map((run) => errorOf(run)?.message);
		expect(messages).toEqual([
			expect.stringMatching(
				/^Calls without a valid signature \(The X-Service-Signature header is missing\): 1 call/,
			),
			expect.stringMatching(/^The signature did not match/),
		]);
	});

	test("n8n's storage full: the delivery whose row it refuses is answered 200 and kept in memory; the next ones are refused 503 before their run and reported with the figures and the kept one; once space is freed every event is processed exactly once", async () => {
		setRecordTiming({ pendingRetryMs: 100 });
		const [warmUp, kept, ...refused] = newKeys('full', 5);
		// The first run of the file makes this process one that runs what it receives.
		expect(parseAnswer(await deliver(flow, signed(writeBack(warmUp))))?.status).toBe('processed');
		fixture.api.setMaxSize(fixture.api.totalSize());

		const keptAnswer = await deliver(flow, signed(writeBack(kept)));
		expect(keptAnswer.status).toBe(200);
		const answers = [];
		for (const key of refused) answers.push(await deliver(flow, signed(writeBack(key))));
		expect(answers.map((answer) => answer.status)).toEqual([503, 503, 503]);
		expect(parseAnswer(answers[0])?.message).toMatch(/Data table size limit exceeded/);
		const reports = runsOf(answers);
		expect(reports).toHaveLength(1);
		const error = errorOf(reports[0]);
		expect(error?.message).toMatch(
			/^n8n's data table storage is full \(0 MB of 0 MB used\), so the write back record cannot take new rows: 1 call to the write back URL refused \(503\)/,
		);
		expect(error?.description).toMatch(/N8N_DATA_TABLES_MAX_SIZE_BYTES/);
		expect(error?.description).toMatch(
			/1 processed write back is kept as done only in this n8n process's memory/,
		);
		expect(flow.database.sink.processed.map((item) => item.idempotencyKey)).toEqual([warmUp, kept]);

		fixture.api.setMaxSize(undefined);
		await keptRowWritten(kept);
		for (const key of refused)
			expect(parseAnswer(await deliver(flow, signed(writeBack(key))))?.status).toBe('processed');
		expect(parseAnswer(await deliver(flow, signed(writeBack(kept))))?.status).toBe('duplicate');
		expect(flow.database.sink.processed.map((item) => item.idempotencyKey)).toEqual([
			warmUp,
			kept,
			...refused,
		]);
	});

	test("a write back run while n8n refuses its done row: its run asks for a report through the trigger's own Write Back URL, signed; the report says it is held only in memory and what a restart would do, once per 5 minutes however many are kept", async () => {
		setRecordTiming({ pendingRetryMs: 100 });
		const own = await serveOwnUrl(flow);
		const { calls: ownCalls, requests: ownRequests } = own;
		try {
			const [warmUp, ...kept] = newKeys('kept', 3);
			expect(parseAnswer(await deliver(flow, signed(writeBack(warmUp))))?.status).toBe('processed');
			// Room for the claims' own rows is not needed in one process: every insert is refused.
			fixture.api.setMaxSize(fixture.api.totalSize());
			const first = await deliver(flow, signed(writeBack(kept[0])));
			expect(parseAnswer(first)?.status).toBe('processed');
			await waitFor(() => ownCalls.length === 1);
			expect(ownCalls[0].status).toBe(202);
			const reports = runsOf(ownCalls);
			expect(reports).toHaveLength(1);
			expect(Object.keys(reports[0].resultData.runData)).toEqual(['Contact Center Trigger']);
			const error = errorOf(reports[0]);
			expect(error?.message).toBe(
				"1 write back was processed and answered 200, but n8n's API did not take its record row, so its key is held as done only in the memory of the n8n process that ran it",
			);
			expect(error?.description).toMatch(
				/^Should that process restart before the rows are written, a delivery of the same event would run the workflow again/,
			);
			expect(error?.description).toMatch(/N8N_DATA_TABLES_MAX_SIZE_BYTES/);
			// The sink saw the write back, not the report.
			expect(flow.database.sink.processed.map((item) => item.idempotencyKey)).toEqual([
				warmUp,
				kept[0],
			]);
			expect(flow.database.sink.processed.some((item) => 'contactCenterReportUrl' in item)).toBe(
				false,
			);

			// The same call sent again (captured on its way) is refused: see the replay test below.
			const replayed = await deliver(flow, ownRequests[0]);
			expect(replayed.status).toBe(409);
			expect(flow.database.sink.processed).toHaveLength(2);

			// Within 5 minutes the same process does not ask again.
			fixture.api.setMaxSize(undefined);
			await keptRowWritten(kept[0]);
			fixture.api.setMaxSize(fixture.api.totalSize());
			const second = await deliver(flow, signed(writeBack(kept[1])));
			expect(parseAnswer(second)?.status).toBe('processed');
			expect(ownCalls).toHaveLength(1);
			fixture.api.setMaxSize(undefined);
			await keptRowWritten(kept[1]);
		} finally {
			fixture.api.setMaxSize(undefined);
			await own.close();
		}
	});

	describe("the trigger's own report call: its signature covers the trigger's webhook id, its time and its nonce", () => {
		const reportMessage =
			/^1 write back was processed and answered 200, but n8n's API did not take its record row/;
		let own: OwnUrl;
		afterEach(async () => await own?.close());

		test('a report call signed for another trigger with the same secret is refused 403 and reported, and the run that made it logs that it could not report; the webhook id cannot be changed without breaking the signature', async () => {
			// A proxy routes the run's call to another Write Back trigger whose credential has the same secret.
			const other: FlowOptions = { ...flow, webhookId: 'other-trigger-webhook-id' };
			own = await serveOwnUrl(flow, other);
			const logs = captureLogs();
			let call: Delivery;
			try {
				call = await keptWriteBack('other-trigger', own);
				await waitFor(() =>
					logs.at('warn').some((line) => /could not be reported as a failed execution/.test(line)),
				);
			} finally {
				logs.restore();
			}
			expect(own.calls[0].status).toBe(403);
			expect(parseAnswer(own.calls[0])?.message).toBe(
				'This report call is signed for another trigger (webhook id flow-webhook-id), not for this one (other-trigger-webhook-id); it was not taken',
			);
			const reports = runsOf(own.calls);
			expect(reports.map((run) => errorOf(run)?.message)).toEqual([
				expect.stringMatching(
					/^Report calls signed for another trigger \(webhook id flow-webhook-id\) reached this trigger's Write Back URL: 1 call to the write back URL refused \(403\) since /,
				),
			]);
			expect(errorOf(reports[0])?.description).toMatch(/They change nothing here\./);
			expect(logs.at('warn')).toEqual(
				expect.arrayContaining([
					expect.stringMatching(
						/: Report calls signed for another trigger \(webhook id flow-webhook-id\)/,
					),
					expect.stringMatching(
						/could not be reported as a failed execution: the call to this trigger's Production URL .* was answered 403 \(This report call is signed for another trigger/,
					),
				]),
			);

			// The same call with its webhook id changed to the other trigger's: neither signature matches.
			const forged = Buffer.from(
				call.rawBody.toString('utf8').replace('flow-webhook-id', 'other-trigger-webhook-id'),
			);
			const answer = await deliver(other, { rawBody: forged, headers: call.headers });
			expect(answer.status).toBe(401);
			expect(parseAnswer(answer)?.message).toMatch(
				/does not match the body and the signing secret/,
			);
			expect(runsOf([answer]).map((run) => errorOf(run)?.message)).toEqual([
				expect.stringMatching(/^The signature did not match/),
			]);
		});

		test('a report call more than 60 s off the clock of the process that receives it (late, or the clocks of two n8n processes apart) is refused 403, reported with what it reported, and logged at warn', async () => {
			own = await serveOwnUrl(flow, null);
			const call = await keptWriteBack('stale', own);
			const { at } = JSON.parse(call.rawBody.toString('utf8')) as { at: number };
			jest.spyOn(Date, 'now').mockReturnValue(at + 61_000);
			const logs = captureLogs();
			let stale: DeliveryResult;
			try {
				stale = await deliver(flow, call);
			} finally {
				logs.restore();
				jest.restoreAllMocks();
			}
			expect(stale.status).toBe(403);
			expect(parseAnswer(stale)?.message).toBe(
				`A report call is taken only within 60 s of the time it carries: this one carried ${new Date(at).toISOString()}, 61 s before this n8n process's clock (${new Date(at + 61_000).toISOString()}); it was not taken`,
			);
			const message = new RegExp(
				`^Report calls of this trigger's own runs refused as more than 60 s off this n8n process's clock \\(the last carried ${new Date(at).toISOString().replace(/\./g, '\\.')}, 61 s before .*, reporting 1 write back processed and kept as done only in the memory of the n8n process that ran it\\): 1 call to the write back URL refused \\(403\\)`,
			);
			const reports = runsOf([stale]);
			expect(reports.map((run) => errorOf(run)?.message)).toEqual([expect.stringMatching(message)]);
			expect(errorOf(reports[0])?.description).toMatch(/sync them \(NTP\)/);
			expect(logs.at('warn')).toEqual([
				expect.stringMatching(
					/^Contact Center Trigger "Contact Center Trigger": Report calls of this trigger's own runs refused as more than 60 s off/,
				),
			]);

			// Ahead of the clock by as much: refused the same way, counted into the next report.
			jest.spyOn(Date, 'now').mockReturnValue(at - 61_000);
			const logsAhead = captureLogs();
			let ahead: DeliveryResult;
			try {
				ahead = await deliver(flow, call);
			} finally {
				logsAhead.restore();
				jest.restoreAllMocks();
			}
			expect(ahead.status).toBe(403);
			expect(parseAnswer(ahead)?.message).toMatch(/61 s after this n8n process's clock/);
			expect(runsOf([ahead])).toEqual([]);
			expect(logsAhead.at('warn')).toEqual([]);
		});

		test("a report call sent again is refused 409, reported and logged at warn (never a flood), as long as it could pass as fresh, also when its sender's clock was ahead; another n8n process takes it once, which repeats the report already made and nothing else", async () => {
			own = await serveOwnUrl(flow, null);
			const call = await keptWriteBack('replayed', own);
			const { at } = JSON.parse(call.rawBody.toString('utf8')) as { at: number };
			const processed = flow.database.sink.processed.length;
			const rows = recordRows(fixture.api, fixture.apiKey).length;
			// Taken at once, by a process whose clock is 59 s behind its sender's: reported.
			const clock = jest.spyOn(Date, 'now').mockReturnValue(at - 59_000);
			const logs = captureLogs();
			const answers: DeliveryResult[] = [];
			try {
				answers.push(await deliver(flow, call));
				// Sent again 60 s later, when the call still passes as fresh (1 s off its time): refused.
				clock.mockReturnValue(at + 1_000);
				for (let i = 0; i < 20; i++) answers.push(await deliver(flow, call));
			} finally {
				logs.restore();
				jest.restoreAllMocks();
			}
			expect(answers.map((answer) => answer.status)).toEqual([202, ...Array(20).fill(409)]);
			expect(parseAnswer(answers[1])?.message).toBe(
				'This report call was taken already; each is taken once',
			);
			const reports = runsOf(answers).map((run) => errorOf(run)?.message);
			expect(reports).toEqual([
				expect.stringMatching(reportMessage),
				expect.stringMatching(
					/^Report calls of this trigger's own runs sent again after this n8n process had taken them: 1 call to the write back URL refused \(409\)/,
				),
			]);
			expect(logs.at('warn')).toEqual([
				expect.stringMatching(/: 1 write back was processed and answered 200/),
				expect.stringMatching(/: Report calls of this trigger's own runs sent again/),
			]);

			// Another webhook process (queue mode) has not seen the nonce: it takes the call once
			// and repeats the report, with the same message; no node runs and no key is touched.
			resetTriggerState();
			jest.spyOn(Date, 'now').mockReturnValue(at + 1_000);
			const elsewhere: DeliveryResult[] = [];
			try {
				elsewhere.push(await deliver(flow, call), await deliver(flow, call));
			} finally {
				jest.restoreAllMocks();
			}
			expect(elsewhere.map((answer) => answer.status)).toEqual([202, 409]);
			expect(errorOf(runsOf(elsewhere)[0])?.message).toBe(reports[0]);
			expect(flow.database.sink.processed).toHaveLength(processed);
			expect(recordRows(fixture.api, fixture.apiKey)).toHaveLength(rows);
		});
	});

	test("a delivery whose body carries the report call's fields, signed by the service, is processed as a delivery", async () => {
		const [key] = newKeys('looks-like-report', 1);
		const body = {
			...writeBack(key),
			keptInMemory: 5,
			contactCenterKeptInMemory: 5,
			at: Date.now(),
			nonce: 'n',
		};
		const rawBody = Buffer.from(JSON.stringify(body));
		const signature = signBody(DEFAULT_SIGNING_SECRET, rawBody);
		const answer = await deliver(flow, {
			rawBody,
			headers: {
				'content-type': 'application/json',
				'x-service-signature': signature,
				// Even a report header signed with the secret key itself is no report's.
				'x-contact-center-report': signature,
			},
		});
		expect(parseAnswer(answer)?.status).toBe('processed');
		expect(flow.database.sink.processed.map((item) => item.idempotencyKey)).toEqual([key]);
	});

	test('a call to the Write Back URL asking for a report but not signed with the secret key is refused 401 and reports nothing of the kind', async () => {
		const rawBody = Buffer.from(JSON.stringify({ contactCenterKeptInMemory: 5 }));
		const forged = await deliver(flow, {
			rawBody,
			headers: {
				'content-type': 'application/json',
				'x-service-signature': signBody('cd'.repeat(32), rawBody),
			},
		});
		expect(forged.status).toBe(401);
		expect(runsOf([forged]).map((run) => errorOf(run)?.message)).toEqual([
			expect.stringMatching(/^The signature did not match/),
		]);
	});

	test("n8n's API not answering for longer than the record waits: the delivery running then is kept in memory, the next one is refused 503 and reported as n8n's API not answering, with the kept one", async () => {
		setRecordTiming({ retryBudgetMs: 600, pendingRetryMs: 100 });
		fixture.api.setFaults(() => ({ status: 502 }));
		const [kept, refused] = newKeys('api-down', 2);
		expect((await deliver(flow, signed(writeBack(kept)))).status).toBe(200);
		const answer = await deliver(flow, signed(writeBack(refused)));
		expect(answer.status).toBe(503);
		const error = errorOf(runsOf([answer])[0]);
		expect(error?.message).toMatch(/^n8n's API did not answer the write back record's calls \(/);
		expect(error?.description).toMatch(/did not answer in time/);
		expect(error?.description).toMatch(
			/1 processed write back is kept as done only in this n8n process's memory/,
		);
		fixture.api.setFaults(undefined);
		await keptRowWritten(kept);
		expect(parseAnswer(await deliver(flow, signed(writeBack(refused))))?.status).toBe('processed');
		expect(parseAnswer(await deliver(flow, signed(writeBack(kept))))?.status).toBe('duplicate');
	});

	test('the record key revoked: the delivery the index let run is kept in memory, the next ones are refused 503 and reported as the key expired or revoked, with the steps to a new key', async () => {
		setRecordTiming({ pendingRetryMs: 100 });
		const revoked = fixture.api.addUser('revoked').apiKey;
		const record = fixture.credentials.get('contactCenterRecordApi') ?? {};
		fixture.credentials.set('contactCenterRecordApi', { ...record, apiKey: revoked });
		// Let the process read the credential afresh (its reads are reused for a minute).
		jest.spyOn(Date, 'now').mockReturnValue(Date.now() + 61_000);
		await deliver(flow, signed(writeBack(newKeys('revoked-first', 1)[0])));
		jest.restoreAllMocks();
		fixture.api.revokeKey(revoked);
		const keys = newKeys('revoked', 3);
		const answers = [];
		for (const key of keys) answers.push(await deliver(flow, signed(writeBack(key))));
		expect(answers.map((answer) => answer.status)).toEqual([200, 503, 503]);
		const reports = runsOf(answers.slice(1));
		expect(reports).toHaveLength(1);
		expect(errorOf(reports[0])?.message).toMatch(
			/^The record's n8n API key was refused by n8n \(.*check the key you pasted/,
		);
		// The key has no expiry date that passed: the cause says to check the key, naming 401 once.
		expect(errorOf(reports[0])?.message).toContain('(HTTP 401): check the key you pasted');
		expect(String(errorOf(reports[0])?.message).match(/401/g)).toHaveLength(1);
		expect(errorOf(reports[0])?.description).toMatch(/Settings -> n8n API -> Create API key/);
		expect(errorOf(reports[0])?.description).toMatch(/1 processed write back is kept/);
		expect(flow.database.sink.processed.map((item) => item.idempotencyKey).slice(-1)).toEqual([
			keys[0],
		]);
		// The user pastes a new key: the next delivery reads it, and the kept row waiting in the
		// background (which reads no credential itself: it holds no execution) is written with it.
		fixture.credentials.set('contactCenterRecordApi', record);
		const [next] = newKeys('revoked-next', 1);
		expect(parseAnswer(await deliver(flow, signed(writeBack(next))))?.status).toBe('processed');
		await keptRowWritten(keys[0], 20_000);
	}, 30_000);
	test('the record key past its expiry: deliveries are refused 503 and reported as the key expired, not as refused by n8n', async () => {
		const user = fixture.api.addUser('expiring');
		const expiring = fixture.api.addKey(user.userId, { expiresAt: Date.now() + 30_000 });
		const record = fixture.credentials.get('contactCenterRecordApi') ?? {};
		fixture.credentials.set('contactCenterRecordApi', { ...record, apiKey: expiring });
		// A minute on: the credential is read afresh (reads are reused for a minute), its key expired.
		jest.spyOn(Date, 'now').mockReturnValue(Date.now() + 61_000);
		const answers = [];
		for (const key of newKeys('expired', 2))
			answers.push(await deliver(flow, signed(writeBack(key))));
		jest.restoreAllMocks();
		fixture.credentials.set('contactCenterRecordApi', record);
		expect(answers.map((answer) => answer.status)).toEqual([503, 503]);
		const reports = runsOf(answers);
		expect(reports).toHaveLength(1);
		expect(errorOf(reports[0])?.message).toMatch(
			/^The record's n8n API key expired \(.* expired on /,
		);
		expect(errorOf(reports[0])?.description).toMatch(/Settings -> n8n API -> Create API key/);
	});
});
