import {
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INode,
} from 'n8n-workflow';

import { ServiceRequestError } from '../../../transport';
import { MAY_HAVE_BEEN_SENT } from '../../../helpers/nodeErrors';
import { readMessageAddress } from './body';
import { MEDIUM_OPTIONS } from './description';
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

/** The Medium as the node's form names it ("SMS via Twilio"), next to the service's code. */
export function mediumName(medium: string): string {
	return MEDIUM_OPTIONS.find((option) => option.value === medium)?.name ?? medium;
}

/**
 * Every row of Send, sent or not, has these columns in this order (a row drops into a sheet row):
 * what became of the message, whether this run sent it, when it went out (in this run or an
 * earlier one), which message it is, how many sends this run made, and a note for a row that
 * needs one ('' otherwise).
 */
function row(
	message: Partial<MessageFields>,
	fields: {
		correlationId?: string;
		outcome: SendOutcome;
		sentThisRun: boolean;
		sentAt?: string;
		possibleDuplicate: boolean;
		attempts: number;
		note?: string;
	},
): IDataObject {
	const { medium, channel, contact, messageType, sendOnceKey } = message;
	return {
		outcome: fields.outcome,
		sentThisRun: fields.sentThisRun,
		sentAt: fields.sentAt ?? '',
		correlationId: fields.correlationId ?? '',
		possibleDuplicate: fields.possibleDuplicate,
		...(medium === undefined ? {} : { medium, mediumName: mediumName(medium) }),
		...(channel === undefined ? {} : { channel }),
		...(contact === undefined ? {} : { contact }),
		...(messageType === undefined ? {} : { messageType }),
		...(sendOnceKey === undefined ? {} : { sendOnceKey }),
		attempts: fields.attempts,
		note: fields.note ?? '',
	};
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

/** How many sends this run made before the item failed. */
function attemptsOfError(error: unknown): number {
	if (error instanceof UnconfirmedSendError) return error.uncertainAttempts + 1;
	return error instanceof ServiceRequestError ? error.attempts : 0;
}

/**
 * A failed item's sendOnceKey column, as its sent row would have it while Send Once is on: the
 * Send Once Key with Once per Key, empty with Same Message Once (the message's key is not known).
 */
function failedItemSendOnceKey(this: IExecuteFunctions, i: number): string | undefined {
	const mode = this.getNodeParameter('sendOnce', i, 'message');
	if (mode === 'off') return undefined;
	return mode === 'customKey' ? String(this.getNodeParameter('sendOnceKey', i, '')).trim() : '';
}

/** The fields of a failed item's row (with Continue On Fail): what became of its message, and which. */
export function failedSendFields(this: IExecuteFunctions, i: number, error: unknown): IDataObject {
	const fields = { sentThisRun: false, attempts: attemptsOfError(error), ...outcomeOfError(error) };
	const orEmpty = <T>(read: () => T, empty: T): T => {
		try {
			return read();
		} catch {
			// A field that cannot be read is what failed the item: its error is reported as such.
			return empty;
		}
	};
	const address = orEmpty(() => readMessageAddress.call(this, i), {
		medium: '',
		channel: '',
		contact: '',
		messageType: '',
	});
	const sendOnceKey = orEmpty(() => failedItemSendOnceKey.call(this, i), '');
	return row({ ...address, sendOnceKey }, fields);
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
	return row(message, {
		outcome: 'sent',
		sentThisRun: true,
		sentAt: sent.sentAt,
		correlationId: sent.correlationId,
		possibleDuplicate: sent.uncertainAttempts > 0,
		attempts: sent.attempts,
	});
}

/** The row of an item whose message this run did not send because of Send Once. */
export function skippedRow(message: MessageFields, skip: SendOnceSkip): IDataObject {
	if (skip.kind === 'alreadySent') {
		const detail = parseSentDetail(skip.detail, skip.at);
		return row(message, {
			outcome: 'already sent',
			sentThisRun: false,
			sentAt: detail.sentAt,
			correlationId: detail.correlationId,
			possibleDuplicate: false,
			attempts: 0,
			note: alreadySentNote(detail.sentAt),
		});
	}
	return row(message, {
		outcome: 'may have been sent',
		sentThisRun: false,
		possibleDuplicate: false,
		attempts: 0,
		note: heldElsewhereNote(skip.since, skip.stopped === true),
	});
}

export function alreadySentNote(sentAt: string): string {
	return `Not sent by this run: an earlier run sent this message at ${sentAt} (Send Once).`;
}

export function heldElsewhereNote(since: number | undefined, stopped: boolean): string {
	const at = since === undefined ? '' : ` at ${new Date(since).toISOString()}`;
	const who = stopped
		? `a run that stopped (a crash or restart) was sending this message${at}`
		: `another run claimed this message${at}: it is sending it now, or it stopped (a crash or restart) while sending it`;
	return `Not sent by this run: ${who}. The service may have it: check before sending it again, e.g. with Send Once set to Off.`;
}
