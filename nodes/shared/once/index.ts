import type { IExecuteFunctions, IHookFunctions, INodeExecutionData } from 'n8n-workflow';

import type { Gather } from './batches';
import { kindOfRecordError, type RecordContext } from './client';
import { isSizeLimitFailure, recordTimingForTests } from './failure';
import { heldDeliveries, holdHere, releaseHold } from './holds';
import { forgetIndex } from './indexes';
import {
	markReceivedHere,
	productionRunWasReceivedHere,
	productionRunsStayInThisProcess,
} from './receivedHere';
import { record, type CheckResult } from './record';
import { DEFAULT_RECORD_WINDOWS, rowKeyOf, type RecordWindows } from './rows';
import { resetOnceState } from './state';
import { warnIfStorageNearlyFull } from './storage';

export { RECORD_KEY_STEPS } from './apiKey';
export { testRecordCredential } from './credentialTest';
export type { CheckResult } from './record';

/** Why a record call failed, for a report in the user's words. */
export type RecordFailureCause =
	| 'storageFull'
	| 'recordKey'
	| 'apiUnavailable'
	| 'apiRateLimited'
	| 'recordUnusable';

export function recordFailureCauseOf(error: unknown): RecordFailureCause {
	if (isSizeLimitFailure((error as Error)?.message ?? '')) return 'storageFull';
	const kind = kindOfRecordError(error);
	if (kind === 'credential') return 'recordKey';
	if (kind === 'unavailable') return 'apiUnavailable';
	if (kind === 'rateLimited') return 'apiRateLimited';
	return 'recordUnusable';
}

/**
 * "Was this already done?": the one module that decides it, for write backs and Send Once alike.
 * Four verbs (begin, finish, abandon, and for a write back the hand-over from its webhook call to
 * its run) over one store, the record: an n8n data table reached through n8n's API. Two
 * strategies (oneProcess, sharedTable) answer the same verbs; strategyFor picks one at begin and
 * the ticket keeps it.
 */

/**
 * A piece of work: `scope` separates the users of the record, `key` names the work in it.
 * `retentionMs`: how long its `done` row answers "already done" (the record's longest by default).
 */
export interface Work {
	scope: string;
	key: string;
	retentionMs?: number;
}

/** Work this caller has begun, under the strategy that began it; `claimId`: its claim's row, if any. */
export interface Ticket {
	readonly work: Work;
	readonly claimId?: number;
	readonly strategy: Strategy;
}

export type Begun =
	/** `abandonedAt`: an earlier claim of the key was left by a process that stopped. */
	| { state: 'claimed'; ticket: Ticket; abandonedAt?: number }
	| { state: 'done'; at: number; detail: string }
	| { state: 'running'; since?: number };

type WhenRecordFails = 'throw' | 'keepTrying';

/** One way of doing work once: the same verbs for both. */
interface Strategy {
	begin(context: RecordContext, work: Work, gather?: Gather): Promise<Begun>;
	finish(
		context: RecordContext,
		ticket: Ticket,
		detail: string,
		whenRecordFails: WhenRecordFails,
	): Promise<void>;
	abandon(context: RecordContext, ticket: Ticket): Promise<void>;
}

const windowsOf = (work: Work): RecordWindows =>
	work.retentionMs === undefined
		? DEFAULT_RECORD_WINDOWS
		: { ...DEFAULT_RECORD_WINDOWS, retentionMs: work.retentionMs };

const holdKeyOf = (work: Work) => rowKeyOf(work.scope, work.key);

/** Another call of this process holds the key: done long ago, or running now. */
async function heldByAnother(
	context: RecordContext,
	work: Work,
	fromIndex: boolean,
): Promise<Begun> {
	const found = await record.check(context, work.scope, work.key, windowsOf(work), { fromIndex });
	return found.state === 'done' ? found : { state: 'running' };
}

