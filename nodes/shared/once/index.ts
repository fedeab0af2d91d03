import type { IExecuteFunctions, IHookFunctions, INodeExecutionData } from 'n8n-workflow';

import { targetForActivation, type RecordContext } from '../recordApi';
import type { Gather } from './batches';
import { forgetIndex } from './indexes';
import { record } from './record';
import { readTableAfresh } from './table';
import type { CheckResult } from './rows';
import { claimHold, releaseHold, state } from './state';
import {
	CLAIM_ID_FIELD,
	learnWhereRunsStay,
	markReceivedHere,
	oneProcess,
	runsStayHere,
	sharedTable,
	type Claim,
	type Strategy,
	type Ticket,
	type WhenRecordFails,
	type Work,
} from './strategies';

export { DEFAULT_RECORD_WINDOWS, RECORD_COLUMNS } from './rows';
export type { CheckResult } from './rows';
export type { Claim, Ticket, Work } from './strategies';

/**
 * "Was this already done?": the one module that decides it, for write backs and Send Once alike.
 * Four verbs (claim, finish, release, and for a write back the hand-over from its webhook call to
 * its run) over one store, the record: an n8n data table reached through n8n's public API (see
 * ../recordApi). Two strategies (strategies.ts) answer the same verbs; strategyFor picks one at
 * claim and the ticket keeps it (a write back's run started again after a crash, without a
 * ticket, takes a one-process one: see claimInRun).
 */

/**
 * Write backs use the one-process strategy once a production run of this process was found to
 * run where its call was received (one n8n process), the shared table until then and in queue
 * mode. A send always claims a row: after a crash it is the only sign that the message may be out.
 */
const strategyFor = (purpose: 'writeBack' | 'send'): Strategy =>
	purpose === 'writeBack' && runsStayHere() ? oneProcess : sharedTable;

/**
 * Claims and checks a caller makes `together` (in the same moment) wait for each other, for a few
 * milliseconds at most, so that they go out in one call to n8n's API.
 */
const gatherTogether = (together = 1): Gather | undefined =>
	together > 1 ? { ms: 5, upToMs: 20, until: together } : undefined;

export type RunTicket = { ticket: Ticket } | { skip: 'running' | 'done' };

export const once = {
	/**
	 * Takes the work for this caller, unless it was done or another caller is doing it.
	 * `together`: how many claims the caller makes at this moment (see gatherTogether).
	 */
	async claim(
		context: RecordContext,
		work: Work,
		purpose: 'writeBack' | 'send',
		{ together }: { together?: number } = {},
	): Promise<Claim> {
		return await strategyFor(purpose).claim(context, work, gatherTogether(together));
	},

	/** What the record says of the work, a read only. `together`: as for claim. */
	async check(
		context: RecordContext,
		work: Work,
		{ together }: { together?: number } = {},
	): Promise<CheckResult> {
		return await record.check(context, work, gatherTogether(together));
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
	async release(context: RecordContext, ticket: Ticket): Promise<void> {
		await ticket.strategy.release(context, ticket);
	},

	/** Hands a write back's ticket from its webhook call to its run, on the run's first item. */
	handToRun(item: INodeExecutionData, ticket: Ticket | undefined): void {
		markReceivedHere(item);
		ticket?.strategy.handToRun(item, ticket);
	},

	/**
	 * The ticket a write back's run works under: the one its webhook call handed over, or, when
	 * none came with the item (n8n started the run again at its restart after the process that
	 * took it died), a hold taken now, unless a delivery finished the work meanwhile.
	 */
	async claimInRun(
		context: IExecuteFunctions,
		work: Work,
		item: INodeExecutionData,
	): Promise<RunTicket> {
		learnWhereRunsStay(item);
		const handed =
			sharedTable.ticketHandedWith(item, work) ?? oneProcess.ticketHandedWith(item, work);
		if (handed !== undefined) return { ticket: handed };
		const hold = claimHold(state.holds, work);
		if (hold === undefined) return { skip: 'running' };
		let keepHold = false;
		try {
			const found = await record.check(context, work);
			if (found.state === 'done') return { skip: 'done' };
			keepHold = true;
			return { ticket: { work, hold, strategy: oneProcess } };
		} finally {
			if (!keepHold) releaseHold(state.holds, hold);
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

	/**
	 * A trigger's activation: checks that the record can be used, creating its data table (throws a
	 * node error if not), and forgets what this process kept of the scope, so that rows written or
	 * deleted by hand count from now on.
	 */
	async activate(context: IHookFunctions, scope: string): Promise<void> {
		await readTableAfresh(context, await targetForActivation(context));
		forgetIndex(scope);
	},

	/** A trigger's deactivation: forgets what this process kept of the scope. */
	deactivate(scope: string): void {
		forgetIndex(scope);
	},

	/** How many pieces of work of a scope this process counts as done whose row n8n has not taken yet. */
	keptOnlyInMemory: record.keptOnlyInMemory,
};
