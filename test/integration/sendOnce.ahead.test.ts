/**
 * Send Once at a high rate: the record's checks and claims of the next messages go out ahead of
 * their sends, gathered. The Contact Center node through n8n-core against the service's simulator,
 * the record in the data table API stand-in.
 */
import type { IDataObject } from 'n8n-workflow';

import { runContactCenter, sendParameters } from './contactCenterFixture';
import { recordRows, campaignContacts, useRecordApi, useSimulatorBeside } from './recordFaults';

const fixture = useRecordApi();
const service = useSimulatorBeside(fixture, {
	settleAfterMs: 0,
	sendRateLimit: { limit: 1000, windowMs: 1000 },
});
const contactsOf = campaignContacts('+3164');

// Each test sends at 20 or 5 per second: seconds of pacing by design, beyond jest's 5 s on a busy machine.
jest.setTimeout(30_000);

/** 20 sends per second: the messages due within 200 ms of each other are checked and claimed together. */
async function sendTo(phones: string[], continueOnFail = true) {
	return await runContactCenter(
		fixture.credentials,
		sendParameters({
			contact: '={{ $json.phone }}',
			sendOnce: 'message', sendOnceStore: 'dataTable',
			options: { rateLimitMessages: 20, rateLimitPeriodSeconds: 1 },
		}),
		phones.map((phone) => ({ phone })),
		continueOnFail,
	);
}

const timesMessaged = (contact: string) =>
	service.sim.messages.filter((m) => m.body.contact === contact).length;
const runningRows = () => recordRows(fixture.api).filter((row) => row.state === 'running');
const insertsSince = (from: number) =>
	fixture.api.calls
		.slice(from)
		.filter((call) => call.operation === 'insertRows')
		.map((call) => (call.body as { data: IDataObject[] }).data);

test('a campaign at 20 per second: every contact once, claims gathered in inserts of several rows, no claim left', async () => {
	const contacts = contactsOf(40);
	const callsBefore = fixture.api.calls.length;
	const { json, error } = await sendTo(contacts);
	expect(error).toBeUndefined();
	expect(json.map((item) => item.outcome)).toEqual(contacts.map(() => 'accepted'));
	expect(contacts.filter((contact) => timesMessaged(contact) !== 1)).toEqual([]);
	const claimInserts = insertsSince(callsBefore).filter((rows) =>
		rows.every((row) => row.state === 'running'),
	);
	expect(Math.max(...claimInserts.map((rows) => rows.length))).toBeGreaterThan(1);
	expect(claimInserts.flat()).toHaveLength(contacts.length);
	expect(runningRows()).toEqual([]);

	const rerun = await sendTo(contacts);
	expect(rerun.json.map((item) => item.outcome)).toEqual(contacts.map(() => 'already accepted'));
	expect(contacts.filter((contact) => timesMessaged(contact) !== 1)).toEqual([]);
});

test('a run stopped by a failed item leaves no claim on the items after it: the rerun sends them', async () => {
	const contacts = contactsOf(30);
	const { error } = await sendTo(
		contacts.map((contact, i) => (i === 10 ? '' : contact)),
		false,
	);
	expect(error?.message).toContain("'Contact' is empty");
	expect(contacts.map(timesMessaged)).toEqual(contacts.map((_, i) => (i < 10 ? 1 : 0)));
	expect(runningRows()).toEqual([]);

	const { json } = await sendTo(contacts);
	expect(json.map((item) => item.outcome)).toEqual(
		contacts.map((_, i) => (i < 10 ? 'already accepted' : 'accepted')),
	);
	expect(contacts.filter((contact) => timesMessaged(contact) !== 1)).toEqual([]);
});

test('the same message twice in one run, among others: sent once, the second item says already sent', async () => {
	const contacts = contactsOf(12);
	// Items 1 to 4 are due within 200 ms of each other: read and claimed together.
	const phones = [...contacts.slice(0, 3), contacts[1], ...contacts.slice(3)];
	const { json } = await sendTo(phones);
	expect(json.map((item) => item.outcome)).toEqual(
		phones.map((_, i) => (i === 3 ? 'already accepted' : 'accepted')),
	);
	expect(json[3].correlationId).toBe(json[1].correlationId);
	expect(contacts.filter((contact) => timesMessaged(contact) !== 1)).toEqual([]);
});

test('at 5 per second, even with a slow record, no key is claimed before the message ahead of it was answered and recorded done', async () => {
	const contacts = contactsOf(6);
	// A claim (insert, 50 ms, read) then takes longer than the 200 ms between two sends.
	fixture.api.slow(80);
	const callsBefore = fixture.api.calls.length;
	const { json } = await runContactCenter(
		fixture.credentials,
		sendParameters({
			contact: '={{ $json.phone }}',
			sendOnce: 'message', sendOnceStore: 'dataTable',
			options: { rateLimitMessages: 5, rateLimitPeriodSeconds: 1 },
		}),
		contacts.map((phone) => ({ phone })),
		true,
	);
	expect(json.map((item) => item.outcome)).toEqual(contacts.map(() => 'accepted'));
	const claimedAt = (contact: string) =>
		fixture.api.calls
			.slice(callsBefore)
			.filter((call) => call.operation === 'insertRows')
			.find((call) =>
				(call.body as { data: IDataObject[] }).data.some(
					(row) => row.state === 'running' && String(row.recordKey).includes(`|${contact}|`),
				),
			)?.at;
	const answeredAt = (contact: string) =>
		service.sim.requests.find(
			(r) =>
				r.method === 'POST' && r.status === 200 && (r.body as IDataObject)?.contact === contact,
		)?.at;
	const recordedAt = (contact: string) =>
		fixture.api.calls
			.slice(callsBefore)
			.find(
				(call) =>
					call.operation === 'insertRows' &&
					(call.body as { data: IDataObject[] }).data.some(
						(row) => row.state === 'done' && String(row.recordKey).includes(`|${contact}|`),
					),
			)?.at;
	for (let i = 1; i < contacts.length; i++) {
		expect(claimedAt(contacts[i])).toBeGreaterThanOrEqual(answeredAt(contacts[i - 1]) ?? Infinity);
		// So a crash leaves at most one claim: the message before was recorded done first.
		expect(claimedAt(contacts[i])).toBeGreaterThanOrEqual(recordedAt(contacts[i - 1]) ?? Infinity);
	}
});
