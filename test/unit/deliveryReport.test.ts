import {
	deliverySummary,
	reportRow,
	rowOfUnsentItem,
	textAt,
} from '../../nodes/ContactCenter/helpers/deliveryReport';
import { POSSIBLE_DUPLICATE_NOTE } from '../../nodes/ContactCenter/actions/proactiveMessage/send/outcome';
import {
	NOT_YET_DELIVERED_NOTE,
	withDeliveryNote,
} from '../../nodes/ContactCenter/helpers/deliveryNote';
import { withInputFields } from '../../nodes/ContactCenter/helpers/items';
import {
	currentStatusOf,
	normalizeStatusOverview,
	receivedOf,
	statusRow,
} from '../../nodes/ContactCenter/helpers/statusOverview';
import { withStatusFields } from '../../nodes/ContactCenter/actions/proactiveMessage/send/finalStatus';
import { sentAgainKey } from '../../nodes/ContactCenter/actions/proactiveMessage/send/onceSettings';

const overviewOf = (statuses: Record<string, number>) =>
	normalizeStatusOverview({ correlationId: 'c-1', statuses }, 'c-1');

describe('withDeliveryNote (acceptance is not delivery)', () => {
	const accepted = {
		outcome: 'accepted',
		firstName: 'Ada',
		note: `${NOT_YET_DELIVERED_NOTE} ${POSSIBLE_DUPLICATE_NOTE}`,
	};

	it('says what the status read means instead of "not delivered yet", keeping the other notes', () => {
		const failed = withDeliveryNote({ ...accepted, received: 'no', status: 'FAILED' });
		expect(failed.note).toBe(
			`Accepted, then failed: the service could not send it (see reason). ${POSSIBLE_DUPLICATE_NOTE}`,
		);
		expect(withDeliveryNote({ ...accepted, status: 'DELIVERING_FAILED' }).note).toMatch(
			/^Accepted and sent, but not delivered to the contact/,
		);
		expect(withDeliveryNote({ ...accepted, status: 'SENT' }).note).toMatch(
			/^Accepted and sent, delivery not confirmed/,
		);
		expect(withDeliveryNote({ ...accepted, status: 'DELIVERED' }).note).toBe(
			POSSIBLE_DUPLICATE_NOTE,
		);
		expect(withDeliveryNote({ ...accepted, status: 'ON_HOLD' }).note).toBe(
			`Accepted, delivery not known: the service gave the status ON_HOLD. ${POSSIBLE_DUPLICATE_NOTE}`,
		);
	});

	it('says it once when a row is read again (Get Status, then Get Failed on its rows)', () => {
		const once = withDeliveryNote({ ...accepted, status: 'SENT' });
		const twice = withDeliveryNote({ ...once, status: 'FAILED' });
		expect(twice.note).toBe(
			`Accepted, then failed: the service could not send it (see reason). ${POSSIBLE_DUPLICATE_NOTE}`,
		);
		const odd = withDeliveryNote({ ...accepted, status: 'ON_HOLD' });
		expect(withDeliveryNote({ ...odd, status: 'DELIVERED' }).note).toBe(POSSIBLE_DUPLICATE_NOTE);
		expect(withDeliveryNote(withDeliveryNote({ ...accepted, status: 'FAILED' }))).toEqual(
			withDeliveryNote({ ...accepted, status: 'FAILED' }),
		);
	});

	it("leaves the note's place and a rerun's note as they are", () => {
		const rerun = { outcome: 'already accepted', note: 'Nothing sent again: x', status: 'FAILED' };
		const noted = withDeliveryNote({ ...rerun, received: 'no' });
		expect(Object.keys(noted)).toEqual(['outcome', 'note', 'status', 'received']);
		expect(noted.note).toBe(
			'Accepted, then failed: the service could not send it (see reason). Nothing sent again: x',
		);
	});

	it("leaves rows that are not Send's, or have no status, as they are", () => {
		const status = { status: 'FAILED', contact: '+3161' };
		expect(withDeliveryNote(status)).toBe(status);
		const notSent = { outcome: 'not sent', status: 'FAILED', note: '' };
		expect(withDeliveryNote(notSent)).toBe(notSent);
		const unread = { ...accepted, status: '' };
		expect(withDeliveryNote(unread)).toBe(unread);
	});
});

