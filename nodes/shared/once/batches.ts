import { sleep } from 'n8n-workflow';

import type { Lane, Waiting } from './state';

export type { Lane } from './state';

/**
 * On an idle lane the batch waits while calls keep coming: until it has `until` calls, no call
 * joined for `ms`, or `upToMs` passed. Nothing waits when `until` is 1 or less.
 */
export type Gather = { ms: number; upToMs: number; until: number };

const MAX_BATCH = 100;

/**
 * Runs `item` in the lane's next batch: calls that arrive while a batch is in flight go out
 * together in the next one. `run` returns one result per item, in order. A batch runs as its first
 * caller's `run`, who is waiting for it, so no batch runs on an execution that has ended; the
 * other callers get its failure through their own `asCallers`.
 */
export async function inBatch<I, O>(
	lane: Lane,
	item: I,
	run: (items: I[]) => Promise<O[]>,
	asCallers: (error: unknown) => unknown,
	gather?: Gather,
): Promise<O> {
	return await new Promise<O>((resolve, reject) => {
		lane.waiting.push({ item, resolve, reject, run, asCallers } as Waiting<unknown, unknown>);
		lane.joined?.();
		if (!lane.busy) void drain(lane, gather);
	});
}

async function drain(lane: Lane, gather?: Gather) {
	lane.busy = true;
	if (gather !== undefined && gather.until > 1 && gather.ms > 0 && gather.upToMs > 0) {
		const until = Math.min(gather.until, MAX_BATCH);
		const stopAt = Date.now() + gather.upToMs;
		let joined = true;
		while (joined && lane.waiting.length < until && Date.now() < stopAt) {
			joined = await new Promise<boolean>((resolve) => {
				lane.joined = () => resolve(true);
				void sleep(Math.min(gather.ms, stopAt - Date.now())).then(() => resolve(false));
			});
		}
		lane.joined = undefined;
	}
	while (lane.waiting.length > 0) {
		const batch = lane.waiting.splice(0, MAX_BATCH);
		const { run } = batch[0];
		try {
			const results = await run(batch.map((entry) => entry.item));
			batch.forEach((entry, index) => entry.resolve(results[index]));
		} catch (error) {
			for (const entry of batch) entry.reject(entry.run === run ? error : entry.asCallers(error));
		}
	}
	lane.busy = false;
}
