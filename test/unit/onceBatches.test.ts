import { sleep } from 'n8n-workflow';

import { inBatch } from '../../nodes/shared/once/batches';
import type { Lane } from '../../nodes/shared/once/batches';

const lanes = new Map<string, Lane>();
/** A lane by name, as the table client keeps one per kind of call, table and key. */
const lane = (name: string): Lane => {
	if (!lanes.has(name)) lanes.set(name, { busy: false, waiting: [] });
	return lanes.get(name)!;
};

const same = (error: unknown) => error;

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
		const b = inBatch(lane('lane-c'), 'bad', callerRun('b'), asOwn('b'));
		const c = inBatch(lane('lane-c'), 'c1', callerRun('c'), asOwn('c'));
		release();
		await expect(a).resolves.toBe('a1');
		await expect(b).rejects.toThrow('refused, said b');
		await expect(c).rejects.toThrow('refused, said b, for c');
		// The second batch ran as b's call (the first caller of that batch), never as a's.
		expect(ranAs).toEqual(['a:a1', 'b:bad,c1']);
	});

	test('a call on an idle lane goes out alone; calls arriving meanwhile share the next batch', async () => {
		const batches: number[][] = [];
		let release!: () => void;
		const firstInFlight = new Promise<void>((resolve) => (release = resolve));
		const run = async (items: number[]) => {
			batches.push(items);
			if (batches.length === 1) await firstInFlight;
			return items.map((n) => n * 10);
		};
		const first = inBatch(lane('lane-a'), 1, run, same);
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

describe('inBatch with gathering', () => {
	test('an idle lane waits for the calls it was told to expect and sends them together', async () => {
		const { batches, run } = recordingRun();
		const gather = { ms: 500, upToMs: 500, until: 3 };
		const calls = [inBatch(lane('lane-g'), 1, run, same, gather)];
		await sleep(1);
		calls.push(inBatch(lane('lane-g'), 2, run, same, gather));
		await sleep(1);
		expect(batches).toEqual([]);
		calls.push(inBatch(lane('lane-g'), 3, run, same, gather));
		expect(await Promise.all(calls)).toEqual([1, 2, 3]);
		expect(batches).toEqual([[1, 2, 3]]);
	});

	test('it goes out after the wait when fewer calls came', async () => {
		const { batches, run } = recordingRun();
		expect(await inBatch(lane('lane-h'), 1, run, same, { ms: 5, upToMs: 5, until: 4 })).toBe(1);
		expect(batches).toEqual([[1]]);
	});

	test('told to expect only itself, a call goes out at once', async () => {
		const { batches, run } = recordingRun();
		const call = inBatch(lane('lane-i'), 1, run, same, { ms: 500, upToMs: 500, until: 1 });
		await sleep(1);
		expect(batches).toEqual([[1]]);
		await call;
	});

	test('while calls keep coming within the gap, the batch waits longer than one gap', async () => {
		const { batches, run } = recordingRun();
		const gather = { ms: 50, upToMs: 5_000, until: 20 };
		const calls = [inBatch(lane('lane-j'), 0, run, same, gather)];
		// Twelve more, 10 ms apart: 120 ms in all, more than twice the gap.
		for (let n = 1; n <= 12; n++) {
			await sleep(10);
			calls.push(inBatch(lane('lane-j'), n, run, same, gather));
		}
		expect(batches).toEqual([]);
		const all = Array.from({ length: 13 }, (_, n) => n);
		expect(await Promise.all(calls)).toEqual(all);
		expect(batches).toEqual([all]);
	});

	test('a gap without a new call ends the wait', async () => {
		const { batches, run } = recordingRun();
		const gather = { ms: 10, upToMs: 5_000, until: 10 };
		const first = inBatch(lane('lane-k'), 1, run, same, gather);
		await sleep(200);
		expect(batches).toEqual([[1]]);
		expect(await Promise.all([first, inBatch(lane('lane-k'), 2, run, same, gather)])).toEqual([
			1, 2,
		]);
		expect(batches).toEqual([[1], [2]]);
	});

	test('it waits no longer than upToMs in all, however steadily calls come', async () => {
		const { batches, run } = recordingRun();
		const gather = { ms: 1_000, upToMs: 60, until: 100 };
		const calls = [inBatch(lane('lane-l'), 0, run, same, gather)];
		for (let n = 1; n <= 10 && batches.length === 0; n++) {
			await sleep(20);
			calls.push(inBatch(lane('lane-l'), n, run, same, gather));
		}
		await Promise.all(calls);
		// Out after about 60 ms (three or four calls in), the rest in the next batch.
		expect(batches[0].length).toBeGreaterThan(1);
		expect(batches[0].length).toBeLessThan(calls.length);
	});
});