/** Writes the work's `done` row: on its claim's row when it has one. */
async function writeDone(
	context: RecordContext,
	ticket: Ticket,
	detail: string,
	whenRecordFails: WhenRecordFails,
	gather?: Gather,
): Promise<void> {
	const { scope, key } = ticket.work;
	if (whenRecordFails === 'throw')
		await record.finish(context, scope, key, detail, ticket.claimId, gather);
	else await record.finishAndKeepTrying(context, scope, key, detail, ticket.claimId, gather);
}

/**
 * Where this n8n process receives and runs every delivery (see receivedHere.ts): a begin is a
 * hold in its memory, checked against its index of the record; finishing inserts the `done` row,
 * gathered with those of the other deliveries it holds (while they keep coming, each within 15 ms
 * of the last, up to 60 ms in all: an insert costs n8n about as much for 8 rows as for 1).
 */
const oneProcess: Strategy = {
	async begin(context, work) {
		// Its first write comes after the run: while n8n refuses writes, refused before the run.
		await record.refuseWhileStorageFull(context);
		if (!holdHere(holdKeyOf(work), Date.now())) return await heldByAnother(context, work, true);
		let begun: Begun = { state: 'running' };
		try {
			const found = await record.check(context, work.scope, work.key, windowsOf(work), {
				fromIndex: true,
			});
			begun =
				found.state === 'free'
					? { state: 'claimed', ticket: { work, strategy: oneProcess } }
					: found;
			return begun;
		} finally {
			// Kept until the work is finished or abandoned.
			if (begun.state !== 'claimed') releaseHold(holdKeyOf(work));
		}
	},
	async finish(context, ticket, detail, whenRecordFails) {
		try {
			const gather = { ms: 15, upToMs: 60, until: heldDeliveries() };
			await writeDone(context, ticket, detail, whenRecordFails, gather);
		} finally {
			releaseHold(holdKeyOf(ticket.work));
		}
	},
	async abandon(_context, ticket) {
		releaseHold(holdKeyOf(ticket.work));
	},
};

/**
 * How a `done` row with a detail of its own (a send's message id; see record.finish) waits for
 * those of the next finishes, to go out in one insert: while they keep coming, each within 60 ms
 * of the last, up to 250 ms in all. A send's finish is written while the next messages are sent.
 */
const FINISHES_WITH_DETAIL: Gather = { ms: 60, upToMs: 250, until: 100 };

/**
 * Wherever several n8n processes may run the same work (queue mode), and wherever a crash must
 * leave a trace (a send whose claim stays says "may have been sent"): each begin inserts a claim
 * row; the oldest live claim of a key wins.
 */
const sharedTable: Strategy = {
	async begin(context, work, gather) {
		if (!holdHere(holdKeyOf(work), Date.now())) return await heldByAnother(context, work, false);
		try {
			const claim = await record.begin(context, work.scope, work.key, windowsOf(work), gather);
			if (claim.state !== 'claimed') return claim;
			const ticket = { work, claimId: claim.claimId, strategy: sharedTable };
			return { state: 'claimed', ticket, abandonedAt: claim.abandonedAt };
		} finally {
			releaseHold(holdKeyOf(work));
		}
	},
	async finish(context, ticket, detail, whenRecordFails) {
		await writeDone(context, ticket, detail, whenRecordFails, FINISHES_WITH_DETAIL);
	},
	async abandon(context, ticket) {
		await record.abandon(context, ticket.work.scope, ticket.work.key, ticket.claimId);
	},
};

/**
 * Write backs use the one-process strategy once a production run of this process was found to
 * run where its call was received (one n8n process), the shared table until then and in queue
 * mode. A send always claims a row: after a crash it is the only sign that the message may be out.
 */
const strategyFor = (purpose: 'writeBack' | 'send'): Strategy =>
	purpose === 'writeBack' && productionRunsStayInThisProcess() ? oneProcess : sharedTable;

/**
 * Where a write back's webhook call leaves its claim's row id on the item for the run (beside
 * `json`, so the workflow never sees it): n8n's data tables index only the id.
 */
const CLAIM_ID_FIELD = 'contactCenterClaimId';

/**
 * Calls a caller begins `together` (in the same moment) wait for each other, for a few
 * milliseconds at most, so that they go out in one call to n8n's API.
 */
