/**
 * End to end on n8n 2.41.1 (the `e2e` project), one process (one-process.ts describes the stack):
 * what the trigger's write back guarantee and its tools do in a real n8n beyond the main paths of
 * contactCenterCompat.e2e.test.ts (which the `e2e` project runs beside this file, and the
 * `e2e-oldest` project on n8n 2.36.8): `npm run call`, the durable record of keys processed one
 * after another, a body that is not JSON, a record credential that cannot reach the record, 100,000
 * keys in the record, rows changed by hand, an n8n restart with a CLI export and import and a
 * rename, n8n killed with deliveries in flight and with a delivery enqueued, and n8n's data table
 * size limit. The tests run in order and some build on the state left by the previous ones.
 */
import * as helpersModule from './helpers';
import {
	type Json,
	EXAMPLE_WRITE_BACK_SCOPE,
	FAILING_WRITE_BACK,
	activationErrorOf,
	answerOfWriteBack,
	executionsOf,
	expectWebhookRegistered,
	fixtureHooks,
	instance,
	local,
	oneProcessStack,
	oneProcessStateDir,
	recordRows,
	recordTableId,
	redeliverExpectingDuplicate,
	restartN8n,
	rt,
	runningExecutionsOf,
	secret,
	triggerOutput,
	unfinishedRuns,
	useOneProcessStack,
	webhook,
	workflowId,
	writeBackAnswer,
	writeBackExecutionsUntil,
} from './one-process';

const {
	EXAMPLE_3_ADA,
	postSigned,
	npmRunCall,
	report,
	triggerReportOf,
	waitFor,
	writeBackPayload: writeBack,
}: Json = helpersModule;

useOneProcessStack([]);
const stack = oneProcessStack;
const stateDir = oneProcessStateDir;

