import type { IExecuteFunctions, INode } from 'n8n-workflow';

import { sentDetailText } from '../../nodes/ContactCenter/actions/proactiveMessage/send/onceSettings';
import {
	correlationIdOf,
	failedSendFields,
	mediumName,
	outcomeOfError,
	sentRow,
	skippedRow,
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

/** The columns of every row of Send, in order: a row drops into a sheet row. */
const COLUMNS = [
	'outcome',
	'sentThisRun',
	'sentAt',
	'correlationId',
	'possibleDuplicate',
	'medium',
	'mediumName',
	'channel',
	'contact',
	'messageType',
	'sendOnceKey',
	'attempts',
	'note',
];

describe('the rows of a send', () => {
	it('a sent message: sent by this run, its correlationId, the Medium as the form names it', () => {
		const row = sentRow(message, {
			correlationId: 'c-1',
			sentAt: '2026-11-22T12:00:00.000Z',
			attempts: 2,
			uncertainAttempts: 1,
		});
		expect(row).toEqual({
			outcome: 'sent',
			sentThisRun: true,
			sentAt: '2026-11-22T12:00:00.000Z',
			correlationId: 'c-1',
			possibleDuplicate: true,
			...message,
			mediumName: 'SMS via Twilio',
			attempts: 2,
			note: '',
		});
		expect(Object.keys(row)).toEqual(COLUMNS);
	});

	it('a message the record has as sent: this run sent nothing, an earlier run sent it then', () => {
		const detail = sentDetailText({ correlationId: 'c-0', sentAt: '2026-11-21T08:00:00.000Z' });
		const row = skippedRow(message, { kind: 'alreadySent', at: 0, detail });
		expect(row).toEqual({
			outcome: 'already sent',
			sentThisRun: false,
			sentAt: '2026-11-21T08:00:00.000Z',
			correlationId: 'c-0',
			possibleDuplicate: false,
			...message,
			mediumName: 'SMS via Twilio',
			attempts: 0,
			note: 'Not sent by this run: an earlier run sent this message at 2026-11-21T08:00:00.000Z (Send Once).',
		});
		expect(Object.keys(row)).toEqual(COLUMNS);
	});

	it('a message another run holds: not sent here, may have been sent, and a note that says why', () => {
		const since = Date.parse('2026-11-22T11:59:00Z');
		const held = skippedRow(message, { kind: 'heldElsewhere', since });
		expect(held).toMatchObject({
			outcome: 'may have been sent',
			sentThisRun: false,
			sentAt: '',
			correlationId: '',
			attempts: 0,
		});
		expect(Object.keys(held)).toEqual(COLUMNS);
		expect(held.note).toContain('another run claimed this message at 2026-11-22T11:59:00.000Z');
		const stopped = skippedRow(message, { kind: 'heldElsewhere', since, stopped: true });
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
		sendOnceKey: 'reminder-1',
	};
	const context = {
		getNodeParameter: (name: string, _i: number, fallback?: unknown) =>
			name in parameters ? parameters[name] : fallback,
	} as unknown as IExecuteFunctions;

	it('has the columns of a sent row, with nothing sent by this run and the sends it made', () => {
		const row = failedSendFields.call(context, 0, new ServiceRequestError(serverError, 3, 0));
		expect(row).toEqual({
			outcome: 'not sent',
			sentThisRun: false,
			sentAt: '',
			correlationId: '',
			possibleDuplicate: false,
			...message,
			mediumName: 'SMS via Twilio',
			attempts: 3,
			note: '',
		});
		expect(Object.keys(row)).toEqual(COLUMNS);
	});

	it('an item refused before sending made no send', () => {
		expect(failedSendFields.call(context, 0, new Error('broken expression'))).toMatchObject({
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
		const row = failedSendFields.call(broken, 0, new Error('broken expression'));
		expect(Object.keys(row)).toEqual(COLUMNS);
		expect(row).toMatchObject({ outcome: 'not sent', medium: '', mediumName: '', contact: '' });
	});

	it('has a sendOnceKey column whenever Send Once is on, and none when it is Off', () => {
		const withMode = (sendOnce: string) =>
			failedSendFields.call(
				{
					getNodeParameter: (name: string, _i: number, fallback?: unknown) =>
						name === 'sendOnce' ? sendOnce : name in parameters ? parameters[name] : fallback,
				} as unknown as IExecuteFunctions,
				0,
				new Error('refused'),
			);
		expect(withMode('message').sendOnceKey).toBe('');
		expect(withMode('customKey').sendOnceKey).toBe('reminder-1');
		expect(withMode('off')).not.toHaveProperty('sendOnceKey');
	});
});
