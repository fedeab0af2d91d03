import type { IDataObject, IRunExecutionData } from 'n8n-workflow';

import {
	CLAIM_WINDOW_MS,
	claimItems,
	outcomeOfRun,
	readLedgerEntry,
	recordLedgerEntry,
	WRITE_BACK_LEDGER_KEY,
	writeBackAnswer,
} from '../../nodes/ContactCenterTrigger/helpers/writeBackLedger';

const HOUR = 60 * 60 * 1000;
const now = Date.UTC(2026, 10, 23, 12, 0, 0);

describe('write back ledger (static data)', () => {
	it('records the run that took a delivery and reads it back', () => {
		const staticData: IDataObject = {};
		recordLedgerEntry(staticData, 'fp1', '42', now);
		expect(readLedgerEntry(staticData, 'fp1')).toEqual({ executionId: '42', minute: now / 60000 });
		expect(readLedgerEntry(staticData, 'other')).toBeUndefined();
	});

	it('replaces the entry of a redelivered key with the newer run', () => {
		const staticData: IDataObject = {};
		recordLedgerEntry(staticData, 'fp1', '1', now);
		recordLedgerEntry(staticData, 'fp1', '7', now + HOUR);
		expect(readLedgerEntry(staticData, 'fp1')?.executionId).toBe('7');
		expect(Object.keys(staticData[WRITE_BACK_LEDGER_KEY] as IDataObject)).toEqual(['fp1']);
	});

	it('forgets entries past the retention and keeps at most maxEntries, dropping the oldest', () => {
		const staticData: IDataObject = {};
		const limits = { retentionMs: 72 * HOUR, maxEntries: 3 };
		recordLedgerEntry(staticData, 'old', '1', now - 73 * HOUR, limits);
		recordLedgerEntry(staticData, 'a', '2', now - 3 * HOUR, limits);
		recordLedgerEntry(staticData, 'b', '3', now - 2 * HOUR, limits);
		recordLedgerEntry(staticData, 'c', '4', now - HOUR, limits);
		recordLedgerEntry(staticData, 'd', '5', now, limits);
		expect(Object.keys(staticData[WRITE_BACK_LEDGER_KEY] as IDataObject).sort()).toEqual([
			'b',
			'c',
			'd',
		]);
	});

	it('never fails on unreadable saved data: a broken ledger or entry counts as none', () => {
		expect(readLedgerEntry({ [WRITE_BACK_LEDGER_KEY]: 'garbage' }, 'fp')).toBeUndefined();
		expect(readLedgerEntry({ [WRITE_BACK_LEDGER_KEY]: { fp: 12 } }, 'fp')).toBeUndefined();
		expect(readLedgerEntry({ [WRITE_BACK_LEDGER_KEY]: { fp: 'no colon' } }, 'fp')).toBeUndefined();
		const broken: IDataObject = { [WRITE_BACK_LEDGER_KEY]: ['x'] };
		recordLedgerEntry(broken, 'fp', '9', now);
		expect(readLedgerEntry(broken, 'fp')?.executionId).toBe('9');
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
	it('claims the current and the previous window, per previous run', () => {
		const window = Math.floor(now / CLAIM_WINDOW_MS);
		expect(claimItems('fp', now)).toEqual([`fp@${window}#`, `fp@${window - 1}#`]);
		expect(claimItems('fp', now, '17')).toEqual([`fp@${window}#17`, `fp@${window - 1}#17`]);
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
