import type { IExecuteFunctions, IHookFunctions, INodeExecutionData } from 'n8n-workflow';

import { refuseWhileStorageFull, targetForActivation, type RecordContext } from '../recordApi';
import { claimHold, releaseHold, type Hold } from './holds';
import { forgetIndex } from './indexes';
import { record } from './record';
import type { Found, Work } from './rows';
import { state } from './state';
import { readTableAfresh } from './table';

export { DEFAULT_RECORD_WINDOWS, RECORD_COLUMNS } from './rows';
export {
	MAX_MESSAGES as N8N_STORE_MAX_MESSAGES,
	N8nSendStore,
	type N8nClaim,
	type N8nWork,
} from './n8nStore';
export type { Found, Work } from './rows';

// "Was this already done?" for write backs and Send Once alike. The words, each with one meaning:
//
// - record: the n8n data table that says what was done, reached through n8n's public API
//   (../recordApi); record.ts reads and writes it.
// - work: one thing to do once, a `key` in a `scope` (a trigger's write backs, a workflow's sends).
// - row: one row of the record about a piece of work: `running` (a claim) or `done`.
// - claim: taking a piece of work before doing it. Its answer, `Found`, is `claimed` (with a
//   `Ticket`, kept until done or released), `running` (another claim has it) or `done`. A claim
//   is a hold alone where this process runs every delivery (oneProcess), else a row (sharedTable).
// - hold: a claim kept in this process's memory (holds.ts).
// - done: the work succeeded; `finish` writes its `done` row, which answers "done" from then on.
// - release: giving a claim up, the work not done: its key is free again.
// - batch: calls of one kind to one table that go to n8n as one call (batches.ts, GATHER).
// - n8n store: Send Once's other store, n8n's own deduplication store, which needs no credential
//   (n8nStore.ts); it has marks, not rows, and none of the verbs above.
//
// A write back's story: the webhook call claims (once.claim), hands the ticket to its run
// (handToRun, claimInRun), and the run's end finishes or releases it.

/** Taken work: `claimId`, its claim's row (shared table); `hold`, its hold here (one process). */
export interface Ticket {
	readonly work: Work;
	readonly claimId?: number;
	readonly hold?: Hold;
	readonly strategy: Strategy;
}

/** `lapsedClaimAt`: an earlier claim of the key was left by a process that stopped. */
export type Claimed = { state: 'claimed'; ticket: Ticket; lapsedClaimAt?: number };

export type Purpose = 'writeBack' | 'send';
export type RunTicket = { ticket: Ticket } | { skip: 'running' | 'done' };
type WhenFails = 'throw' | 'keepTrying';

export const once = {
	// 1. Claim the work before doing it (a write back: in its webhook call).
	async claim(context: RecordContext, work: Work, purpose: Purpose): Promise<Found<Claimed>> {
		return await strategyFor(purpose).claim(context, work);
	},

	// 2. A write back's run: its webhook call hands it the ticket.
	/** Hands a write back's ticket from its webhook call to its run, on the run's first item. */
	handToRun(item: INodeExecutionData, ticket: Ticket | undefined): void {
		state.receivedHere.set(item.json, ticket?.hold);
		if (ticket?.claimId !== undefined) item[CLAIM_ID_FIELD] = ticket.claimId;
	},

	/** The run's items without the ticket: the workflow never sees it. */
	withoutTicket(items: INodeExecutionData[]): INodeExecutionData[] {
		return items.map((item) => {
			const copy = { ...item };
			delete copy[CLAIM_ID_FIELD];
			return copy;
		});
	},

	/**
	 * The ticket handed over or, for a run n8n started again after the process that took it died, a
	 * hold taken now unless the work was done meanwhile.
	 */
	async claimInRun(
		context: IExecuteFunctions,
		work: Work,
		item: INodeExecutionData,
	): Promise<RunTicket> {
		// Its item as this process's webhook call made it: runs stay here (see runsStayHere).
		const receivedHere = state.receivedHere.has(item.json);
		if (receivedHere) state.productionRunsStayHere = true;
		const claimId = item[CLAIM_ID_FIELD];
		if (Number.isInteger(claimId)) {
			return { ticket: { work, claimId: claimId as number, strategy: sharedTable } };
		}
		if (receivedHere) {
			return { ticket: { work, hold: state.receivedHere.get(item.json), strategy: oneProcess } };
		}
		const hold = claimHold(state.holds, work);
		if (hold === undefined) return { skip: 'running' };
		const found = await record.check(context, work).catch((error: unknown) => {
			releaseHold(state.holds, hold);
			throw error;
		});
		if (found.state !== 'done') return { ticket: { work, hold, strategy: oneProcess } };
		releaseHold(state.holds, hold);
		return { skip: 'done' };
	},

	// 3. The work done: finish; not done: release.
	/** `throw`: for a caller that must not go on unless the record has it; `keepTrying`: see record. */
	async finish(context: RecordContext, ticket: Ticket, detail: string, whenRecordFails: WhenFails) {
		try {
			const done = { work: ticket.work, claimId: ticket.claimId, detail };
			if (whenRecordFails === 'throw') await record.finish(context, done);
			else await record.finishAndKeepTrying(context, done);
		} finally {
			releaseHold(state.holds, ticket.hold);
		}
	},

	async release(context: RecordContext, ticket: Ticket): Promise<void> {
		releaseHold(state.holds, ticket.hold);
		if (ticket.claimId !== undefined) await record.release(context, ticket.work, ticket.claimId);
	},

	/** Releases, logging a failure as a warning in the caller's words (`warning`) instead of throwing. */
	async releaseQuietly(
		context: RecordContext,
		ticket: Ticket,
		warning: (reason: string) => string,
	): Promise<void> {
		await once.release(context, ticket).catch((error: Error) => {
			context.logger.warn(warning(error.message));
		});
	},

	// Reads only, and the record's life with a trigger.
	/** What the record says of the work, without claiming it. */
	async check(context: RecordContext, work: Work): Promise<Found> {
		return await record.check(context, work);
	},

	countDoneOnlyInMemory: record.countDoneOnlyInMemory,

	/** Throws unless the record can be used; rows written or deleted by hand count from now on. */
	async activate(context: IHookFunctions, scope: string): Promise<void> {
		await readTableAfresh(context, await targetForActivation(context));
		forgetIndex(scope);
	},

	deactivate(scope: string): void {
		forgetIndex(scope);
	},
};

// How work is claimed: the strategy is picked at claim and kept by the ticket.

/** How work is claimed. */
interface Strategy {
	claim(context: RecordContext, work: Work): Promise<Found<Claimed>>;
}

/** A write back's claim row id, beside the run's item's `json` (the workflow never sees it). */
const CLAIM_ID_FIELD = 'contactCenterClaimId';

/**
 * Runs stay here once a production run found its input item as this process's webhook call made
 * it. n8n's WorkflowRunner runs production executions in the receiving process, except in queue
 * mode, where a worker runs them from the database (its item a copy) and the webhook process none.
 */
const runsStayHere = () => state.productionRunsStayHere;

// A send always claims a row: after a crash it is the only sign that the message may be out.
const strategyFor = (purpose: Purpose): Strategy =>
	purpose === 'writeBack' && runsStayHere() ? oneProcess : sharedTable;

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
const oneProcess: Strategy = {
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
const sharedTable: Strategy = {
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
