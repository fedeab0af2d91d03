import type { INode } from 'n8n-workflow';

import { sentDetailText } from '../../nodes/ContactCenter/actions/proactiveMessage/send/onceSettings';
import {
	correlationIdOf,
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

describe('the rows of a send', () => {
	it('a sent message: its correlationId first, then the message and its attempts', () => {
		const row = sentRow(message, {
			correlationId: 'c-1',
			sentAt: '2026-11-22T12:00:00.000Z',
			attempts: 2,
			uncertainAttempts: 1,
		});
		expect(row).toEqual({
			correlationId: 'c-1',
			sent: true,
			outcome: 'sent',
			possibleDuplicate: true,
			...message,
			attempts: 2,
			sentAt: '2026-11-22T12:00:00.000Z',
		});
		expect(Object.keys(row).slice(0, 4)).toEqual([
			'correlationId',
			'sent',
			'outcome',
			'possibleDuplicate',
		]);
	});

	it('a message the record has as sent: the correlationId and time of that send', () => {
		const detail = sentDetailText({ correlationId: 'c-0', sentAt: '2026-11-21T08:00:00.000Z' });
		expect(skippedRow(message, { kind: 'alreadySent', at: 0, detail })).toEqual({
			correlationId: 'c-0',
			sent: true,
			outcome: 'already sent',
			possibleDuplicate: false,
			...message,
			attempts: 0,
			sentAt: '2026-11-21T08:00:00.000Z',
		});
	});

	it('a message another run holds: not sent here, may have been sent, and a note that says why', () => {
		const since = Date.parse('2026-11-22T11:59:00Z');
		const held = skippedRow(message, { kind: 'heldElsewhere', since });
		expect(held).toMatchObject({ sent: false, outcome: 'may have been sent', attempts: 0 });
		expect(held).not.toHaveProperty('correlationId');
		expect(held.note).toContain('another run claimed this message at 2026-11-22T11:59:00.000Z');
		const stopped = skippedRow(message, { kind: 'heldElsewhere', since, stopped: true });
		expect(stopped.note).toContain(
			'a run that stopped (a crash or restart) was sending this message',
		);
	});
});