describe('trigger endpoints with signed requests (undici)', () => {
	const ada = EXAMPLE_3_ADA;

	test('npm run call: the printed commands play the service against each active example', async () => {
		const lookup = await npmRunCall(stateDir(), 'lookup');
		expect(lookup).toEqual({
			url: webhook('lookup'),
			status: 200,
			body: { autoConfirm: false, attributes: ada },
		});

		const key = `npm-call-${Date.now()}`;
		const first = await npmRunCall(stateDir(), 'write-back', '--key', key);
		expect(first).toEqual({
			url: webhook('writeBack'),
			status: 200,
			body: writeBackAnswer('processed', key),
		});
		const again = await npmRunCall(stateDir(), 'write-back', '--key', key);
		expect([
			{ status: 200, body: writeBackAnswer('duplicate', key) },
			{ status: 409, body: writeBackAnswer('running', key) },
		]).toContainEqual({ status: again.status, body: again.body });

		const notificationRuns = (await executionsOf(workflowId('notification'))).length;
		const notification = await npmRunCall(stateDir(), 'notification');
		expect(notification).toEqual({ url: webhook('notification'), status: 204, body: null });
		await waitFor(
			async () => (await executionsOf(workflowId('notification'))).length > notificationRuns,
			{ what: 'the run of the notification example' },
		);
	});

	/** Write back keys accepted by calls that started a run, for the restart test at the end. */
	const acceptedOneAfterAnother: string[] = [];

	test('write back: redeliveries of events processed one after another are all recognised, and the durable record holds every key as done', async () => {
		const id = workflowId('writeBack');
		const before = (await executionsOf(id)).length;
		const stamp = Date.now();
		const keys = ['c1', 'c2', 'c3'].map((k) => `wb-${stamp}-${k}`);
		acceptedOneAfterAnother.push(...keys);
		for (const key of keys) {
			const res = await postSigned(webhook('writeBack'), writeBack(key, `conv-${key}`), {
				secret: secret('writeBack'),
			});
			expect(res.status).toBe(200);
			await writeBackExecutionsUntil(key);
		}
		// Not the first key first: each was accepted by a call that started a run.
		for (const key of [keys[1], keys[2], keys[0]]) {
			await redeliverExpectingDuplicate(key);
		}
		const sentinel = `wb-${stamp}-sentinel`;
		await postSigned(webhook('writeBack'), writeBack(sentinel, 'conv-sentinel'), {
			secret: secret('writeBack'),
		});
		const executions = await writeBackExecutionsUntil(sentinel);
		const ran = executions
			.slice(0, executions.length - before)
			.map((e) => triggerOutput(e, 'Conversation resolved or pending')?.idempotencyKey)
			.filter((k) => k !== undefined)
			.sort();
		expect(ran).toEqual([...keys, sentinel].sort());

		// The durable record: one `done` row per key, in the data table, and nothing in static data.
		const done = await recordRows(EXAMPLE_WRITE_BACK_SCOPE);
		for (const key of keys) {
			expect({
				key,
				rows: done
					.filter((r) => r.recordKey === `${EXAMPLE_WRITE_BACK_SCOPE}|${key}`)
					.map((r) => r.state),
			}).toEqual({
				key,
				rows: ['done'],
			});
		}
	});

	test("a signed body that is not JSON runs none of the workflow's nodes: 400 from the trigger (reported at most once, failed at the trigger), or 422 from n8n's own parser when sent as JSON", async () => {
		const garbage = '{"idempotencyKey": "wb-garbage", oops';
		const id = workflowId('writeBack');
		const beforeIds = (await executionsOf(id)).map((execution: Json) => String(execution.id));
		const answers = {
			asJson: await postSigned(webhook('writeBack'), garbage, { secret: secret('writeBack') }),
			asText: await postSigned(webhook('writeBack'), garbage, {
				secret: secret('writeBack'),
				contentType: 'text/plain',
			}),
		};
		expect(Object.fromEntries(Object.entries(answers).map(([k, a]) => [k, a.status]))).toEqual({
			asJson: 422,
			asText: 400,
		});
		// The sentinel: a valid delivery's run listed means runs of the calls above would be too.
		const sentinel = await postSigned(
			webhook('writeBack'),
			writeBack(`wb-${Date.now()}-after-garbage`, 'conv-g'),
			{
				secret: secret('writeBack'),
			},
		);
		expect(sentinel.status).toBe(200);
		// The report of the refused call may be listed before it: wait for a run that is not one.
		const newRuns = async () =>
			(await executionsOf(id, true)).filter(
				(execution: Json) => !beforeIds.includes(String(execution.id)),
			);
		await waitFor(
			async () =>
				(await newRuns()).some(
					(execution: Json) => !triggerReportOf(execution) && execution.finished,
				),
			{ what: 'the run of the valid write back' },
		);
		const added = await newRuns();
		const reports = added.filter((execution: Json) => triggerReportOf(execution));
		expect(added.length - reports.length).toBe(1);
		expect(reports.length).toBeLessThanOrEqual(1);
		for (const execution of reports)
			expect(triggerReportOf(execution).message).toMatch(
				/^Signed calls whose body was not a JSON object/,
			);
	});

	test('write back: a trigger whose record credential cannot reach the record refuses to activate, or its calls are not run (503 naming what n8n answered, or not registered)', async () => {
		const credential = await rt.publicApi(instance(), 'POST', '/credentials', {
			name: 'e2e record with a wrong key',
			type: 'contactCenterRecordApi',
			data: {
				baseUrl: `${instance().baseUrl}/api/v1`,
				apiKey: 'not-a-valid-key',
				dataTableName: local.RECORD_TABLE_NAME,
			},
		});
		const example = stack().workflows.find((w: Json) => w.endpoint === 'writeBack').workflow;
		const nodes = JSON.parse(JSON.stringify(example.nodes));
		const trigger = nodes.find((n: Json) => n.type.endsWith('contactCenterTrigger'));
		trigger.webhookId = '0e2e0bad-0000-4000-8000-00000000c0de';
		trigger.credentials.contactCenterRecordApi = { id: credential.id, name: credential.name };
		const created = await rt.publicApi(instance(), 'POST', '/workflows', {
			name: 'e2e: write back with an unusable record',
			nodes,
			connections: example.connections,
			settings: { executionOrder: 'v1' },
		});
		const refusal = await rt.activateWorkflow(instance(), created.id).then(
			() => 'activated',
			(error: Error) => error.message,
		);
		report(`[e2e] activation with an unusable record credential: ${refusal.slice(0, 300)}`);
		if (refusal === 'activated') {
			// n8n 2.41.1 reports the activation through the public API as done all the same. Then
			// either the trigger's check kept the webhook from being registered (the service's
			// calls get 404 and are delivered again later), or every call must be refused. The
			// webhook may be listed for a moment while n8n undoes the failed activation, so the
			// answer itself says which of the two happened.
			const url = `${instance().baseUrl}/webhook/${trigger.webhookId}/write-back`;
			const key = `wb-${Date.now()}-unusable-record`;
			const res = await postSigned(url, writeBack(key, 'conv-x'), { secret: secret('writeBack') });
			report(`[e2e] a call to it: ${res.status} ${res.text.slice(0, 200)}`);
			if (res.status === 404) {
				expect(String(res.json?.message)).toContain('is not registered');
			} else {
				expect({ status: res.status, message: String(res.json?.message) }).toEqual({
					status: 503,
					message: expect.stringContaining('The write back record could not be read'),
				});
				expect(res.json.message).toContain('401');
			}
			// Nothing ran but, for a refusal, its report: a run that failed at the trigger.
			const executions = await executionsOf(created.id, true);
			expect(executions.filter((execution: Json) => !triggerReportOf(execution))).toEqual([]);
			expect(executions.length).toBeLessThanOrEqual(res.status === 503 ? 1 : 0);
		} else {
			expect(refusal).toContain('The write back record cannot be used');
			expect(refusal).toContain('401');
		}
	});

	test('write back answered after the workflow succeeds: a Wait of 70 s after the trigger refuses activation, naming the Wait node; nothing is registered or run', async () => {
		const example = stack().workflows.find((w: Json) => w.endpoint === 'writeBack').workflow;
		const trigger = JSON.parse(
			JSON.stringify(example.nodes.find((n: Json) => n.type.endsWith('contactCenterTrigger'))),
		);
		trigger.webhookId = '0e2e0a17-0000-4000-8000-0000000070e5';
		expect(trigger.parameters.respond ?? 'afterSuccess').toBe('afterSuccess');
		const wait = {
			id: '0e2e0a17-0000-4000-8000-00000000a170',
			name: 'Wait for the CRM',
			type: 'n8n-nodes-base.wait',
			typeVersion: 1.1,
			position: [trigger.position[0] + 220, trigger.position[1]],
			parameters: { amount: 70 },
		};
		const created = await rt.publicApi(instance(), 'POST', '/workflows', {
			name: 'e2e: write back with a Wait of 70 s',
			nodes: [trigger, wait],
			connections: {
				[trigger.name]: { main: [[{ node: wait.name, type: 'main', index: 0 }]] },
			},
			settings: { executionOrder: 'v1' },
		});
		const refusal = await activationErrorOf(created.id);
		report(`[e2e] activation with a Wait of 70 s: ${refusal}`);
		expect(refusal).toContain(
			'The node "Wait for the CRM" (a Wait of 70 seconds) can pause the run, so a write back cannot be answered "After the Workflow Succeeds"',
		);
		expect((await rt.registeredWebhooks(instance())).map((r: Json) => r.workflowId)).not.toContain(
			created.id,
		);
		expect(await executionsOf(created.id)).toEqual([]);
	});

	test('write back: with 100,000 keys in the record (72 hours at 33,000 a day), a key answered 71 hours ago is still a duplicate and new keys run, while the process loads its index of the record and once it has', async () => {
		const tableId = await recordTableId();
		const stamp = Date.now();
		const total = 100_000;
		const spanMs = 71 * 60 * 60 * 1000;
		const keyAt = (i: number) => `cap-${stamp}-${i}`;
		for (let from = 0; from < total; from += 5000) {
			const data = Array.from({ length: 5000 }, (_, j) => ({
				scope: EXAMPLE_WRITE_BACK_SCOPE,
				recordKey: `${EXAMPLE_WRITE_BACK_SCOPE}|${keyAt(from + j)}`,
				state: 'done',
				stateAt: stamp - Math.round(((from + j) / (total - 1)) * spanMs),
				detail: '',
			}));
			await rt.publicApi(instance(), 'POST', `/data-tables/${tableId}/rows`, { data });
		}
		const id = workflowId('writeBack');
		// Rows added by hand count for a running process from a minute after, or at once after
		// the workflow is activated again (its index of the record is loaded anew).
		await rt.publicApi(instance(), 'POST', `/workflows/${id}/deactivate`);
		await rt.activateWorkflow(instance(), id);
		await expectWebhookRegistered(webhook('writeBack'));
		const logBefore = rt.readLog(instance()).length;
		const before = (await executionsOf(id)).length;
		const expectDuplicate = async (i: number) => {
			const res = await postSigned(webhook('writeBack'), writeBack(keyAt(i), `conv-cap-${i}`), {
				secret: secret('writeBack'),
			});
			expect({ i, status: res.status, body: res.json }).toEqual({
				i,
				status: 200,
				body: writeBackAnswer('duplicate', keyAt(i)),
			});
		};
		const expectProcessed = async (fresh: string) => {
			const res = await postSigned(webhook('writeBack'), writeBack(fresh, 'conv-cap-new'), {
				secret: secret('writeBack'),
			});
			expect({ status: res.status, body: res.json }).toEqual({
				status: 200,
				body: writeBackAnswer('processed', fresh),
			});
			await writeBackExecutionsUntil(fresh);
		};
		for (const i of [0, 50_000, total - 1]) await expectDuplicate(i);
		await expectProcessed(`cap-${stamp}-new`);
		const loaded = await waitFor(
			async () =>
				rt
					.readLog(instance())
					.slice(logBefore)
					.split('\n')
					.find((line: string) => line.includes("loaded into this process's index")),
			{ what: 'the index of the record loaded', timeoutMs: 300_000, intervalMs: 500 },
		);
		report(`[e2e] ${loaded.replace(/^.*Contact Center record: /, '')}`);
		for (const i of [1, 60_000, total - 2]) await expectDuplicate(i);
		await expectProcessed(`cap-${stamp}-new-after-load`);
		expect((await executionsOf(id)).length - before).toBe(2);
	}, 600_000);

	// Before the restart test: the trigger's index of the record was loaded by the deliveries above.
	test('write back in one process: a done row deleted by hand (to allow a rerun) counts at once and the redelivery runs once; a done row added by hand counts from a minute after', async () => {
		const tableId = await recordTableId();
		const id = workflowId('writeBack');
		const stamp = Date.now();
		const deliver = async (key: string) => {
			const res = await postSigned(webhook('writeBack'), writeBack(key, `conv-${key}`), {
				secret: secret('writeBack'),
			});
			return { status: res.status, body: res.json };
		};
		const added = `hand-added-${stamp}`;
		await rt.publicApi(instance(), 'POST', `/data-tables/${tableId}/rows`, {
			data: [
				{
					scope: EXAMPLE_WRITE_BACK_SCOPE,
					recordKey: `${EXAMPLE_WRITE_BACK_SCOPE}|${added}`,
					state: 'done',
					stateAt: Date.now(),
					detail: '',
				},
			],
		});
		const addedAt = Date.now();

		const rerun = `hand-deleted-${stamp}`;
		const before = (await executionsOf(id)).length;
		expect(await deliver(rerun)).toEqual({
			status: 200,
			body: writeBackAnswer('processed', rerun),
		});
		await writeBackExecutionsUntil(rerun);
		await redeliverExpectingDuplicate(rerun);
		const keyRows = `/data-tables/${tableId}/rows/delete?${new URLSearchParams({
			filter: JSON.stringify({
				type: 'and',
				filters: [
					{
						columnName: 'recordKey',
						condition: 'eq',
						value: `${EXAMPLE_WRITE_BACK_SCOPE}|${rerun}`,
					},
				],
			}),
		})}`;
		await rt.publicApi(instance(), 'DELETE', keyRows);
		expect(
			(await recordRows(EXAMPLE_WRITE_BACK_SCOPE)).filter(
				(r) => r.recordKey === `${EXAMPLE_WRITE_BACK_SCOPE}|${rerun}`,
			),
		).toEqual([]);
		expect(await deliver(rerun)).toEqual({
			status: 200,
			body: writeBackAnswer('processed', rerun),
		});
		const executions = await writeBackExecutionsUntil(rerun);
		const runs = executions
			.slice(0, executions.length - before)
			.filter(
				(e) => triggerOutput(e, 'Conversation resolved or pending')?.idempotencyKey === rerun,
			);
		expect(runs).toHaveLength(2);
		await redeliverExpectingDuplicate(rerun);

		await rt.sleep(Math.max(0, addedAt + 61_000 - Date.now()));
		const beforeAdded = (await executionsOf(id)).length;
		expect(await deliver(added)).toEqual({
			status: 200,
			body: writeBackAnswer('duplicate', added),
		});
		await rt.sleep(1_000);
		expect((await executionsOf(id)).length).toBe(beforeAdded);
	}, 180_000);

	// It restarts n8n; the tests after it kill or restart it too.
	test('write back: redeliveries of processed events stay duplicates after an n8n restart, a CLI export and import, a rename of the trigger node saved with old static data (public API GET then PUT), and deactivation and activation', async () => {
		expect(acceptedOneAfterAnother).toHaveLength(3);
		const id = workflowId('writeBack');
		const before = await rt.publicApi(instance(), 'GET', `/workflows/${id}`);
		await rt.stopServer(instance());
		const exported = `${stateDir()}/exported-write-back.json`;
		await rt.n8nCli(instance(), ['export:workflow', `--id=${id}`, `--output=${exported}`]);
		await rt.n8nCli(instance(), ['import:workflow', `--input=${exported}`]);
		await rt.startServer(instance(), { log: (line: string) => report(`[e2e] ${line}`) });
		// The import leaves the workflow inactive; n8n's answer is reported if the activation fails.
		const activation = await rt.activateWorkflow(instance(), id).then(
			() => 'activated',
			(error: Error) => error.message,
		);
		report(`[e2e] after the restart and import: ${activation}`);
		await expectWebhookRegistered(webhook('writeBack'));
		for (const key of acceptedOneAfterAnother) await redeliverExpectingDuplicate(key);

		// The editor's save and a sync from git: the whole workflow PUT back, node renamed, static data as read before.
		const current = await rt.publicApi(instance(), 'GET', `/workflows/${id}`);
		const oldName = 'Conversation resolved or pending';
		const newName = 'Write back (renamed)';
		const rename = (value: unknown) =>
			JSON.parse(JSON.stringify(value).split(JSON.stringify(oldName).slice(1, -1)).join(newName));
		await rt.publicApi(instance(), 'PUT', `/workflows/${id}`, {
			name: current.name,
			nodes: rename(current.nodes),
			connections: rename(current.connections),
			settings: current.settings,
			staticData: before.staticData ?? null,
		});
		await rt.publicApi(instance(), 'POST', `/workflows/${id}/deactivate`);
		await rt.activateWorkflow(instance(), id);
		await expectWebhookRegistered(webhook('writeBack'));
		for (const key of acceptedOneAfterAnother) await redeliverExpectingDuplicate(key);
	});

	// After the restart test: it kills n8n, and the trigger node is named as that test left it.
	test('write back: n8n killed (SIGKILL) while deliveries are in flight, 8 at a time: no key answered 2xx is lost or run again, and every other key is recorded done or runs once when redelivered after the restart', async () => {
		const id = workflowId('writeBack');
		const triggerName = 'Write back (renamed)';
		const stamp = Date.now();
		const keys = Array.from({ length: 60 }, (_, i) => `kill-${stamp}-${i}`);
		const deliver = async (key: string) => await answerOfWriteBack(webhook('writeBack'), key);
		const answered = new Map<string, string>();
		let next = 0;
		const sending = Promise.all(
			Array.from({ length: 8 }, async () => {
				while (next < keys.length) {
					const key = keys[next++];
					answered.set(key, await deliver(key));
				}
			}),
		);
		await waitFor(
			async () => [...answered.values()].filter((a) => a === '200 processed').length >= 15,
			{ what: '15 write backs answered processed', intervalMs: 5 },
		);
		await rt.killServer(instance());
		await sending;
		const before = [...answered.values()];
		const tally = (answers: string[]) =>
			answers.reduce<Record<string, number>>((t, a) => ({ ...t, [a]: (t[a] ?? 0) + 1 }), {});
		report(`[e2e] answers until the SIGKILL: ${JSON.stringify(tally(before))}`);
		const processedBefore = keys.filter((key) => answered.get(key) === '200 processed');
		const rest = keys.filter((key) => answered.get(key) !== '200 processed');
		expect(processedBefore.length).toBeGreaterThanOrEqual(15);
		expect(rest.length).toBeGreaterThan(0);

		await rt.startServer(instance(), { log: (line: string) => report(`[e2e] ${line}`) });
		await expectWebhookRegistered(webhook('writeBack'));
		// At its start n8n runs the executions it had enqueued but not started when it was killed
		// (enqueued-execution-recovery.service.js): their keys are recorded done by those runs. The
		// service's first retry comes an hour later; let them end first (the next test overlaps them).
		await waitFor(async () => (await unfinishedRuns(id)) === 0, {
			what: 'the runs n8n started again at its restart to end',
		});
		const restartedAt = Date.now();
		const after = new Map<string, string>();
		let redelivered = 0;
		await Promise.all(
			Array.from({ length: 8 }, async () => {
				while (redelivered < keys.length) {
					const key = keys[redelivered++];
					after.set(key, await deliver(key));
				}
			}),
		);
		report(`[e2e] redeliveries after the restart: ${JSON.stringify(tally([...after.values()]))}`);
		expect(processedBefore.filter((key) => after.get(key) !== '200 duplicate')).toEqual([]);
		// A key not answered before the kill either ran and was recorded done before it (duplicate)
		// or runs now: never 409 (the claims died with n8n), never lost.
		expect(
			rest.filter((key) => !['200 processed', '200 duplicate'].includes(after.get(key) ?? '')),
		).toEqual([]);
		const runNow = rest.filter((key) => after.get(key) === '200 processed');

		// Every run after the restart has ended and was saved: one per redelivered key at least.
		const runsAfterRestart = await waitFor(
			async () => {
				const list = (await executionsOf(id, true)).filter(
					(e) => Date.parse(e.startedAt) >= restartedAt,
				);
				if (list.some((e) => !e.stoppedAt)) return undefined;
				const runs = new Map<string, number>();
				for (const execution of list) {
					const key = triggerOutput(execution, triggerName)?.idempotencyKey;
					if (key) runs.set(key, (runs.get(key) ?? 0) + 1);
				}
				return runNow.every((key) => runs.has(key)) ? runs : undefined;
			},
			{ what: 'the runs of the redelivered keys', timeoutMs: 120_000 },
		);
		expect(keys.filter((key) => !runNow.includes(key) && runsAfterRestart.has(key))).toEqual([]);
		expect(runNow.filter((key) => runsAfterRestart.get(key) !== 1)).toEqual([]);

		const stored = new Set<string>();
		const tables = await rt.publicApi(instance(), 'GET', '/data-tables?limit=100');
		const table = (tables.data as Json[]).find((t) => t.name === local.CONVERSATIONS_TABLE.name);
		for (let cursor: string | undefined; ; ) {
			const page = await rt.publicApi(
				instance(),
				'GET',
				`/data-tables/${table!.id}/rows?limit=250${cursor ? `&cursor=${cursor}` : ''}`,
			);
			for (const row of page.data as Json[]) stored.add(row.idempotencyKey);
			if (!page.nextCursor) break;
			cursor = page.nextCursor;
		}
		expect(keys.filter((key) => !stored.has(key))).toEqual([]);
		for (const key of keys)
			expect({ key, answer: await deliver(key) }).toEqual({ key, answer: '200 duplicate' });
	});

	// After the SIGKILL test: it kills n8n again.
	test('write back: a delivery n8n had enqueued but not started when it was killed is run by n8n itself at its restart; redeliveries meanwhile, three at a time, are answered 409 and then duplicate: one run', async () => {
		const url = fixtureHooks[FAILING_WRITE_BACK.id];
		const stamp = Date.now();
		const running = `wb-${stamp}-running-at-kill`;
		const enqueued = `wb-${stamp}-enqueued-at-kill`;
		const deliver = async (key: string, slowMs = 0) =>
			await answerOfWriteBack(url, key, { slowMs });
		const restart = async (kill: boolean, concurrencyLimit: string | undefined) =>
			await restartN8n(url, { N8N_CONCURRENCY_PRODUCTION_LIMIT: concurrencyLimit }, { kill });

		const overlap: string[][] = [];
		try {
			// With one production execution at a time, the second delivery's execution waits, enqueued.
			await restart(false, '1');
			// A first run teaches this process that it runs its own deliveries, so that the next
			// claims are holds in its memory, which die with it (no claim row to find afterwards).
			expect(await deliver(`wb-${stamp}-first-run`)).toBe('200 processed');
			await waitFor(async () => (await unfinishedRuns(FAILING_WRITE_BACK.id)) === 0, {
				what: 'the first run to end',
			});
			const first = deliver(running, 20_000);
			await waitFor(async () => (await unfinishedRuns(FAILING_WRITE_BACK.id)) === 1, {
				what: 'the first delivery to run',
			});
			const second = deliver(enqueued, 8000);
			await waitFor(async () => (await unfinishedRuns(FAILING_WRITE_BACK.id)) === 2, {
				what: 'the second delivery to be enqueued',
			});
			await restart(true, undefined);
			expect([await first, await second]).toEqual(['no answer', 'no answer']);

			// n8n now runs the enqueued delivery (its CRM write takes 8 s). Once its run has started
			// (its first node holds the key), redeliver it meanwhile and until it is answered.
			await waitFor(
				async () => {
					// A running execution's saved data is still its start: the trigger's item on the stack.
					return (await runningExecutionsOf(FAILING_WRITE_BACK.id, true)).some(
						(e) =>
							e.data?.executionData?.nodeExecutionStack?.[0]?.data?.main?.[0]?.[0]?.json
								?.idempotencyKey === enqueued,
					);
				},
				{ what: 'n8n to run the enqueued delivery' },
			);
			await rt.sleep(1000);
			// Three redeliveries at once every 0.5 s, until a round has no 409 left.
			for (let round = 0; round < 60; round++) {
				overlap.push(await Promise.all([1, 2, 3].map(async () => await deliver(enqueued))));
				if (!overlap.at(-1)!.includes('409 running')) break;
				await rt.sleep(500);
			}
		} finally {
			if (instance().env.N8N_CONCURRENCY_PRODUCTION_LIMIT !== undefined)
				await restart(false, undefined);
		}
		report(
			`[e2e] redeliveries while n8n ran the enqueued delivery again: ${JSON.stringify(overlap)}`,
		);
		const answers = overlap.flat();
		expect(answers.filter((a) => !['409 running', '200 duplicate'].includes(a))).toEqual([]);
		expect(overlap[0]).toEqual(['409 running', '409 running', '409 running']);
		expect(overlap.at(-1)).toEqual(['200 duplicate', '200 duplicate', '200 duplicate']);

		const runs = await waitFor(
			async () => {
				if ((await unfinishedRuns(FAILING_WRITE_BACK.id)) > 0) return undefined;
				return (await executionsOf(FAILING_WRITE_BACK.id, true)).filter(
					(e) => triggerOutput(e, 'Write back')?.idempotencyKey === enqueued,
				);
			},
			{ what: `the runs of ${enqueued}` },
		);
		expect(runs.map((e: Json) => e.status)).toEqual(['success']);
		expect(runs[0].data?.resultData?.runData?.['Write to CRM']).toHaveLength(1);
	});

	// Last: it restarts n8n twice, with a data table size limit the record is already past and without.
	test("write back: past n8n's data table size limit (N8N_DATA_TABLES_MAX_SIZE_BYTES) a freshly started n8n answers 503 naming the limit and starts no run; with room again the key is processed once", async () => {
		const url = fixtureHooks[FAILING_WRITE_BACK.id];
		const stamp = Date.now();
		const deliver = async (key: string) => {
			const res = await postSigned(url, writeBack(key, `conv-${key}`), {
				secret: secret('writeBack'),
			});
			return { status: res.status, body: res.json };
		};
		const earlier = `wb-${stamp}-before-limit`;
		expect((await deliver(earlier)).status).toBe(200);
		const restart = async (limit: string | undefined) =>
			await restartN8n(url, { N8N_DATA_TABLES_MAX_SIZE_BYTES: limit });

		const key = `wb-${stamp}-at-limit`;
		const atLimit: Json[] = [];
		try {
			// A limit of 1 byte: any data table content is past it.
			await restart('1');
			atLimit.push(await deliver(key), await deliver(key), await deliver(earlier));
			report(`[e2e] at the data table size limit: ${JSON.stringify(atLimit[0])}`);
		} finally {
			await restart(undefined);
		}
		// Before its first run a process claims with a row insert, which n8n refuses: no run, and the
		// service delivers again later (a key processed before too: it is not lost, only not answered).
		for (const answer of atLimit) {
			expect(answer.status).toBe(503);
			expect(answer.body.message).toMatch(
				/^The write back record could not be read, so the delivery was not processed: .*Data table size limit exceeded/,
			);
		}
		const runsOf = async (idempotencyKey: string) =>
			(await executionsOf(FAILING_WRITE_BACK.id, true)).filter(
				(e) => triggerOutput(e, 'Write back')?.idempotencyKey === idempotencyKey,
			);
		expect(await runsOf(key)).toEqual([]);

		expect(await deliver(key)).toEqual({ status: 200, body: writeBackAnswer('processed', key) });
		expect(await deliver(key)).toEqual({ status: 200, body: writeBackAnswer('duplicate', key) });
		expect(await deliver(earlier)).toEqual({
			status: 200,
			body: writeBackAnswer('duplicate', earlier),
		});
		const runs = await waitFor(
			async () => {
				if ((await unfinishedRuns(FAILING_WRITE_BACK.id)) > 0) return undefined;
				const list = await runsOf(key);
				return list.length > 0 ? list : undefined;
			},
			{ what: `the run of ${key}` },
		);
		expect(runs.map((e: Json) => e.status)).toEqual(['success']);
	});
});
