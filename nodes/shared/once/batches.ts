import { sleep } from 'n8n-workflow';

import type { Lane, Waiting } from './state';

export type { Lane } from './state';

/**
 * Natural batching of record calls within one n8n process: the first call of a lane goes out at
 * once; calls that arrive while it is in flight wait and go out together in the next one. When
 * the process is idle nothing waits; under load one call to n8n's API serves many deliveries.
 * A caller that knows more calls are on their way may let an idle lane gather them first (see
 * Gather).
 */
/**
 * On an idle lane, the batch waits while calls keep coming: it goes out once it has `until`
 * calls, when no call joined for `ms`, or `upToMs` after it began waiting. Nothing waits when
 * `until` is 1 or less.
 */
export interface Gather {
	ms: number;
	upToMs: number;
	until: number;
}

/** The most calls one batch serves. */
const MAX_BATCH = 100;

/**
 * Runs `item` in the lane's next batch. `run` gets the batch's items and returns one result per
 * item, in order; its rejection rejects every item of the batch. Each batch goes out as the `run`
 * of its first caller, who is waiting for it, so no batch runs on an execution that has ended;
 * every other caller gets the failure through its own `asCallers`.
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
		while (lane.waiting.length < until && Date.now() < stopAt) {
			const anotherJoined = await new Promise<boolean>((resolve) => {
				lane.joined = () => resolve(true);
				void sleep(Math.min(gather.ms, stopAt - Date.now())).then(() => resolve(false));
			});
			if (!anotherJoined) break;
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
