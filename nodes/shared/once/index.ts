import type { IExecuteFunctions, IHookFunctions, INodeExecutionData } from 'n8n-workflow';

import { targetForActivation, type RecordContext } from '../recordApi';
import { forgetIndex } from './indexes';
import { record } from './record';
import type { Found, Work } from './rows';
import { claimHold, releaseHold } from './holds';
import { state } from './state';
import {
	CLAIM_ID_FIELD,
	oneProcess,
	sharedTable,
	strategyFor,
	type Purpose,
	type Ticket,
} from './strategies';
import { readTableAfresh } from './table';

export { DEFAULT_RECORD_WINDOWS, RECORD_COLUMNS } from './rows';
export type { Found, Work } from './rows';
export type { Claimed, Ticket } from './strategies';

// "Was this already done?" for write backs and Send Once alike, kept in the record: an n8n data
// table reached through n8n's public API. The strategy is picked at claim and kept by the ticket.

export type RunTicket = { ticket: Ticket } | { skip: 'running' | 'done' };
type WhenFails = 'throw' | 'keepTrying';

export const once = {
	async claim(context: RecordContext, work: Work, purpose: Purpose) {
		return await strategyFor(purpose).claim(context, work);
	},

	/** A read only. */
	async check(context: RecordContext, work: Work): Promise<Found> {
		return await record.check(context, work);
	},

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

	/** Hands a write back's ticket from its webhook call to its run, on the run's first item. */
	handToRun(item: INodeExecutionData, ticket: Ticket | undefined): void {
		state.receivedHere.set(item.json, ticket?.hold);
		if (ticket?.claimId !== undefined) item[CLAIM_ID_FIELD] = ticket.claimId;
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

	withoutTicket(items: INodeExecutionData[]): INodeExecutionData[] {
		return items.map((item) => {
			const copy = { ...item };
			delete copy[CLAIM_ID_FIELD];
			return copy;
		});
	},

	/** Throws unless the record can be used; rows written or deleted by hand count from now on. */
	async activate(context: IHookFunctions, scope: string): Promise<void> {
		await readTableAfresh(context, await targetForActivation(context));
		forgetIndex(scope);
	},

	deactivate(scope: string): void {
		forgetIndex(scope);
	},

	keptOnlyInMemory: record.keptOnlyInMemory,
};
