import type { IDataObject } from 'n8n-workflow';

/**
 * The note of a row Send accepted: the service taking a message is not the contact getting it.
 * Send says so on each accepted row; once the status is read (Wait for Final Status, Get Delivery
 * Report), the note says what the status means instead.
 */
export const NOT_YET_DELIVERED_NOTE =
	'Accepted is not delivered yet: Get Delivery Report or Wait for Final Status says if the contact got it.';

/** What each status means for a message the service accepted, in words ('' once delivered). */
const STATUS_NOTES: Record<string, string> = {
	DELIVERED: '',
	PROCESSING: 'Accepted, not delivered yet: the service has it queued for sending.',
	SENT: 'Accepted and sent, delivery not confirmed: no delivery report has come back yet.',
	FAILED: 'Accepted, then failed: the service could not send it (see reason).',
	DELIVERING_FAILED: 'Accepted and sent, but not delivered to the contact (see reason).',
	UNKNOWN: 'Accepted, delivery not known: the service gave no status for it yet.',
};

const statusNote = (status: string) =>
	STATUS_NOTES[status] ?? `Accepted, delivery not known: the service gave the status ${status}.`;

/**
 * Send's row (`accepted`, or `already accepted` by an earlier run) with its status read: the note
 * says what the status means, before the row's other notes (a possible duplicate, a send again).
 * Any other row is returned as it is.
 */
export function withDeliveryNote(json: IDataObject): IDataObject {
	if (json.outcome !== 'accepted' && json.outcome !== 'already accepted') return json;
	if (typeof json.status !== 'string' || json.status === '') return json;
	const others = String(json.note ?? '')
		.replace(NOT_YET_DELIVERED_NOTE, '')
		.trim();
	return {
		...json,
		note: [statusNote(json.status), others].filter((part) => part !== '').join(' '),
	};
}
