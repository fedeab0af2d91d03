import type { IDataObject, IRunExecutionData } from 'n8n-workflow';

import {
	jsonResponse,
	outcomeOfRun,
	writeBackAnswer,
} from '../../nodes/ContactCenterTrigger/answers';

describe('outcome of a run', () => {
	const run = (resultData: IDataObject, stack: unknown[] = []) =>
		({ resultData, executionData: { nodeExecutionStack: stack } }) as unknown as IRunExecutionData;
	const ran = { Trigger: [{}], Sink: [{}] };

	it('succeeded: finished, no error, the trigger ran', () => {
		expect(outcomeOfRun(run({ runData: ran, lastNodeExecuted: 'Sink' }), 'Trigger')).toBe(
			'succeeded',
		);
	});

	it('failed: an error on the run or on its last node', () => {
		expect(
			outcomeOfRun(
				run({ runData: ran, lastNodeExecuted: 'Sink', error: { message: 'x' } }),
				'Trigger',
			),
		).toBe('failed');
		expect(
			outcomeOfRun(
				run({
					runData: { Trigger: [{}], Sink: [{ error: { message: 'x' } }] },
					lastNodeExecuted: 'Sink',
				}),
				'Trigger',
			),
		).toBe('failed');
	});

	it('unknown: no record, or the record of a run that never ended (its process died)', () => {
		expect(outcomeOfRun(undefined, 'Trigger')).toBe('unknown');
		expect(outcomeOfRun(run({ runData: {} }, [{ node: {} }]), 'Trigger')).toBe('unknown');
		expect(outcomeOfRun(run({ runData: ran, lastNodeExecuted: 'Sink' }, [{}]), 'Trigger')).toBe(
			'unknown',
		);
	});
});

describe('write back answers', () => {
	it('answers every case in one shape; only "in progress" is not 2xx', () => {
		expect(writeBackAnswer('processed', 'k')).toEqual({
			statusCode: 200,
			body: { received: true, duplicate: false, idempotencyKey: 'k', status: 'processed' },
		});
		expect(writeBackAnswer('duplicate', 'k').body).toMatchObject({
			received: true,
			duplicate: true,
		});
		expect(writeBackAnswer('ignored', undefined)).toEqual({
			statusCode: 200,
			body: { received: true, duplicate: false, idempotencyKey: null, status: 'ignored' },
		});
		expect(writeBackAnswer('running', 'k')).toEqual({
			statusCode: 409,
			body: { received: false, duplicate: true, idempotencyKey: 'k', status: 'running' },
		});
	});

	it('sends an answer from the run as the exact JSON bytes with a JSON content type', () => {
		const { statusCode, body } = writeBackAnswer('processed', 'k');
		const response = jsonResponse(statusCode, body);
		expect(response.statusCode).toBe(200);
		expect(response.headers).toEqual({ 'content-type': 'application/json; charset=utf-8' });
		expect(Buffer.isBuffer(response.body)).toBe(true);
		expect(JSON.parse(String(response.body))).toEqual(body);
	});
});