const gatherTogether = (together = 1): Gather | undefined =>
	together > 1 ? { ms: 5, upToMs: 20, until: together } : undefined;

export type RunTicket = { ticket: Ticket } | { skip: 'is running' | 'was processed' };

export const once = {
	/**
	 * Takes the work for this caller, unless it was done or another caller is doing it.
	 * `together`: how many begins the caller starts at this moment (see gatherTogether).
	 */
	async begin(
		context: RecordContext,
		work: Work,
		purpose: 'writeBack' | 'send',
		{ together }: { together?: number } = {},
	): Promise<Begun> {
		return await strategyFor(purpose).begin(context, work, gatherTogether(together));
	},

	/** What the record says of the work, a read only. `together`: as for begin. */
	async check(
		context: RecordContext,
		work: Work,
		{ together }: { together?: number } = {},
	): Promise<CheckResult> {
		return await record.check(context, work.scope, work.key, windowsOf(work), {
			gather: gatherTogether(together),
		});
	},

	/**
	 * The work is done. `whenRecordFails`: `throw` for a caller that must not go on unless the
	 * record has it; `keepTrying` for work that has happened: it counts as done in this process at
	 * once and its row is written as soon as n8n's API takes it (never throws).
	 */
	async finish(
		context: RecordContext,
		ticket: Ticket,
		detail: string,
		whenRecordFails: WhenRecordFails,
	): Promise<void> {
		await ticket.strategy.finish(context, ticket, detail, whenRecordFails);
	},

	/** The work failed: the next attempt may do it at once. */
	async abandon(context: RecordContext, ticket: Ticket): Promise<void> {
		await ticket.strategy.abandon(context, ticket);
	},

	/** Hands a write back's ticket from its webhook call to its run, on the run's first item. */
	handToRun(item: INodeExecutionData, ticket: Ticket | undefined): void {
		markReceivedHere(item.json);
		if (ticket?.claimId !== undefined) item[CLAIM_ID_FIELD] = ticket.claimId;
	},

	/**
	 * The ticket a write back's run works under: the one its webhook call took, or, when none came
	 * with the item (n8n started the run again at its restart after the process that took it
	 * died), a hold taken now, unless a delivery finished the work meanwhile.
	 */
	async takeInRun(
		context: IExecuteFunctions,
		work: Work,
		item: INodeExecutionData,
	): Promise<RunTicket> {
		const claimId = Number.isInteger(item[CLAIM_ID_FIELD])
			? (item[CLAIM_ID_FIELD] as number)
			: undefined;
		const receivedHere = productionRunWasReceivedHere(item.json);
		if (claimId !== undefined) return { ticket: { work, claimId, strategy: sharedTable } };
		if (receivedHere) return { ticket: { work, strategy: oneProcess } };
		if (!holdHere(holdKeyOf(work), Date.now())) return { skip: 'is running' };
		let keepHold = false;
		try {
			const found = await record.check(context, work.scope, work.key, windowsOf(work));
			if (found.state === 'done') return { skip: 'was processed' };
			keepHold = true;
			return { ticket: { work, strategy: oneProcess } };
		} finally {
			if (!keepHold) releaseHold(holdKeyOf(work));
		}
	},

	/** The run's items as the workflow sees them: without the ticket's field. */
	withoutTicket(items: INodeExecutionData[]): INodeExecutionData[] {
		return items.map((item) => {
			const copy = { ...item };
			delete copy[CLAIM_ID_FIELD];
			return copy;
		});
	},

	async ensureReady(context: IHookFunctions): Promise<void> {
		await record.ensureReady(context);
	},

	forgetIndex,

	warnIfKeyExpiresSoon: record.warnIfKeyExpiresSoon,

	warnIfStorageNearlyFull,

	/** How many pieces of work of a scope this process counts as done whose row n8n has not taken yet. */
	keptOnlyInMemory: record.keptOnlyInMemory,
};

/** For tests only: shorter waits for n8n's API, and the process as if it had just started. */
export const onceForTests = {
	setTiming: recordTimingForTests.set,
	resetTiming: recordTimingForTests.reset,
	resetState: resetOnceState,
};
