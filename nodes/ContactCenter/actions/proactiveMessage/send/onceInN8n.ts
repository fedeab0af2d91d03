import { NodeOperationError, type IExecuteFunctions } from 'n8n-workflow';

import { N8N_STORE_MAX_MESSAGES, N8nSendStore, type N8nWork } from '../../../../shared/once';
import { withNotSent } from '../../../helpers/nodeErrors';
import type { SendOnceSkip } from './onceGuard';

/**
 * Send Once recorded in n8n's own store (Record Sends In: n8n): each message is claimed right
 * before its send, so a skipped message waits for no send slot, and a crash leaves at most the
 * message being sent as "may have been sent" (see nodes/shared/once/n8nStore.ts).
 */
export class SendOnceInN8n {
	private readonly store: N8nSendStore;

	constructor(private readonly context: IExecuteFunctions) {
		this.store = new N8nSendStore(context);
	}

	/**
	 * Warns in the run when this campaign and what the store holds are more than it keeps, and when
	 * the node still has a Record API credential (a node set up before Record Sends In existed).
	 */
	async warnBeforeSending(itemCount: number): Promise<void> {
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

	/** Right before the item's send: a reason not to send, or undefined once the message is claimed. */
	async claim(work: N8nWork): Promise<SendOnceSkip | undefined> {
		const found = await this.store.claim(work).catch((error: unknown) => {
			throw notRecorded(this.context, error);
		});
		if (found === 'claimed') return undefined;
		if (found === 'sent') return { kind: 'sentEarlier' };
		return { kind: 'running' };
	}

	/** The service accepted the message. */
	sent(work: N8nWork): void {
		this.store.sent(work);
	}

	/** The send failed; a message that cannot be out is free again. */
	async afterFailure(work: N8nWork, uncertainAttempts: number): Promise<void> {
		if (uncertainAttempts > 0) return;
		await this.store.release(work).catch((error: Error) => {
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
