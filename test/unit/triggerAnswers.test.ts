import type { IDataObject, IRunExecutionData } from 'n8n-workflow';

import {
	CLAIM_WINDOW_MS,
	claimItems,
	outcomeOfRun,
	claimToken,
	LEDGER_RECORD_LENGTH,
	recordProcessed,
	wasProcessed,
	WRITE_BACK_LEDGER_KEY,
	writeBackAnswer,
} from '../../nodes/ContactCenterTrigger/helpers/writeBackLedger';

const HOUR = 60 * 60 * 1000;
const now = Date.UTC(2026, 10, 23, 12, 0, 0);

describe('write back ledger (static data)', () => {
	const minute = (time: number) => Math.floor(time / 60000);
	const fp = (n: number) => `fingerprint${n}`.slice(-12).padStart(12, 'x');

	it('records a processed delivery and recognises it within the retention', () => {
		const staticData: IDataObject = {};
		recordProcessed(staticData, [[fp(1), minute(now)]], now);
		expect(wasProcessed(staticData, fp(1), now + 71 * HOUR)).toBe(true);
		expect(wasProcessed(staticData, fp(1), now + 73 * HOUR)).toBe(false);
		expect(wasProcessed(staticData, fp(2), now)).toBe(false);
	});

	it('saves one string of 17-character records, oldest first; a later answer moves a record to the end', () => {
		const staticData: IDataObject = {};
		recordProcessed(staticData, [[fp(1), minute(now)]], now);
		recordProcessed(staticData, [[fp(2), minute(now + 1000)]], now);
		recordProcessed(staticData, [[fp(1), minute(now + HOUR)]], now + HOUR);
		const saved = staticData[WRITE_BACK_LEDGER_KEY] as string;
		expect(saved).toHaveLength(2 * LEDGER_RECORD_LENGTH);
		expect(saved).toBe(
			`${fp(2)}${minute(now + 1000).toString(36)}${fp(1)}${minute(now + HOUR).toString(36)}`,
		);
	});

	it('matches a fingerprint only at a record boundary', () => {
		const staticData: IDataObject = {};
		recordProcessed(staticData, [[fp(1), minute(now)]], now);
		const inside = (staticData[WRITE_BACK_LEDGER_KEY] as string).slice(5, 17);
		expect(wasProcessed(staticData, inside, now)).toBe(false);
	});

	it('merges several records at once, the latest minute winning', () => {
		const staticData: IDataObject = {};
		recordProcessed(staticData, [[fp(1), minute(now)]], now);
		recordProcessed(
			staticData,
			[
				[fp(2), minute(now)],
				[fp(1), minute(now - HOUR)],
			],
			now,
		);
		expect(staticData[WRITE_BACK_LEDGER_KEY]).toBe(
			`${fp(1)}${minute(now).toString(36)}${fp(2)}${minute(now).toString(36)}`,
		);
	});

	it('forgets records past the retention and keeps at most maxEntries, dropping the oldest', () => {
		const staticData: IDataObject = {};
		const limits = { retentionMs: 72 * HOUR, maxEntries: 3 };
		const times = [now - 73 * HOUR, now - 3 * HOUR, now - 2 * HOUR, now - HOUR, now];
		times.forEach((time, n) => recordProcessed(staticData, [[fp(n), minute(time)]], now, limits));
		expect(times.map((_, n) => wasProcessed(staticData, fp(n), now, limits))).toEqual([
			false,
			false,
			true,
			true,
			true,
		]);
	});

	it('records into a full ledger by rewriting its tail only: the oldest record drops, a far older record of the same delivery ages out later', () => {
		const staticData: IDataObject = {};
		const limits = { retentionMs: 72 * HOUR, maxEntries: 10000 };
		const full = Array.from(
			{ length: 10000 },
			(_, n) => [fp(n), minute(now - 10 * HOUR) + Math.floor(n / 1000)] as [string, number],
		);
		recordProcessed(staticData, full, now, limits);
		const before = staticData[WRITE_BACK_LEDGER_KEY] as string;

		recordProcessed(staticData, [[fp(10000), minute(now)]], now, limits);
		const after = staticData[WRITE_BACK_LEDGER_KEY] as string;
		expect(after).toHaveLength(10000 * LEDGER_RECORD_LENGTH);
		expect(after.slice(0, -2 * LEDGER_RECORD_LENGTH)).toBe(
			before.slice(LEDGER_RECORD_LENGTH, -LEDGER_RECORD_LENGTH),
		);
		expect(wasProcessed(staticData, fp(0), now, limits)).toBe(false);
		expect(wasProcessed(staticData, fp(10000), now, limits)).toBe(true);

		// fp(5) lies far before the tail: answered again, it gets a second, newer record.
		recordProcessed(staticData, [[fp(5), minute(now)]], now, limits);
		const again = staticData[WRITE_BACK_LEDGER_KEY] as string;
		expect(again.endsWith(`${fp(5)}${minute(now).toString(36)}`)).toBe(true);
		expect(wasProcessed(staticData, fp(5), now + 71 * HOUR, limits)).toBe(true);
		expect(wasProcessed(staticData, fp(6), now + 71 * HOUR, limits)).toBe(false);
	});

	it('never fails on unreadable saved data: it counts as no record', () => {
		for (const saved of ['garbage', 12, { a: 1 }, `${fp(1)}zzzz`]) {
			const staticData: IDataObject = { [WRITE_BACK_LEDGER_KEY]: saved as never };
			expect(wasProcessed(staticData, fp(1), now)).toBe(false);
			recordProcessed(staticData, [[fp(1), minute(now)]], now);
			expect(wasProcessed(staticData, fp(1), now)).toBe(true);
		}
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