describe('withInputFields (Include Input Fields)', () => {
	it("puts the row's status columns first, then the input item's fields, then the row's others", () => {
		const merged = withInputFields(
			{ outcome: 'accepted', contact: '+31612345678', correlationId: 'c-1' },
			{ firstName: 'Ada', phone: '+31612345678', customerId: 'CUST-1815' },
		);
		expect(Object.keys(merged)).toEqual([
			'outcome',
			'firstName',
			'phone',
			'customerId',
			'contact',
			'correlationId',
		]);
		expect(merged.firstName).toBe('Ada');
	});

	it("keeps the row's order of its status columns: Get Status and Get Failed both start with status", () => {
		const input = { firstName: 'Ada', outcome: 'accepted' };
		const status = withInputFields({ contact: '+3161', status: 'FAILED', received: 'no' }, input);
		const failed = withInputFields({ contact: '+3161', status: 'FAILED', reason: 'x' }, input);
		expect(Object.keys(status)).toEqual(['status', 'received', 'firstName', 'outcome', 'contact']);
		expect(Object.keys(failed)).toEqual(['status', 'reason', 'firstName', 'outcome', 'contact']);
	});

	it("puts a failed item's error next to its outcome, before the input's fields", () => {
		const merged = withInputFields(
			{ outcome: 'not sent', contact: '', error: 'Contact is empty' },
			{ firstName: 'Ada' },
		);
		expect(Object.keys(merged)).toEqual(['outcome', 'error', 'firstName', 'contact']);
	});

	it("keeps the row's value of a field the input has too", () => {
		expect(withInputFields({ contact: '+3161' }, { contact: 'Ada' })).toEqual({ contact: '+3161' });
	});

	it('leaves the row as it is without an input item', () => {
		expect(withInputFields({ outcome: 'not sent' }, undefined)).toEqual({ outcome: 'not sent' });
	});
});

describe('receivedOf: who got it, who did not, who is unconfirmed', () => {
	it.each([
		['DELIVERED', 'yes'],
		['FAILED', 'no'],
		['DELIVERING_FAILED', 'no'],
		['SENT', 'unconfirmed'],
		['PROCESSING', 'unconfirmed'],
		['UNKNOWN', 'unconfirmed'],
		['READ', 'unconfirmed'],
	])('%s is %s', (status, received) => {
		expect(receivedOf(status)).toBe(received);
	});
});

describe("statusRow (Get Status's row of one send)", () => {
	it('one status column and whether the contact got it, first; no count columns', () => {
		const row = statusRow(overviewOf({ SENT: 1 }), '+31612340002');
		expect(row).toEqual({
			received: 'unconfirmed',
			status: 'SENT',
			contact: '+31612340002',
			correlationId: 'c-1',
		});
	});

	it('a status still on its way wins over a final one', () => {
		expect(currentStatusOf(overviewOf({ DELIVERED: 1, PROCESSING: 1 }))).toBe('PROCESSING');
		expect(currentStatusOf(overviewOf({}))).toBe('UNKNOWN');
	});

	it('an overview of more than one message has its counts as well', () => {
		const row = statusRow(overviewOf({ DELIVERED: 2, FAILED: 1 }), '');
		expect(row.statusCounts).toEqual({ DELIVERED: 2, FAILED: 1 });
		expect(row.status).toBe('FAILED');
	});
});

describe('withStatusFields (Wait for Final Status)', () => {
	it('puts received, status and reason right after outcome, over input fields of those names', () => {
		const row = withStatusFields(
			{ outcome: 'accepted', contact: '+3161', status: 'VIP', firstName: 'Ada' },
			{ received: 'no', status: 'FAILED', reason: 'Unknown number' },
		);
		expect(row).toEqual({
			outcome: 'accepted',
			received: 'no',
			status: 'FAILED',
			reason: 'Unknown number',
			contact: '+3161',
			firstName: 'Ada',
		});
		expect(Object.keys(row).slice(0, 4)).toEqual(['outcome', 'received', 'status', 'reason']);
	});
});

describe('sentAgainKey (Send Again To)', () => {
	it('hangs on the first key and names the failed message it replaces', () => {
		expect(sentAgainKey('+3161|TWILIO|abc', 'c-1')).toBe('+3161|TWILIO|abc|again after c-1');
		expect(sentAgainKey('+3161|TWILIO|abc', 'c-2')).not.toBe(
			sentAgainKey('+3161|TWILIO|abc', 'c-1'),
		);
	});
});

