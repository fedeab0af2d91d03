import type { IExecuteFunctions, INode } from 'n8n-workflow';

import { sentDetailText } from '../../nodes/ContactCenter/actions/proactiveMessage/send/onceSettings';
import { NOT_YET_DELIVERED_NOTE } from '../../nodes/ContactCenter/helpers/deliveryNote';
import {
	ALREADY_SENT_NOTE,
	correlationIdOf,
	failedSendFields,
	mediumName,
	outcomeOfError,
	sentAgainNote,
	POSSIBLE_DUPLICATE_NOTE,
	SENT_EARLIER_NOTE,
	sentRow,
	skippedRow,
	statusNotReadNote,
	UnconfirmedSendError,
	type MessageFields,
} from '../../nodes/ContactCenter/actions/proactiveMessage/send/outcome';
import { ServiceRequestError } from '../../nodes/ContactCenter/transport';

const node: INode = {
	id: 'send',
	name: 'Send',
	type: 'n8n-nodes-contact-center.contactCenter',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

const message: MessageFields = {
	medium: 'TWILIO',
	channel: 'Appointments SMS',
	contact: '+31612345678',
	messageType: 'text',
	sendOnceKey: 'reminder-1',
};

const serverError = { kind: 'serverError' as const, status: 502, messages: [] };

describe('outcomeOfError', () => {
	it('says not sent when no attempt can have reached the service', () => {
		expect(outcomeOfError(new ServiceRequestError(serverError, 1, 0))).toEqual({
			outcome: 'not sent',
			possibleDuplicate: false,
		});
		expect(outcomeOfError(new Error('broken expression'))).toEqual({
			outcome: 'not sent',
			possibleDuplicate: false,
		});
	});

	it('says may have been sent after an uncertain attempt, and possibly twice after two', () => {
		expect(outcomeOfError(new ServiceRequestError(serverError, 2, 1))).toEqual({
			outcome: 'may have been sent',
			possibleDuplicate: false,
		});
		expect(outcomeOfError(new ServiceRequestError(serverError, 3, 2))).toEqual({
			outcome: 'may have been sent',
			possibleDuplicate: true,
		});
	});
});

describe('correlationIdOf', () => {
	it("gives the answer's correlationId", () => {
		expect(correlationIdOf(node, 0, { correlationId: 'c-1' }, 0)).toBe('c-1');
	});

	it('fails an answer without one as may have been sent, possibly twice after an uncertain attempt', () => {
		let thrown: unknown;
		try {
			correlationIdOf(node, 3, { queued: true }, 1);
		} catch (error) {
			thrown = error;
		}
		expect(thrown).toBeInstanceOf(UnconfirmedSendError);
		expect((thrown as UnconfirmedSendError).message).toContain('returned no correlationId');
		expect(outcomeOfError(thrown)).toEqual({
			outcome: 'may have been sent',
			possibleDuplicate: true,
		});
	});
});

/** The columns of every row of Send, in order: what became of the message first. */
const COLUMNS = ['outcome', 'contact', 'correlationId', 'sentAt', 'note'];
/** With Include Send Details, the possible duplicate flag, how it was sent and its Send Once Key after them. */
const DETAIL_COLUMNS = [
	...COLUMNS,
	'possibleDuplicate',
	'medium',
	'mediumName',
	'channel',
	'messageType',
	'attempts',
	'sendOnceKey',
];

describe('the rows of a send', () => {
	it('an accepted message: accepted, its contact, correlationId and time; the note says it is not delivered yet, and a possible second copy', () => {
		const row = sentRow(
			message,
			{
				correlationId: 'c-1',
				sentAt: '2026-11-22T12:00:00.000Z',
				attempts: 2,
				uncertainAttempts: 1,
			},
			false,
		);
		expect(row).toEqual({
			outcome: 'accepted',
			contact: '+31612345678',
			correlationId: 'c-1',
			sentAt: '2026-11-22T12:00:00.000Z',
			note: `${NOT_YET_DELIVERED_NOTE} ${POSSIBLE_DUPLICATE_NOTE}`,
		});
		expect(Object.keys(row)).toEqual(COLUMNS);
	});

	it('with Include Send Details: how it was sent, the Medium as the form names it, the Send Once Key', () => {
		const row = sentRow(
			message,
			{
				correlationId: 'c-1',
				sentAt: '2026-11-22T12:00:00.000Z',
				attempts: 2,
				uncertainAttempts: 0,
			},
			true,
		);
		expect(row).toMatchObject({
			medium: 'TWILIO',
			mediumName: 'SMS via Twilio',
			channel: 'Appointments SMS',
			messageType: 'text',
			attempts: 2,
			sendOnceKey: 'reminder-1',
		});
		expect(Object.keys(row)).toEqual(DETAIL_COLUMNS);
	});

	it('a message sent again after a failed one: the note says what became of the earlier one', () => {
		const row = sentRow(
			message,
			{
				correlationId: 'c-2',
				sentAt: '2026-11-22T12:00:00.000Z',
				attempts: 1,
				uncertainAttempts: 0,
				sentAgainAfter: 'DELIVERING_FAILED',
			},
			false,
		);
		expect(row).toMatchObject({ outcome: 'accepted', correlationId: 'c-2' });
		expect(row.note).toBe(`${NOT_YET_DELIVERED_NOTE} ${sentAgainNote('DELIVERING_FAILED')}`);
		expect(row.note).toContain('DELIVERING_FAILED');
	});

	it('a message the record has as sent: already accepted, with the earlier time and id; the note says nothing was sent again', () => {
		const detail = sentDetailText({ correlationId: 'c-0', sentAt: '2026-11-21T08:00:00.000Z' });
		const row = skippedRow(message, { kind: 'alreadySent', at: 0, detail }, false);
		expect(row).toEqual({
			outcome: 'already accepted',
			contact: '+31612345678',
			correlationId: 'c-0',
			sentAt: '2026-11-21T08:00:00.000Z',
			note: ALREADY_SENT_NOTE,
		});
		expect(row.note).toMatch(/^Nothing sent again: /);
	});

	it("a message n8n's store has as sent: already accepted, no earlier time or id; the note says nothing was sent again", () => {
		const row = skippedRow(message, { kind: 'sentEarlier' }, false);
		expect(row).toEqual({
			outcome: 'already accepted',
			contact: '+31612345678',
			correlationId: '',
			sentAt: '',
			note: SENT_EARLIER_NOTE,
		});
		expect(row.note).toMatch(/^Nothing sent again: /);
	});

	it('already accepted, and the status Send Again To needed could not be read: the note says so', () => {
		const detail = sentDetailText({ correlationId: 'c-0', sentAt: '2026-11-21T08:00:00.000Z' });
		const row = skippedRow(
			message,
			{ kind: 'alreadySent', at: 0, detail, statusNotRead: 'timed out' },
			false,
		);
		expect(row).toMatchObject({
			outcome: 'already accepted',
			note: statusNotReadNote('timed out'),
		});
		expect(row.note).toContain('timed out');
	});

	it('a message another run holds: not sent here, may have been sent, and a note that says why', () => {
		const since = Date.parse('2026-11-22T11:59:00Z');
		const held = skippedRow(message, { kind: 'running', since }, false);
		expect(held).toMatchObject({
			outcome: 'may have been sent',
			sentAt: '',
			correlationId: '',
		});
		expect(Object.keys(held)).toEqual(COLUMNS);
		expect(held.note).toContain('another run claimed this message at 2026-11-22T11:59:00.000Z');
		const stopped = skippedRow(message, { kind: 'running', since, stopped: true }, false);
		expect(stopped.note).toContain(
			'a run that stopped (a crash or restart) was sending this message',
		);
	});

	it.each([
		['MESSAGEBIRD', 'SMS via MessageBird'],
		['TWILIO', 'SMS via Twilio'],
		['WHATSAPP', 'WhatsApp'],
	])('the Medium %s is named %s, as in the form', (medium, name) => {
		expect(mediumName(medium)).toBe(name);
	});
});

describe('the row of a failed item (Continue On Fail)', () => {
	const parameters: Record<string, unknown> = {
		medium: 'TWILIO',
		channel: 'Appointments SMS',
		contact: '+31612345678',
		sendOnce: 'customKey',
		sendOnceStore: 'dataTable',
		sendOnceKey: 'reminder-1',
	};
	const context = {
		getNodeParameter: (name: string, _i: number, fallback?: unknown) =>
			name in parameters ? parameters[name] : fallback,
	} as unknown as IExecuteFunctions;

	it('has the columns of a sent row: not sent, its contact, and the sends it made in the details', () => {
		const error = new ServiceRequestError(serverError, 3, 0);
		const row = failedSendFields.call(context, 0, error, false);
		expect(row).toEqual({
			outcome: 'not sent',
			contact: '+31612345678',
			correlationId: '',
			sentAt: '',
			note: '',
		});
		expect(failedSendFields.call(context, 0, error, true)).toMatchObject({
			attempts: 3,
			possibleDuplicate: false,
		});
	});

	it('an item refused before sending made no send', () => {
		expect(failedSendFields.call(context, 0, new Error('broken expression'), true)).toMatchObject({
			outcome: 'not sent',
			attempts: 0,
		});
	});

	it('keeps the columns when a field cannot be read (what failed the item), with empty values', () => {
		const broken = {
			getNodeParameter: (name: string) => {
				throw new Error(`cannot read ${name}`);
			},
		} as unknown as IExecuteFunctions;
		const row = failedSendFields.call(broken, 0, new Error('broken expression'), false);
		expect(Object.keys(row)).toEqual(COLUMNS);
		expect(row).toMatchObject({ outcome: 'not sent', contact: '' });
	});

	it('with Include Send Details, has a sendOnceKey column whenever Send Once is on, and none when it is Off; on by default', () => {
		const withMode = (sendOnce: string | undefined) =>
			failedSendFields.call(
				{
					getNodeParameter: (name: string, _i: number, fallback?: unknown) =>
						name === 'sendOnce'
							? (sendOnce ?? fallback)
							: name in parameters
								? parameters[name]
								: fallback,
				} as unknown as IExecuteFunctions,
				0,
				new Error('refused'),
				true,
			);
		expect(withMode('message').sendOnceKey).toBe('');
		expect(withMode('customKey').sendOnceKey).toBe('reminder-1');
		expect(withMode('off')).not.toHaveProperty('sendOnceKey');
		expect(withMode(undefined).sendOnceKey).toBe('');
	});
});
