import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { NOT_YET_DELIVERED_NOTE } from '../../nodes/ContactCenter/helpers/deliveryNote';
import {
	describeError,
	runContactCenter,
	sendParameters,
	useSimulator,
} from './contactCenterFixture';

/** The send list of example 2, by the simulator's rules: DELIVERED, SENT, FAILED, DELIVERING_FAILED. */
const CONTACTS = [
	{ firstName: 'Ada', phone: '+15551234567', customerId: 'CUST-1815' },
	{ firstName: 'Grace', phone: '+15550000002', customerId: 'CUST-1906' },
	{ firstName: 'Alan', phone: '+15550000000', customerId: 'CUST-1912' },
	{ firstName: 'Margaret', phone: '+15550000001', customerId: 'CUST-1936' },
];

const report = (parameters: INodeParameters = {}): INodeParameters => ({
	resource: 'proactiveMessage',
	operation: 'getDeliveryReport',
	...parameters,
});

describe('Contact Center: Get Delivery Report', () => {
	const fixture = useSimulator();

	/** Send's output for `contacts`, settled: what the report gets after Send -> Wait. */
	async function sent(contacts: IDataObject[] = CONTACTS, continueOnFail = false) {
		const { json } = await runContactCenter(
			fixture.credentials,
			sendParameters({ contact: '={{ $json.phone }}', options: {} }),
			contacts,
			continueOnFail,
		);
		fixture.sim.settleMessages();
		fixture.sim.resetCounters();
		return json;
	}

	it("one flat row per contact from Send's output: received, status, reason, then the input's fields, then contact and correlationId", async () => {
		const input = await sent();
		const { json, items, error } = await runContactCenter(fixture.credentials, report(), input);
		expect(error).toBeUndefined();
		// Send's note says what each status means: the service accepting a message is not delivery.
		const expected = [
			['yes', 'DELIVERED', '', ''],
			[
				'unconfirmed',
				'SENT',
				'',
				'Accepted and sent, delivery not confirmed: no delivery report has come back yet.',
			],
			[
				'no',
				'FAILED',
				'Invalid phone number',
				'Accepted, then failed: the service could not send it (see reason).',
			],
			// The service gives no reason for DELIVERING_FAILED: an empty cell.
			[
				'no',
				'DELIVERING_FAILED',
				'',
				'Accepted and sent, but not delivered to the contact (see reason).',
			],
		];
		expect(input.map((row) => row.note)).toEqual(input.map(() => NOT_YET_DELIVERED_NOTE));
		expect(json).toEqual(
			expected.map(([received, status, reason, note], i) => ({
				received,
				status,
				reason,
				contact: CONTACTS[i].phone,
				correlationId: input[i].correlationId,
				...input[i],
				note,
			})),
		);
		expect(Object.keys(json[0]).slice(0, 5)).toEqual([
			'received',
			'status',
			'reason',
			'outcome',
			'firstName',
		]);
		expect(Object.keys(json[0]).slice(-2)).toEqual(['contact', 'correlationId']);
		expect(json.map((row) => [row.firstName, row.outcome])).toEqual(
			CONTACTS.map((contact) => [contact.firstName, 'accepted']),
		);
		expect(items.map((item) => item.pairedItem)).toEqual([0, 1, 2, 3].map((item) => ({ item })));
		// The counts of each message; the details only of the two that did not reach their contact.
		expect(
			fixture.sim.requests.map((r) => `${r.status} ${r.path.replace(/[0-9a-f-]{36}/, 'ID')}`),
		).toEqual([
			'200 /proactive-messaging/ID',
			'200 /proactive-messaging/ID',
			'200 /proactive-messaging/ID',
			'200 /proactive-messaging/ID/FAILED',
			'200 /proactive-messaging/ID',
			'404 /proactive-messaging/ID/DELIVERING_FAILED',
		]);
	});

	it('with Include Input Fields off, the rows carry their own fields only', async () => {
		const input = await sent(CONTACTS.slice(2, 3));
		const { json } = await runContactCenter(
			fixture.credentials,
			report({ options: { includeInputFields: false } }),
			input,
		);
		expect(json).toEqual([
			{
				received: 'no',
				status: 'FAILED',
				reason: 'Invalid phone number',
				contact: '+15550000000',
				correlationId: input[0].correlationId,
			},
		]);
	});

	it('Summary: one item with the count and the first names of each group, paired with every input item', async () => {
		const input = await sent();
		const { json, items, error } = await runContactCenter(
			fixture.credentials,
			report({ output: 'summary' }),
			input,
		);
		expect(error).toBeUndefined();
		expect(json).toHaveLength(1);
		expect(json[0]).toMatchObject({
			total: 4,
			gotIt: 'Ada',
			didNotGetIt: 'Alan, Margaret',
			unconfirmed: 'Grace',
			unconfirmedCount: 1,
		});
		expect(String(json[0].text).split('\n')).toEqual([
			'Got it (1): Ada',
			'Did not get it (2): Alan, Margaret',
			'Unconfirmed (1): Grace',
		]);
		expect(items[0].pairedItem).toEqual([0, 1, 2, 3].map((item) => ({ item })));
	});

	it('Summary: the Name Field names each contact, a nested one in dot notation; a contact without it is named by its Contact', async () => {
		const input = await sent([
			{ customer: { name: 'Ada Lovelace' }, phone: '+15551234567' },
			{ phone: '+15550000000' },
		]);
		const { json } = await runContactCenter(
			fixture.credentials,
			report({ output: 'summary', nameField: 'customer.name' }),
			input,
		);
		expect(json[0]).toMatchObject({ gotIt: 'Ada Lovelace', didNotGetIt: '+15550000000' });
	});

	it("a Send item not sent (Continue On Fail) did not get it, with Send's error as reason and no call for it", async () => {
		const input = await sent(
			[
				{ firstName: 'Ada', phone: '+15551234567' },
				{ firstName: 'Nobody', phone: '31612345678' },
			],
			true,
		);
		expect(input[1]).toMatchObject({ outcome: 'not sent', correlationId: '' });
		const { json, error } = await runContactCenter(fixture.credentials, report(), input);
		expect(error).toBeUndefined();
		expect(json[1]).toMatchObject({
			received: 'no',
			status: '',
			reason: input[1].error,
			contact: '31612345678',
			correlationId: '',
			firstName: 'Nobody',
		});
		expect(String(json[1].reason)).toMatch(/\+/);
		expect(fixture.sim.requests.map((r) => r.path)).toEqual([
			`/proactive-messaging/${String(input[0].correlationId)}`,
		]);
		const summary = await runContactCenter(
			fixture.credentials,
			report({ output: 'summary' }),
			input,
		);
		expect(summary.json[0]).toMatchObject({ gotIt: 'Ada', didNotGetIt: 'Nobody' });
	});

	it("an empty Correlation ID on an item that is not Send's is refused before any call", async () => {
		fixture.sim.resetCounters();
		const { error } = await runContactCenter(fixture.credentials, report(), [
			{ firstName: 'Ada', outcome: 'accepted' },
		]);
		expect(describeError(error).message).toBe("'Correlation ID' is empty");
		expect(fixture.sim.requests).toHaveLength(0);
	});

	it("an unknown correlation ID fails the node, quoting the service's words", async () => {
		const { error } = await runContactCenter(fixture.credentials, report({ output: 'summary' }), [
			{ correlationId: 'no-such-id', contact: '+15551234567' },
		]);
		expect(describeError(error).message).toBe(
			`The service found nothing for correlation ID 'no-such-id': "No proactive messages found for correlationId no-such-id"`,
		);
	});

	it('with Continue On Fail: one row per input item, a status not read is unconfirmed with the error; the summary names it so', async () => {
		const input = [
			...(await sent(CONTACTS.slice(0, 1))),
			{ firstName: 'Grace', contact: '+15550000002', correlationId: 'no-such-id' },
		];
		const rows = await runContactCenter(fixture.credentials, report(), input, true);
		expect(rows.error).toBeUndefined();
		expect(rows.json).toHaveLength(2);
		expect(rows.json[1]).toMatchObject({
			received: 'unconfirmed',
			status: '',
			reason: '',
			contact: '+15550000002',
			correlationId: 'no-such-id',
			error: expect.stringContaining("found nothing for correlation ID 'no-such-id'"),
			firstName: 'Grace',
		});
		expect(Object.keys(rows.json[1]).slice(0, 3)).toEqual(Object.keys(rows.json[0]).slice(0, 3));
		expect(Object.keys(rows.json[1]).slice(3, 5)).toEqual(['error', 'firstName']);
		expect(rows.items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);

		const summary = await runContactCenter(
			fixture.credentials,
			report({ output: 'summary' }),
			input,
			true,
		);
		expect(summary.error).toBeUndefined();
		expect(summary.json).toEqual([
			expect.objectContaining({
				total: 2,
				gotIt: 'Ada',
				unconfirmedCount: 1,
				unconfirmed: 'Grace (status not read)',
			}),
		]);
	});

	// Not an empty cell: that would read as "the service gave no reason", as in Get Failed.
	it('a reason that cannot be read keeps the row (the status was read) and says so and why in the cell, with one warning in the run', async () => {
		const input = await sent(CONTACTS.slice(2, 3));
		fixture.sim.injectFault({
			method: 'GET',
			path: `/proactive-messaging/${String(input[0].correlationId)}/FAILED`,
			response: { status: 500, body: { errors: ['Internal error'] } },
		});
		const { json, error, hints } = await runContactCenter(fixture.credentials, report(), input);
		expect(error).toBeUndefined();
		expect(json[0]).toMatchObject({
			received: 'no',
			status: 'FAILED',
			reason:
				"The service's details could not be read (HTTP 500: Internal error); run Get Failed again later for the reason",
		});
		expect(hints).toEqual([
			expect.objectContaining({
				type: 'warning',
				message: expect.stringMatching(/could not be read \(1 read, the last: HTTP 500/),
			}),
		]);
	});
});