describe("reportRow (Get Delivery Report's row of one send)", () => {
	it('received, status and reason first, then the contact and correlationId: one flat row', () => {
		const row = reportRow(overviewOf({ FAILED: 1 }), '+31612340000', 'Invalid phone number');
		expect(row).toEqual({
			received: 'no',
			status: 'FAILED',
			reason: 'Invalid phone number',
			contact: '+31612340000',
			correlationId: 'c-1',
		});
		expect(Object.keys(row)).toEqual(['received', 'status', 'reason', 'contact', 'correlationId']);
	});

	it('keeps the counts of an overview of more than one message', () => {
		expect(reportRow(overviewOf({ DELIVERED: 2, SENT: 1 }), '', '')).toMatchObject({
			received: 'unconfirmed',
			status: 'SENT',
			statusCounts: { DELIVERED: 2, SENT: 1 },
		});
	});
});

describe("rowOfUnsentItem (Send's items without a correlationId)", () => {
	it("a message not sent did not reach the contact: Send's error is the reason", () => {
		expect(
			rowOfUnsentItem(
				{ outcome: 'not sent', correlationId: '', error: 'The service refused the message' },
				'+3161',
			),
		).toEqual({
			received: 'no',
			status: '',
			reason: 'The service refused the message',
			contact: '+3161',
			correlationId: '',
		});
	});

	it('a message that may have been sent is unconfirmed; without an error its outcome is the reason', () => {
		expect(rowOfUnsentItem({ outcome: 'may have been sent' }, '+3161')).toMatchObject({
			received: 'unconfirmed',
			status: '',
			reason: 'may have been sent',
		});
	});

	it.each([[{ outcome: 'accepted' }], [{ outcome: 'already accepted' }], [{}], [undefined]])(
		'is no row for any other item (%j): that one is asked about',
		(input) => {
			expect(rowOfUnsentItem(input, '+3161')).toBeUndefined();
		},
	);
});

describe('textAt (the Name Field)', () => {
	it('reads a field, a nested field in dot notation, and a field whose name holds a dot', () => {
		const json = {
			firstName: ' Ada ',
			customer: { name: 'Grace' },
			'last.name': 'Hopper',
			age: 36,
		};
		expect(textAt(json, 'firstName')).toBe('Ada');
		expect(textAt(json, 'customer.name')).toBe('Grace');
		expect(textAt(json, 'last.name')).toBe('Hopper');
		expect(textAt(json, 'age')).toBe('36');
	});

	it('is empty for a missing field, an object, null, an empty Name Field or no item', () => {
		const json = { customer: { name: 'Grace' }, nothing: null };
		expect(textAt(json, 'firstName')).toBe('');
		expect(textAt(json, 'customer')).toBe('');
		expect(textAt(json, 'nothing')).toBe('');
		expect(textAt(json, 'nothing.deeper')).toBe('');
		expect(textAt(json, ' ')).toBe('');
		expect(textAt(undefined, 'firstName')).toBe('');
	});
});

describe('deliverySummary (one item for a message)', () => {
	it('counts and names each group, in input order, with the three groups as text', () => {
		const summary = deliverySummary([
			{ name: 'Ada', received: 'yes' },
			{ name: 'Grace', received: 'unconfirmed' },
			{ name: 'Alan', received: 'no' },
			{ name: 'Margaret', received: 'no' },
		]);
		expect(summary).toEqual({
			total: 4,
			gotItCount: 1,
			gotIt: 'Ada',
			didNotGetItCount: 2,
			didNotGetIt: 'Alan, Margaret',
			unconfirmedCount: 1,
			unconfirmed: 'Grace',
			text: 'Got it (1): Ada\nDid not get it (2): Alan, Margaret\nUnconfirmed (1): Grace',
		});
	});

	it('an empty group is an empty cell and a zero count; no contacts is all zeros', () => {
		expect(deliverySummary([{ name: 'Ada', received: 'yes' }])).toMatchObject({
			didNotGetItCount: 0,
			didNotGetIt: '',
			text: 'Got it (1): Ada\nDid not get it (0)\nUnconfirmed (0)',
		});
		expect(deliverySummary([])).toMatchObject({ total: 0, gotItCount: 0, gotIt: '' });
	});

	it('names a contact whose status could not be read as such, among the unconfirmed', () => {
		const summary = deliverySummary([
			{ name: 'Ada', received: 'unconfirmed', notRead: true },
			{ name: 'Grace', received: 'unconfirmed' },
		]);
		expect(summary.unconfirmed).toBe('Ada (status not read), Grace');
		expect(summary.unconfirmedCount).toBe(2);
	});
});
