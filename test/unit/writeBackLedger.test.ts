import type { IDataObject, IRunExecutionData } from 'n8n-workflow';

import {
	CLAIM_WINDOW_MS,
	claimItems,
	outcomeOfRun,
	claimToken,
	recordProcessed,
	wasProcessed,
	WRITE_BACK_LEDGER_KEY,
	writeBackAnswer,
} from '../../nodes/ContactCenterTrigger/helpers/writeBackLedger';

const HOUR = 60 * 60 * 1000;
const now = Date.UTC(2026, 10, 23, 12, 0, 0);

describe('write back ledger (static data)', () => {
	it('records a processed delivery and recognises it within the retention', () => {
		const staticData: IDataObject = {};
		recordProcessed(staticData, 'fp1', now);
		expect(wasProcessed(staticData, 'fp1', now + 71 * HOUR)).toBe(true);
		expect(wasProcessed(staticData, 'fp1', now + 73 * HOUR)).toBe(false);
		expect(wasProcessed(staticData, 'other', now)).toBe(false);
	});

	it('stores the minute of the last answer in base 36 under the fingerprint', () => {
		const staticData: IDataObject = {};
		recordProcessed(staticData, 'fp1', now);
		recordProcessed(staticData, 'fp1', now + HOUR);
		expect(staticData[WRITE_BACK_LEDGER_KEY]).toEqual({
			fp1: Math.floor((now + HOUR) / 60000).toString(36),
		});
	});

	it('forgets entries past the retention and keeps at most maxEntries, dropping the oldest', () => {
		const staticData: IDataObject = {};
		const limits = { retentionMs: 72 * HOUR, maxEntries: 3 };
		recordProcessed(staticData, 'old', now - 73 * HOUR, limits);
		recordProcessed(staticData, 'a', now - 3 * HOUR, limits);
		recordProcessed(staticData, 'b', now - 2 * HOUR, limits);
		recordProcessed(staticData, 'c', now - HOUR, limits);
		recordProcessed(staticData, 'd', now, limits);
		expect(Object.keys(staticData[WRITE_BACK_LEDGER_KEY] as IDataObject).sort()).toEqual([
			'b',
			'c',
			'd',
		]);
	});

	it('never fails on unreadable saved data: a broken ledger or entry counts as none', () => {
		expect(wasProcessed({ [WRITE_BACK_LEDGER_KEY]: 'garbage' }, 'fp', now)).toBe(false);
		expect(wasProcessed({ [WRITE_BACK_LEDGER_KEY]: { fp: 12 } }, 'fp', now)).toBe(false);
		expect(wasProcessed({ [WRITE_BACK_LEDGER_KEY]: { fp: 'not base 36!' } }, 'fp', now)).toBe(
			false,
		);
		const broken: IDataObject = { [WRITE_BACK_LEDGER_KEY]: ['x'] };
		recordProcessed(broken, 'fp', now);
		expect(wasProcessed(broken, 'fp', now)).toBe(true);
	});
});

describe('outcome of a saved run', () => {
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

describe('claims and answers', () => {
	it('claims the current and the previous window, with a token of the claiming run', () => {
		const window = Math.floor(now / CLAIM_WINDOW_MS);
		expect(claimItems('fp', now)).toEqual([`fp@${window}`, `fp@${window - 1}`]);
		expect(claimToken('fp', '17')).toBe('fp!17');
		// Deliveries on either side of a window boundary share a claim item.
		const boundary = (window + 1) * CLAIM_WINDOW_MS;
		const before = claimItems('fp', boundary - 1);
		const after = claimItems('fp', boundary + 1);
		expect(after.filter((item) => before.includes(item))).toHaveLength(1);
	});

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
		expect(writeBackAnswer('inProgress', 'k')).toEqual({
			statusCode: 409,
			body: { received: false, duplicate: true, idempotencyKey: 'k', status: 'inProgress' },
		});
	});
});
