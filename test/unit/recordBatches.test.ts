import { inBatch } from '../../nodes/shared/record/batches';

describe('inBatch', () => {
	test('a call on an idle lane goes out alone; calls arriving meanwhile share the next batch', async () => {
		const batches: number[][] = [];
		let release!: () => void;
		const firstInFlight = new Promise<void>((resolve) => (release = resolve));
		const run = async (items: number[]) => {
			batches.push(items);
			if (batches.length === 1) await firstInFlight;
			return items.map((n) => n * 10);
		};
		const first = inBatch('lane-a', 1, run);
		const later = [2, 3, 4].map(async (n) => await inBatch('lane-a', n, run));
		release();
		expect(await Promise.all([first, ...later])).toEqual([10, 20, 30, 40]);
		expect(batches).toEqual([[1], [2, 3, 4]]);
	});

	test('a failed batch rejects each of its calls and the lane goes on', async () => {
		const run = async (items: string[]) => {
			if (items.includes('bad')) throw new Error('refused');
			return items.map((s) => s.toUpperCase());
		};
		await expect(inBatch('lane-b', 'bad', run)).rejects.toThrow('refused');
		await expect(inBatch('lane-b', 'ok', run)).resolves.toBe('OK');
	});

	test('lanes are independent', async () => {
		const seen: string[] = [];
		const run = (lane: string) => async (items: number[]) => {
			seen.push(`${lane}:${items.join(',')}`);
			return items;
		};
		await Promise.all([inBatch('x', 1, run('x')), inBatch('y', 2, run('y'))]);
		expect(seen.sort()).toEqual(['x:1', 'y:2']);
	});
});
