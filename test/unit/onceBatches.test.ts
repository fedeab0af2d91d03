import { sleep } from 'n8n-workflow';

import { GATHER, inBatch } from '../../nodes/shared/once/batches';
import type { Lane } from '../../nodes/shared/once/batches';

const lanes = new Map<string, Lane>();
/** A lane by name, as the table client keeps one per kind of call, table and key. */
const lane = (name: string): Lane => {
	if (!lanes.has(name)) lanes.set(name, { busy: false, waiting: [] });
	return lanes.get(name)!;
};

const same = (error: unknown) => error;

/** Long enough for a batch on an idle lane to have gone out. */
const pastGathering = async () => await sleep(GATHER.upToMs + 20);

describe('inBatch', () => {
	test("each batch goes out as its first caller's call; the other callers get its failure as their own", async () => {
		const ranAs: string[] = [];
		let release!: () => void;
		const firstInFlight = new Promise<void>((resolve) => (release = resolve));
		const callerRun = (caller: string) => async (items: string[]) => {
			ranAs.push(`${caller}:${items.join(',')}`);
			if (caller === 'a') await firstInFlight;
			if (items.includes('bad')) throw new Error(`refused, said ${caller}`);
			return items;
		};
		const asOwn = (caller: string) => (error: unknown) =>
			new Error(`${(error as Error).message}, for ${caller}`);
		const a = inBatch(lane('lane-c'), 'a1', callerRun('a'), asOwn('a'));
		await pastGathering();
		const b = inBatch(lane('lane-c'), 'bad', callerRun('b'), asOwn('b'));
		const c = inBatch(lane('lane-c'), 'c1', callerRun('c'), asOwn('c'));
		release();
		await expect(a).resolves.toBe('a1');
		await expect(b).rejects.toThrow('refused, said b');
		await expect(c).rejects.toThrow('refused, said b, for c');
		// The second batch ran as b's call (the first caller of that batch), never as a's.
		expect(ranAs).toEqual(['a:a1', 'b:bad,c1']);
	});

	test('calls arriving while a batch is in flight share the next batch', async () => {
		const batches: number[][] = [];
		let release!: () => void;
		const firstInFlight = new Promise<void>((resolve) => (release = resolve));
		const run = async (items: number[]) => {
			batches.push(items);
			if (batches.length === 1) await firstInFlight;
			return items.map((n) => n * 10);
		};
		const first = inBatch(lane('lane-a'), 1, run, same);
		await pastGathering();
		const later = [2, 3, 4].map(async (n) => await inBatch(lane('lane-a'), n, run, same));
		release();
		expect(await Promise.all([first, ...later])).toEqual([10, 20, 30, 40]);
		expect(batches).toEqual([[1], [2, 3, 4]]);
	});

	test('a failed batch rejects each of its calls and the lane goes on', async () => {
		const run = async (items: string[]) => {
			if (items.includes('bad')) throw new Error('refused');
			return items.map((s) => s.toUpperCase());
		};
		await expect(inBatch(lane('lane-b'), 'bad', run, same)).rejects.toThrow('refused');
		await expect(inBatch(lane('lane-b'), 'ok', run, same)).resolves.toBe('OK');
	});

	test('lanes are independent', async () => {
		const seen: string[] = [];
		const run = (lane: string) => async (items: number[]) => {
			seen.push(`${lane}:${items.join(',')}`);
			return items;
		};
		await Promise.all([
			inBatch(lane('x'), 1, run('x'), same),
			inBatch(lane('y'), 2, run('y'), same),
		]);
		expect(seen.sort()).toEqual(['x:1', 'y:2']);
	});
});

/** A batch function that returns its items and keeps each batch it was given. */
function recordingRun() {
	const batches: number[][] = [];
	const run = async (items: number[]) => {
		batches.push(items);
		return items;
	};
	return { batches, run };
}

describe('inBatch gathering (GATHER)', () => {
	test('an idle lane waits for the calls of the same moment and sends them together', async () => {
		const { batches, run } = recordingRun();
		const calls = [inBatch(lane('lane-g'), 1, run, same)];
		await sleep(1);
		calls.push(inBatch(lane('lane-g'), 2, run, same));
		await sleep(1);
		expect(batches).toEqual([]);
		calls.push(inBatch(lane('lane-g'), 3, run, same));
		expect(await Promise.all(calls)).toEqual([1, 2, 3]);
		expect(batches).toEqual([[1, 2, 3]]);
	});

	test('a call alone goes out once no call joined for quietMs', async () => {
		const { batches, run } = recordingRun();
		expect(await inBatch(lane('lane-h'), 1, run, same)).toBe(1);
		expect(batches).toEqual([[1]]);
	});

	test('a gap without a new call ends the wait', async () => {
		const { batches, run } = recordingRun();
		const first = inBatch(lane('lane-k'), 1, run, same);
		await pastGathering();
		expect(batches).toEqual([[1]]);
		expect(await Promise.all([first, inBatch(lane('lane-k'), 2, run, same)])).toEqual([1, 2]);
		expect(batches).toEqual([[1], [2]]);
	});

	test('it waits no longer than upToMs in all, however steadily calls come', async () => {
		const { batches, run } = recordingRun();
		const calls = [inBatch(lane('lane-l'), 0, run, same)];
		for (let n = 1; n <= 20 && batches.length === 0; n++) {
			await sleep(GATHER.quietMs / 3);
			calls.push(inBatch(lane('lane-l'), n, run, same));
		}
		await Promise.all(calls);
		expect(batches[0].length).toBeGreaterThan(1);
		expect(batches[0].length).toBeLessThan(calls.length);
	});

	test('a batch takes at most upTo calls; the rest go in the next', async () => {
		const { batches, run } = recordingRun();
		const all = Array.from({ length: GATHER.upTo + 5 }, (_, n) => n);
		expect(
			await Promise.all(all.map(async (n) => await inBatch(lane('lane-m'), n, run, same))),
		).toEqual(all);
		expect(batches.map((batch) => batch.length)).toEqual([GATHER.upTo, 5]);
	});
});
