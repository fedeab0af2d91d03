import {
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INode,
} from 'n8n-workflow';

import { ServiceRequestError } from '../../../transport';
import { MAY_HAVE_BEEN_SENT } from '../../../helpers/nodeErrors';
import { readMessageAddress } from './body';
import { parseSentDetail } from './onceSettings';
import type { SendOnceSkip } from './onceGuard';

/** What an output item says about its message, in words that read well in a spreadsheet. */
export type SendOutcome = 'sent' | 'already sent' | 'not sent' | 'may have been sent';

/** The fields of an output item that say which message it is about. */
export interface MessageFields extends IDataObject {
	medium: string;
	channel: string;
	contact: string;
	messageType: string;
	sendOnceKey?: string;
}

/** The service answered without a correlationId: it probably queued the message. */
export class UnconfirmedSendError extends NodeOperationError {
	/** Earlier attempts that may have queued the message as well. */
	uncertainAttempts = 0;
}

/** How a failed item's message ended: sent or not, and whether more than one copy may be out. */
export function outcomeOfError(error: unknown): {
	outcome: SendOutcome;
	possibleDuplicate: boolean;
} {
	if (error instanceof UnconfirmedSendError) {
		return { outcome: 'may have been sent', possibleDuplicate: error.uncertainAttempts > 0 };
	}
	const uncertainAttempts = error instanceof ServiceRequestError ? error.uncertainAttempts : 0;
	return {
		outcome: uncertainAttempts > 0 ? 'may have been sent' : 'not sent',
		possibleDuplicate: uncertainAttempts > 1,
	};
}

/** The fields of a failed item's row (with Continue On Fail): what became of its message, and which. */
export function failedSendFields(this: IExecuteFunctions, i: number, error: unknown): IDataObject {
	const outcomeFields = { sent: false, ...outcomeOfError(error) };
	try {
		const { medium, channel, contact, messageType } = readMessageAddress.call(this, i);
		return { ...outcomeFields, medium, channel, contact, messageType };
	} catch {
		// A field that cannot be read is what failed the item: its error is reported as such.
		return outcomeFields;
	}
}

/** The correlationId of an accepted send; an answer without one fails the item as 'may have been sent'. */
export function correlationIdOf(
	node: INode,
	itemIndex: number,
	response: unknown,
	uncertainAttempts: number,
): string {
	const correlationId = (response as IDataObject | undefined)?.correlationId;
	if (typeof correlationId === 'string' && correlationId !== '') return correlationId;
	const unconfirmed = new UnconfirmedSendError(
		node,
		`The service accepted the message but returned no correlationId: ${JSON.stringify(response)}`,
		{ description: `The service probably queued it. ${MAY_HAVE_BEEN_SENT}`, itemIndex },
	);
	unconfirmed.uncertainAttempts = uncertainAttempts;
	throw unconfirmed;
}

export function sentRow(
	message: MessageFields,
	sent: { correlationId: string; sentAt: string; attempts: number; uncertainAttempts: number },
): IDataObject {
	return {
		correlationId: sent.correlationId,
		sent: true,
		outcome: 'sent' satisfies SendOutcome,
		possibleDuplicate: sent.uncertainAttempts > 0,
		...message,
		attempts: sent.attempts,
		sentAt: sent.sentAt,
	};
}

/** The row of an item whose message this run did not send because of Send Once. */
export function skippedRow(message: MessageFields, skip: SendOnceSkip): IDataObject {
	if (skip.kind === 'alreadySent') {
		const detail = parseSentDetail(skip.detail, skip.at);
		return {
			correlationId: detail.correlationId,
			sent: true,
			outcome: 'already sent' satisfies SendOutcome,
			possibleDuplicate: false,
			...message,
			attempts: 0,
			sentAt: detail.sentAt,
		};
	}
	return {
		sent: false,
		outcome: 'may have been sent' satisfies SendOutcome,
		possibleDuplicate: false,
		...message,
		attempts: 0,
		note: heldElsewhereNote(skip.since, skip.stopped === true),
	};
}

export function heldElsewhereNote(since: number | undefined, stopped: boolean): string {
	const at = since === undefined ? '' : ` at ${new Date(since).toISOString()}`;
	const who = stopped
		? `a run that stopped (a crash or restart) was sending this message${at}`
		: `another run claimed this message${at}: it is sending it now, or it stopped (a crash or restart) while sending it`;
	return `Not sent by this run: ${who}. The service may have it: check before sending it again, e.g. with Send Once set to Off.`;
}
