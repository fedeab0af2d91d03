/**
 * Natural batching of record calls within one n8n process: the first call of a lane goes out at
 * once; calls that arrive while it is in flight wait and go out together in the next one. When
 * the process is idle nothing waits; under load one call to n8n's API serves many deliveries.
 */
interface Waiting<I, O> {
	item: I;
	resolve: (value: O) => void;
	reject: (error: unknown) => void;
}

interface Lane {
	busy: boolean;
	waiting: Array<Waiting<unknown, unknown>>;
}

const lanes = new Map<string, Lane>();

/** The most calls one batch serves. */
const MAX_BATCH = 100;

/**
 * Runs `item` in the lane's next batch. `run` gets the batch's items and returns one result per
 * item, in order; its rejection rejects every item of the batch.
 */
export async function inBatch<I, O>(
	laneKey: string,
	item: I,
	run: (items: I[]) => Promise<O[]>,
): Promise<O> {
	return await new Promise<O>((resolve, reject) => {
		const lane = lanes.get(laneKey) ?? { busy: false, waiting: [] };
		lanes.set(laneKey, lane);
		lane.waiting.push({ item, resolve, reject } as Waiting<unknown, unknown>);
		if (!lane.busy) void drain(laneKey, lane, run as (items: unknown[]) => Promise<unknown[]>);
	});
}

async function drain(laneKey: string, lane: Lane, run: (items: unknown[]) => Promise<unknown[]>) {
	lane.busy = true;
	while (lane.waiting.length > 0) {
		const batch = lane.waiting.splice(0, MAX_BATCH);
		try {
			const results = await run(batch.map((entry) => entry.item));
			batch.forEach((entry, index) => entry.resolve(results[index]));
		} catch (error) {
			for (const entry of batch) entry.reject(error);
		}
	}
	lane.busy = false;
	lanes.delete(laneKey);
}
