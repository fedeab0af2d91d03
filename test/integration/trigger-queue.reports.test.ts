/**
 * Nothing fails silently, in n8n queue mode: every claim is a row, so a full storage refuses every
 * write back before its run, and each refusal counts towards one report per 5 minutes in the
 * process that received it. One process's side: trigger.reports.test.ts.
 */
import type { IRunExecutionData } from 'n8n-workflow';

import { resetTriggerState } from '../../nodes/ContactCenterTrigger/processState';
import { deliver, parseAnswer, type FlowOptions } from '../harness/run-trigger-flow';
import {
	newKeys,
	recordRows,
	signed,
	useRecordApi,
	writeBack,
	writeBackFlow,
} from './recordFaults';

const fixture = useRecordApi();

let flow: FlowOptions;
beforeEach(() => {
	resetTriggerState();
	flow = writeBackFlow(fixture.credentials, true);
});

test("n8n's storage full: 30 write backs refused 503 before any run, one report with n8n's figures; after space is freed each is processed exactly once", async () => {
	const [warmUp, ...keys] = newKeys('queue-full', 31);
	expect(parseAnswer(await deliver(flow, signed(writeBack(warmUp))))?.status).toBe('processed');
	fixture.api.setMaxSize(fixture.api.totalSize());
	const answers = [];
	for (const key of keys) answers.push(await deliver(flow, signed(writeBack(key))));
	expect(new Set(answers.map((answer) => answer.status))).toEqual(new Set([503]));
	const reports = answers
		.filter((answer) => answer.executionId !== undefined)
		.map((answer) => flow.database.executions.get(answer.executionId!) as IRunExecutionData);
	expect(reports).toHaveLength(1);
	expect(Object.keys(reports[0].resultData.runData)).toEqual(['Contact Center Trigger']);
	expect(reports[0].resultData.error?.message).toMatch(
		/^n8n's data table storage is full \(0 MB of 0 MB used\), so the write back record cannot take new rows: 1 call to the write back URL refused \(503\)/,
	);
	expect(flow.database.sink.processed.map((item) => item.idempotencyKey)).toEqual([warmUp]);
	// No claim was left behind by the refused deliveries or the report.
	expect(recordRows(fixture.api, fixture.apiKey).filter((row) => row.state === 'running')).toEqual(
		[],
	);

	fixture.api.setMaxSize(undefined);
	for (const key of keys)
		expect(parseAnswer(await deliver(flow, signed(writeBack(key))))?.status).toBe('processed');
	for (const key of keys)
		expect(parseAnswer(await deliver(flow, signed(writeBack(key))))?.status).toBe('duplicate');
	expect(flow.database.sink.processed.map((item) => item.idempotencyKey)).toEqual([
		warmUp,
		...keys,
	]);
}, 30_000);
