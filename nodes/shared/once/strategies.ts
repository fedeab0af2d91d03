import type { INodeExecutionData } from 'n8n-workflow';

import { refuseWhileStorageFull, type RecordContext } from '../recordApi';
import type { Gather } from './batches';
import { record } from './record';
import type { CheckResult, Work } from './rows';
import { claimHold, releaseHold, state, type Hold } from './state';

export type { Hold } from './state';
export type { Work } from './rows';

/**
 * The two ways of doing work once, one object each with the same verbs: claim, finish, release,
 * and the hand-over of a write back's ticket from its webhook call to its run.
 */

/**
 * Work this caller has claimed, under the strategy that began it: `claimId`, its claim's row (the
 * shared table); `hold`, its hold in this process's memory (one process).
 */
export interface Ticket {
	readonly work: Work;
	readonly claimId?: number;
	readonly hold?: Hold;
	readonly strategy: Strategy;
}

export type Claim =
	/** `lapsedClaimAt`: an earlier claim of the key was left by a process that stopped. */
	| { state: 'claimed'; ticket: Ticket; lapsedClaimAt?: number }
	| { state: 'done'; at: number; detail: string }
	| { state: 'running'; since?: number };

export type WhenRecordFails = 'throw' | 'keepTrying';

export interface Strategy {
	claim(context: RecordContext, work: Work, gather?: Gather): Promise<Claim>;
	finish(
		context: RecordContext,
		ticket: Ticket,
		detail: string,
		whenRecordFails: WhenRecordFails,
	): Promise<void>;
	release(context: RecordContext, ticket: Ticket): Promise<void>;
	/** Leaves what the run needs of the ticket on the run's first item. */
	handToRun(item: INodeExecutionData, ticket: Ticket): void;
	/** The ticket this strategy's webhook call handed to the run with the item, if any. */
	ticketHandedWith(item: INodeExecutionData, work: Work): Ticket | undefined;
}

/** Another call of this process holds the work: done long ago, or running now. */
const heldByAnother = (found: CheckResult): Claim =>
	found.state === 'done' ? found : { state: 'running' };

/** Writes the work's `done` row: on its claim's row when it has one. */
async function writeDone(
	context: RecordContext,
	ticket: Ticket,
	detail: string,
	whenRecordFails: WhenRecordFails,
	gather: Gather,
): Promise<void> {
	const done = { work: ticket.work, claimId: ticket.claimId, detail };
	if (whenRecordFails === 'throw') await record.finish(context, done, gather);
	else await record.finishAndKeepTrying(context, done, gather);
}

/**
 * Where this n8n process receives and runs every delivery (see runsStayHere): a claim is a hold in
 * its memory, checked against its index of the record; finishing inserts the `done` row, gathered
 * with those of the other deliveries it holds (while they keep coming, each within 15 ms of the
 * last, up to 60 ms in all: an insert costs n8n about as much for 8 rows as for 1).
 */
export const oneProcess: Strategy = {
	async claim(context, work) {
		// Its first write comes after the run: while n8n refuses writes, refused before the run.
		await refuseWhileStorageFull(context);
		const check = async () => await record.checkKnownScope(context, work);
		const hold = claimHold(state.holds, work);
		if (hold === undefined) return heldByAnother(await check());
		let claimed: Claim = { state: 'running' };
		try {
			const found = await check();
			claimed =
				found.state === 'free'
					? { state: 'claimed', ticket: { work, hold, strategy: oneProcess } }
					: found;
			return claimed;
		} finally {
			// Kept until the work is finished or released.
			if (claimed.state !== 'claimed') releaseHold(state.holds, hold);
		}
	},
	async finish(context, ticket, detail, whenRecordFails) {
		try {
			const gather = { ms: 15, upToMs: 60, until: state.holds.size };
			await writeDone(context, ticket, detail, whenRecordFails, gather);
		} finally {
			releaseHold(state.holds, ticket.hold);
		}
	},
	async release(_context, ticket) {
		releaseHold(state.holds, ticket.hold);
	},
	handToRun(item, ticket) {
		// The item itself is the sign (see runsStayHere); the run finishes under the same hold.
		state.receivedHere.set(item.json, ticket.hold);
	},
	ticketHandedWith(item, work) {
		if (!state.receivedHere.has(item.json)) return undefined;
		return { work, hold: state.receivedHere.get(item.json), strategy: oneProcess };
	},
};

/**
 * How a `done` row with a detail of its own (a send's message id; see record.finish) waits for
 * those of the next finishes, to go out in one insert: while they keep coming, each within 60 ms
 * of the last, up to 250 ms in all. A send's finish is written while the next messages are sent.
 */
const FINISHES_WITH_DETAIL: Gather = { ms: 60, upToMs: 250, until: 100 };

/**
 * Where a write back's webhook call leaves its claim's row id on the item for the run (beside
 * `json`, so the workflow never sees it): n8n's data tables index only the id.
 */
export const CLAIM_ID_FIELD = 'contactCenterClaimId';

/**
 * Wherever several n8n processes may run the same work (queue mode), and wherever a crash must
 * leave a trace (a send whose claim stays says "may have been sent"): each claim inserts a claim
 * row; the oldest live claim of a key wins.
 */
export const sharedTable: Strategy = {
	async claim(context, work, gather) {
		const hold = claimHold(state.holds, work);
		if (hold === undefined) return heldByAnother(await record.check(context, work));
		try {
			const claim = await record.claim(context, work, gather);
			if (claim.state !== 'claimed') return claim;
			const ticket = { work, claimId: claim.claimId, strategy: sharedTable };
			return { state: 'claimed', ticket, lapsedClaimAt: claim.lapsedClaimAt };
		} finally {
			releaseHold(state.holds, hold);
		}
	},
	async finish(context, ticket, detail, whenRecordFails) {
		await writeDone(context, ticket, detail, whenRecordFails, FINISHES_WITH_DETAIL);
	},
	async release(context, ticket) {
		if (ticket.claimId !== undefined) await record.release(context, ticket.work, ticket.claimId);
	},
	handToRun(item, ticket) {
		if (ticket.claimId !== undefined) item[CLAIM_ID_FIELD] = ticket.claimId;
	},
	ticketHandedWith(item, work) {
		const claimId = item[CLAIM_ID_FIELD];
		return Number.isInteger(claimId)
			? { work, claimId: claimId as number, strategy: sharedTable }
			: undefined;
	},
};

/**
 * Whether a write back's run happens in the n8n process that received its webhook call.
 *
 * n8n runs a production execution in the process that received its webhook call, except in queue
 * mode, where a worker runs it from the database (n8n's WorkflowRunner: production executions are
 * enqueued in queue mode, run in the receiving process otherwise; several n8n processes only ever
 * share executions through queue mode). So when a run finds its input item as this process's
 * webhook call made it (markReceivedHere), this one n8n process receives and runs every delivery,
 * and its memory sees every delivery of a node that runs at the same time. A queue-mode worker
 * never finds the mark (its input came through the database), and a queue-mode webhook process
 * never runs a production execution, so neither ever learns that runs stay here.
 */
export const runsStayHere = () => state.productionRunsStayHere;

export const markReceivedHere = (item: INodeExecutionData) =>
	void state.receivedHere.set(item.json, undefined);

/** Learns from a production run's input item whether runs stay here (see runsStayHere). */
export function learnWhereRunsStay(item: INodeExecutionData): void {
	if (state.receivedHere.has(item.json)) state.productionRunsStayHere = true;
}
