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

describe('withInputFields (Include Input Fields)', () => {
	it("puts the row's fields first, then the input item's others", () => {
		const merged = withInputFields(
			{ outcome: 'accepted', contact: '+31612345678' },
			{ firstName: 'Ada', phone: '+31612345678', customerId: 'CUST-1815' },
		);
		expect(Object.keys(merged)).toEqual(['outcome', 'contact', 'firstName', 'phone', 'customerId']);
		expect(merged.firstName).toBe('Ada');
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
