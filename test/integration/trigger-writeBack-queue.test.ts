/**
 * Write back deliveries as in n8n queue mode, through n8n-core: the webhook call, then the run on
 * a worker, which gets its item through the database, so every claim is a row in the record (the
 * data table API stand-in). One process's side: trigger-writeBack.test.ts.
 */
import type { IDataObject } from 'n8n-workflow';

import { DEFAULT_RECORD_WINDOWS } from '../../nodes/shared/once';
import { deliver, parseAnswer, type Delivery, type FlowOptions } from '../harness/run-trigger-flow';
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
	flow = writeBackFlow(fixture.credentials, true);
});
afterEach(() => jest.restoreAllMocks());

const failing = (key: string): IDataObject => ({
	...writeBack(key),
	data: { conversation: { id: `conv-${key}` }, failThisRun: true },
});

const processedKeys = () => flow.database.sink.processed.map((item) => item.idempotencyKey);

const statesOf = (key: string) =>
	recordRows(fixture.api, fixture.apiKey)
		.filter((row) => String(row.recordKey).endsWith(`|${key}`))
		.map((row) => row.state);

const statusOf = async (delivery: Delivery, options: FlowOptions = flow) =>
	parseAnswer(await deliver(options, delivery))?.status;

describe('write back in queue mode (claims as rows, runs on a worker)', () => {
	it('claims each delivery with a row that its run turns done; a redelivery is a duplicate', async () => {
		const [key] = newKeys('claimed', 1);
		expect(await statusOf(signed(writeBack(key)))).toBe('processed');
		expect(statesOf(key)).toEqual(['done']);
		expect(await statusOf(signed(writeBack(key)))).toBe('duplicate');
		expect(statesOf(key)).toEqual(['done']);
		expect(processedKeys()).toEqual([key]);
	});

	it('with n8n saving no successful executions: the worker turns the claim done; a redelivery is a duplicate', async () => {
		const unsaved = { ...flow, saveSuccessfulExecutions: false };
		const [key] = newKeys('unsaved', 1);
		expect(await statusOf(signed(writeBack(key)), unsaved)).toBe('processed');
		expect(statesOf(key)).toEqual(['done']);
		expect(await statusOf(signed(writeBack(key)), unsaved)).toBe('duplicate');
		expect(processedKeys()).toEqual([key]);
	});

	it('gives the claim up when the run fails (no row left), and runs the redelivery', async () => {
		const [key] = newKeys('failed', 1);
		expect((await deliver(flow, signed(failing(key)))).status).toBe(500);
		expect(statesOf(key)).toEqual([]);
		expect(await statusOf(signed(writeBack(key)))).toBe('processed');
		expect(processedKeys()).toEqual([key]);
	});

	it('answers concurrent duplicates "in progress" (409) while the first delivery runs; exactly one runs', async () => {
		const [key] = newKeys('concurrent', 1);
		const results = await Promise.all(
			Array.from({ length: 6 }, async () => await deliver(flow, signed(writeBack(key)))),
		);
		const statuses = results.map((result) => parseAnswer(result)?.status);
		expect(statuses.filter((status) => status === 'processed')).toHaveLength(1);
		expect(
			statuses.every((status) => ['processed', 'running', 'duplicate'].includes(String(status))),
		).toBe(true);
		for (const result of results) {
			expect(result.status).toBe(parseAnswer(result)?.status === 'running' ? 409 : 200);
		}
		expect(processedKeys()).toEqual([key]);
		expect(statesOf(key)).toEqual(['done']);
	});

	it('runs one of several concurrent redeliveries after a failed run', async () => {
		const [key] = newKeys('redeliveries', 1);
		await deliver(flow, signed(failing(key)));
		const statuses = await Promise.all(
			Array.from({ length: 4 }, async () => await statusOf(signed(writeBack(key)))),
		);
		expect(statuses.filter((status) => status === 'processed')).toHaveLength(1);
		expect(processedKeys()).toEqual([key]);
	});

	it('never answers 2xx for a run whose worker died; the redelivery runs again after the claim window', async () => {
		const [key] = newKeys('crash', 1);
		const start = Date.now();
		const clock = jest.spyOn(Date, 'now').mockReturnValue(start);
		const crashed = await deliver(flow, { ...signed(writeBack(key)), crash: true });
		expect(crashed.status).toBeUndefined();
		expect(statesOf(key)).toEqual(['running']);

		// A redelivery while the claim stands cannot tell a dead run from a slow one: not 2xx.
		expect((await deliver(flow, signed(writeBack(key)))).status).toBe(409);

		// The service retries after 1 hour at the earliest; by then the claim has lapsed.
		clock.mockReturnValue(start + DEFAULT_RECORD_WINDOWS.claimMs + 60_000);
		expect(await statusOf(signed(writeBack(key)))).toBe('processed');
		// The run that died had reached the sink: its effect happened, and happens again.
		expect(processedKeys()).toEqual([key, key]);
		expect(await statusOf(signed(writeBack(key)))).toBe('duplicate');
	});
});
