import { refuseWhileStorageFull, type RecordContext } from '../recordApi';
import { record } from './record';
import type { Found, Work } from './rows';
import { claimHold, releaseHold } from './holds';
import { state, type Hold } from './state';

/** Claimed work: `claimId`, its claim's row (shared table); `hold`, its hold here (one process). */
export interface Ticket {
	readonly work: Work;
	readonly claimId?: number;
	readonly hold?: Hold;
	readonly strategy: Strategy;
}

/** `lapsedClaimAt`: an earlier claim of the key was left by a process that stopped. */
export type Claimed = { state: 'claimed'; ticket: Ticket; lapsedClaimAt?: number };

export type Purpose = 'writeBack' | 'send';

/** How work is claimed. */
export interface Strategy {
	claim(context: RecordContext, work: Work): Promise<Found<Claimed>>;
}

/**
 * Decides a claim under a hold of this process, kept only by a ticket that carries it. While
 * another call of this process holds the work, it is done if the record says so, else running.
 */
async function underHold(
	work: Work,
	check: () => Promise<Found>,
	decide: (hold: Hold) => Promise<Found<Claimed>>,
): Promise<Found<Claimed>> {
	const hold = claimHold(state.holds, work);
	if (hold === undefined) {
		const found = await check();
		return found.state === 'done' ? found : { state: 'running' };
	}
	let claim: Found<Claimed> | undefined;
	try {
		claim = await decide(hold);
		return claim;
	} finally {
		if (claim?.state !== 'claimed' || claim.ticket.hold !== hold) releaseHold(state.holds, hold);
	}
}

/**
 * Where this process receives and runs every delivery: a claim is a hold, checked against its
 * index of the scope.
 */
export const oneProcess: Strategy = {
	async claim(context, work) {
		// Its first write comes after the run: while n8n refuses writes, refused before the run.
		await refuseWhileStorageFull(context);
		const check = async () => await record.checkKnownScope(context, work);
		return await underHold(work, check, async (hold) => {
			const found = await check();
			return found.state === 'free'
				? { state: 'claimed', ticket: { work, hold, strategy: oneProcess } }
				: found;
		});
	},
};

/**
 * Wherever several processes may run the same work (queue mode), or a crash must leave a trace (a
 * send's claim says "may have been sent"): each claim inserts a row.
 */
export const sharedTable: Strategy = {
	async claim(context, work) {
		const check = async () => await record.check(context, work);
		return await underHold(work, check, async () => {
			const claim = await record.claim(context, work);
			if (claim.state !== 'claimed') return claim;
			const ticket = { work, claimId: claim.claimId, strategy: sharedTable };
			return { state: 'claimed', ticket, lapsedClaimAt: claim.lapsedClaimAt };
		});
	},
};

/** A write back's claim row id, beside the run's item's `json` (the workflow never sees it). */
export const CLAIM_ID_FIELD = 'contactCenterClaimId';

/**
 * Runs stay here once a production run found its input item as this process's webhook call made
 * it. n8n's WorkflowRunner runs production executions in the receiving process, except in queue
 * mode, where a worker runs them from the database (its item a copy) and the webhook process none.
 */
export const runsStayHere = () => state.productionRunsStayHere;

// A send always claims a row: after a crash it is the only sign that the message may be out.
export const strategyFor = (purpose: Purpose): Strategy =>
	purpose === 'writeBack' && runsStayHere() ? oneProcess : sharedTable;
