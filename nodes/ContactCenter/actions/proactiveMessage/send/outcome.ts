import {
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INode,
} from 'n8n-workflow';

import { ServiceRequestError } from '../../../transport';
import { NOT_YET_DELIVERED_NOTE } from '../../../helpers/deliveryNote';
import { MAY_HAVE_BEEN_SENT } from '../../../helpers/nodeErrors';
import { readMessageAddress } from './body';
import { MEDIUM_OPTIONS } from './description';
import { DEFAULT_SEND_ONCE_MODE, parseSentDetail } from './onceSettings';
import type { SendOnceSkip } from './onceGuard';

/**
 * What an output item says about its message, in words that read well in a spreadsheet. The
 * service accepting a message is not the contact getting it: Get Status (or Wait for Final Status)
 * says that.
 */
export type SendOutcome = 'accepted' | 'already accepted' | 'not sent' | 'may have been sent';

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

/** What a row says besides its message: how it ended, and when and under which id it went out. */
export interface RowFields {
	outcome: SendOutcome;
	correlationId?: string;
	sentAt?: string;
	possibleDuplicate: boolean;
	attempts: number;
	note?: string;
}

/**
 * Every row of Send, sent or not, has these columns in this order (a row drops into a sheet row):
 * what became of the message, to whom, its id and time, and a note for a row that needs one (''
 * otherwise; a copy that may be out twice says so there). With Include Send Details, also the
 * possibleDuplicate flag, how it was sent and the Send Once Key.
 */
export function row(
	message: Partial<MessageFields>,
	fields: RowFields,
	includeDetails: boolean,
): IDataObject {
	const { medium, channel, contact, messageType, sendOnceKey } = message;
	return {
		outcome: fields.outcome,
		contact: contact ?? '',
		correlationId: fields.correlationId ?? '',
		sentAt: fields.sentAt ?? '',
		note: [fields.note, fields.possibleDuplicate ? POSSIBLE_DUPLICATE_NOTE : '']
			.filter((part) => part !== undefined && part !== '')
			.join(' '),
		...(includeDetails
			? {
					possibleDuplicate: fields.possibleDuplicate,
					medium: medium ?? '',
					mediumName: medium ? mediumName(medium) : '',
					channel: channel ?? '',
					messageType: messageType ?? '',
					attempts: fields.attempts,
					...(sendOnceKey === undefined ? {} : { sendOnceKey }),
				}
			: {}),
	};
}

export const POSSIBLE_DUPLICATE_NOTE =
	'Possible duplicate: an earlier attempt may have been queued too, so the contact may get this message twice.';

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
	const mode = this.getNodeParameter('sendOnce', i, DEFAULT_SEND_ONCE_MODE);
	if (mode === 'off') return undefined;
	return mode === 'customKey' ? String(this.getNodeParameter('sendOnceKey', i, '')).trim() : '';
}

/** The fields of a failed item's row (with Continue On Fail): what became of its message, and which. */
export function failedSendFields(
	this: IExecuteFunctions,
	i: number,
	error: unknown,
	includeDetails: boolean,
): IDataObject {
	const fields = { attempts: attemptsOfError(error), ...outcomeOfError(error) };
	const orEmpty = <T>(read: () => T, empty: T): T => {
		try {
			return read();
		} catch {
			// Safe to ignore: a field that cannot be read is what failed the item, whose error is reported.
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
	return row({ ...address, sendOnceKey }, fields, includeDetails);
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

/** What the service accepted in this run, and the status of the earlier message it replaces if any. */
export interface AcceptedSend {
	correlationId: string;
	sentAt: string;
	attempts: number;
	uncertainAttempts: number;
	/** The status of the message an earlier run sent, when Send Again To sent it again. */
	sentAgainAfter?: string;
}

export function sentRow(
	message: MessageFields,
	sent: AcceptedSend,
	includeDetails: boolean,
): IDataObject {
	return row(
		message,
		{
			outcome: 'accepted',
			sentAt: sent.sentAt,
			correlationId: sent.correlationId,
			possibleDuplicate: sent.uncertainAttempts > 0,
			attempts: sent.attempts,
			note:
				sent.sentAgainAfter === undefined
					? NOT_YET_DELIVERED_NOTE
					: `${NOT_YET_DELIVERED_NOTE} ${sentAgainNote(sent.sentAgainAfter)}`,
		},
		includeDetails,
	);
}

/**
 * The row of an item whose message this run did not send because of Send Once. An earlier run's
 * send is already accepted: its sentAt and correlationId are the earlier ones (when the store
 * keeps them), and the note says that nothing was sent again.
 */
export function skippedRow(
	message: MessageFields,
	skip: SendOnceSkip,
	includeDetails: boolean,
): IDataObject {
	if (skip.kind === 'sentEarlier') {
		return row(
			message,
			{ outcome: 'already accepted', possibleDuplicate: false, attempts: 0, note: SENT_EARLIER_NOTE },
			includeDetails,
		);
	}
	if (skip.kind === 'alreadySent') {
		const detail = parseSentDetail(skip.detail, skip.at);
		return row(
			message,
			{
				outcome: 'already accepted',
				sentAt: detail.sentAt,
				correlationId: detail.correlationId,
				possibleDuplicate: false,
				attempts: 0,
				note:
					skip.statusNotRead === undefined
						? ALREADY_SENT_NOTE
						: statusNotReadNote(skip.statusNotRead),
			},
			includeDetails,
		);
	}
	return row(
		message,
		{
			outcome: 'may have been sent',
			possibleDuplicate: false,
			attempts: 0,
			note: runningNote(skip.since, skip.stopped === true),
		},
		includeDetails,
	);
}

/** A rerun's row in n8n's store, which keeps no correlationId nor time of the earlier send. */
export const SENT_EARLIER_NOTE =
	'Nothing sent again: this node sent this message in an earlier run, within the Send Once Period.';

/** A rerun's row in a Data Table, which keeps the earlier send's correlationId and sentAt. */
export const ALREADY_SENT_NOTE =
	'Nothing sent again: this node sent this message in an earlier run, whose correlationId and sentAt these are.';

export const statusNotReadNote = (error: string) =>
	`Not sent again: the status of the message an earlier run sent could not be read (${error})`;

export const sentAgainNote = (earlierStatus: string) =>
	`Sent again: the message an earlier run sent is ${earlierStatus} (Send Again To)`;

export function runningNote(since: number | undefined, stopped: boolean): string {
	const at = since === undefined ? '' : ` at ${new Date(since).toISOString()}`;
	const who = stopped
		? `a run that stopped (a crash or restart) was sending this message${at}`
		: `another run claimed this message${at}: it is sending it now, or it stopped (a crash or restart) while sending it`;
	return `Not sent by this run: ${who}. The service may have it: check before sending it again, e.g. with Send Once set to Off.`;
}
