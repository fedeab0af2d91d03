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

const OTHER_STATUS_NOTE = 'Accepted, delivery not known: the service gave the status';

const statusNote = (status: string) => STATUS_NOTES[status] ?? `${OTHER_STATUS_NOTE} ${status}.`;

/** The row's notes other than what a status meant: a row read before (Get Status, then Get Failed) says it once. */
function otherNotes(note: string): string {
	let others = note.replace(NOT_YET_DELIVERED_NOTE, '');
	for (const known of Object.values(STATUS_NOTES))
		if (known !== '') others = others.replace(known, '');
	const other = others.indexOf(OTHER_STATUS_NOTE);
	if (other !== -1) {
		const end = others.indexOf('.', other + OTHER_STATUS_NOTE.length);
		others = others.slice(0, other) + others.slice(end === -1 ? others.length : end + 1);
	}
	return others.trim();
}

/**
 * Send's row (`accepted`, or `already accepted` by an earlier run) with its status read: the note
 * says what the status means, before the row's other notes (a possible duplicate, a send again).
 * Any other row is returned as it is.
 */
export function withDeliveryNote(json: IDataObject): IDataObject {
	if (json.outcome !== 'accepted' && json.outcome !== 'already accepted') return json;
	if (typeof json.status !== 'string' || json.status === '') return json;
	const others = otherNotes(String(json.note ?? ''));
	return {
		...json,
		note: [statusNote(json.status), others].filter((part) => part !== '').join(' '),
	};
}
