import { NodeOperationError, type IExecuteFunctions } from 'n8n-workflow';

import { N8N_STORE_MAX_MESSAGES, N8nSendStore, type N8nWork } from '../../../../shared/once';
import { withNotSent } from '../../../helpers/nodeErrors';
import { sendOnceModeOf, type SendOnceSkip } from './onceGuard';

/** How many messages one claim call asks about at most, while a rerun skips those sent before. */
const MAX_SKIP_BATCH = 512;

/**
 * Send Once recorded in n8n's own store (Record Sends In: n8n): each message is claimed right
 * before its send (up to five in one call at fast rates), so a skipped message waits for no send
 * slot, and a crash leaves at most the messages of the last call (one at 6 per second or slower,
 * five at 50 per second) as "may have been sent" (see nodes/shared/once/n8nStore.ts).
 */
export class SendOnceInN8n {
	private readonly store: N8nSendStore;
	private skipBatch = 1;
	/** What an earlier call found of later items (a skip, or this run's claim), by key, until their turn. */
	private readonly ahead = new Map<string, { work: N8nWork; found: SendOnceSkip | undefined }>();

	constructor(private readonly context: IExecuteFunctions) {
		this.store = new N8nSendStore(context);
	}

	/**
	 * Warns in the run when this campaign and what the store holds are more than it keeps, and when
	 * the node still has a Record API credential (a node set up before Record Sends In existed).
	 */
	async warnBeforeSending(itemCount: number): Promise<void> {
		if (sendOnceModeOf(this.context, 0) === 'off') return;
		const warn = (message: string) => {
			this.context.logger.warn(`Contact Center: ${message}`);
			this.context.addExecutionHints({ message, type: 'warning', location: 'outputPane' });
		};
		if (this.context.getNode().credentials?.contactCenterRecordApi) {
			warn(
				"Send Once records in n8n's own store, not in the data table of the Contact Center Record API credential this node has: set Record Sends In to Data Table to keep using that record",
			);
		}
		const held = await this.store.countMessages().catch((error: unknown) => {
			throw notRecorded(this.context, error);
		});
		if (held + itemCount > N8N_STORE_MAX_MESSAGES) {
			warn(
				`Send Once in n8n keeps the last ${N8N_STORE_MAX_MESSAGES} messages of this node; it holds ${held} and this run has ${itemCount} items, so the earliest are forgotten and a rerun would send them again. Split the list, or set Record Sends In to Data Table.`,
			);
		}
	}

	/**
	 * At the item's turn, before its send slot: a reason not to send, or undefined once claimed.
	 * The call also claims the next `keepAhead` items (fast rates, where one call a message would
	 * slow the sends), kept for their turn. While the run skips messages sent before (a rerun), it
	 * asks about more of the next items (`upcoming`), twice as many each time up to MAX_SKIP_BATCH:
	 * their skips are kept for their turn, and those claimed beyond `keepAhead` are given back at
	 * once (each claims again at its own turn).
	 */
	async claimAtTurn(
		work: N8nWork,
		upcoming: (count: number) => N8nWork[],
		keepAhead: number,
	): Promise<SendOnceSkip | undefined> {
		const ahead = this.ahead.get(work.key);
		this.ahead.delete(work.key);
		if (ahead) return this.counted(ahead.found);
		const keys = new Set([work.key, ...this.ahead.keys()]);
		const next: N8nWork[] = [];
		for (const candidate of upcoming(Math.max(keepAhead, this.skipBatch - 1))) {
			if (keys.has(candidate.key)) continue;
			keys.add(candidate.key);
			next.push(candidate);
		}
		const [found, ...foundNext] = await this.claim([work, ...next]);
		const giveBack: N8nWork[] = [];
		next.forEach((candidate, k) => {
			if (foundNext[k] !== undefined || k < keepAhead) {
				this.ahead.set(candidate.key, { work: candidate, found: foundNext[k] });
			} else giveBack.push(candidate);
		});
		if (giveBack.length > 0) {
			await this.store.release(giveBack).catch((error: Error) => {
				// Still claimed by this run: each is its item's claim at its turn.
				this.context.logger.warn(
					`Contact Center: ${giveBack.length} send once key(s) claimed ahead could not be released in n8n's store (${error.message}); this run sends them at their turn`,
				);
				for (const claimed of giveBack)
					this.ahead.set(claimed.key, { work: claimed, found: undefined });
			});
		}
		return this.counted(found);
	}

	/** The size of the next claim call: doubles while messages are skipped, one once one is sent. */
	private counted(skip: SendOnceSkip | undefined): SendOnceSkip | undefined {
		this.skipBatch = skip ? Math.min(MAX_SKIP_BATCH, this.skipBatch * 2) : 1;
		return skip;
	}

	private async claim(works: N8nWork[]): Promise<Array<SendOnceSkip | undefined>> {
		const found = await this.store.claim(works).catch((error: unknown) => {
			throw notRecorded(this.context, error);
		});
		return found.map((claim) => {
			if (claim === 'claimed') return undefined;
			if (claim === 'sent') return { kind: 'sentEarlier' };
			return { kind: 'running' };
		});
	}

	/** The service accepted the message. */
	sent(work: N8nWork): void {
		this.store.sent(work);
	}

	/** The send failed; a message that cannot be out is free again. */
	async afterFailure(work: N8nWork, uncertainAttempts: number): Promise<void> {
		if (uncertainAttempts > 0) return;
		await this.store.release([work]).catch((error: Error) => {
			// The claim stays: the next run reports the message as "may have been sent".
			this.context.logger.warn(
				`Contact Center: send once key ${work.key} could not be released in n8n's store: ${error.message}`,
			);
		});
	}

	/**
	 * At the end of the run: the sent marks still unwritten. A failure fails no row (the messages
	 * were sent): it is a warning in the run and n8n's log, and the next run reports those messages
	 * as "may have been sent" (their claims are in).
	 */
	async close(): Promise<void> {
		for (const { work, found } of this.ahead.values()) {
			// A claim whose item never came (the run stopped on an error) is given back.
			if (found === undefined) await this.afterFailure(work, 0);
		}
		this.ahead.clear();
		await this.store.close().catch((error: Error) => {
			const message = `Send Once could not record the last sends of this run in n8n's store (${error.message}): a rerun reports them as "may have been sent" and does not send them again`;
			this.context.logger.error(`Contact Center: ${message}`);
			this.context.addExecutionHints({ message, type: 'warning', location: 'outputPane' });
		});
	}
}

function notRecorded(context: IExecuteFunctions, error: unknown) {
	if (error instanceof NodeOperationError) {
		error.description = withNotSent(error.description);
		return error;
	}
	const reason = error instanceof Error ? error.message : String(error);
	return new NodeOperationError(
		context.getNode(),
		`Send Once could not use n8n's store: ${reason}`,
		{
			description: withNotSent(
				"n8n's database did not take the call: run again once it does, or set Send Once to Off",
			),
		},
	);
}
