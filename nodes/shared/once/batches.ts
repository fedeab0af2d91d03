import { sleep } from 'n8n-workflow';

import type { Lane, Waiting } from './state';

export type { Lane } from './state';

/**
 * The one batching policy, the same for every lane: a batch on an idle lane waits for more calls
 * while they keep coming, each within `quietMs` of the last, `upToMs` in all, up to `upTo` calls.
 * An insert of 8 rows costs n8n about as much as one of 1; 15 and 60 ms gathered the trigger's
 * `done` rows best (bench/DECISIONS.md, "Gather the inserts"), and a call alone waits only 15 ms.
 */
export const GATHER = { quietMs: 15, upToMs: 60, upTo: 100 } as const;

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
): Promise<O> {
	return await new Promise<O>((resolve, reject) => {
		lane.waiting.push({ item, resolve, reject, run, asCallers } as Waiting<unknown, unknown>);
		lane.joined?.();
		if (!lane.busy) void drain(lane);
	});
}

async function drain(lane: Lane) {
	lane.busy = true;
	await gather(lane);
	while (lane.waiting.length > 0) {
		const batch = lane.waiting.splice(0, GATHER.upTo);
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

/** Waits for more calls on an idle lane, as GATHER says. */
async function gather(lane: Lane) {
	const stopAt = Date.now() + GATHER.upToMs;
	let joined = true;
	while (joined && lane.waiting.length < GATHER.upTo && Date.now() < stopAt) {
		joined = await new Promise<boolean>((resolve) => {
			lane.joined = () => resolve(true);
			void sleep(Math.min(GATHER.quietMs, stopAt - Date.now())).then(() => resolve(false));
		});
	}
	lane.joined = undefined;
}
