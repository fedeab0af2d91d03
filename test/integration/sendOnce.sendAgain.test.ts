/**
 * Send Once's Send Again To: a rerun sends again, once, to the contacts whose earlier message
 * FAILED or was not delivered, and to nobody else. The Contact Center node through n8n-core
 * against the service's simulator, the record in the data table API stand-in.
 */
import { ALREADY_SENT_NOTE } from '../../nodes/ContactCenter/actions/proactiveMessage/send/outcome';
import { runContactCenter, sendParameters } from './contactCenterFixture';
import { useRecordApi, useSimulatorBeside } from './recordFaults';

const fixture = useRecordApi();
const service = useSimulatorBeside(fixture, {
	settleAfterMs: 0,
	sendRateLimit: { limit: 1000, windowMs: 1000 },
});

jest.setTimeout(30_000);

/** In the simulator 0000 fails, 0001 is not delivered, 0002 stays SENT, others are DELIVERED. */
const contacts = [
	{ firstName: 'Ada', phone: '+31655555678' },
	{ firstName: 'Grace', phone: '+31655550002' },
	{ firstName: 'Alan', phone: '+31655550000' },
	{ firstName: 'Margaret', phone: '+31655550001' },
];

async function send(sendAgainTo: string) {
	const run = await runContactCenter(
		fixture.credentials,
		sendParameters({
			contact: '={{ $json.phone }}',
			sendOnce: 'message', sendOnceStore: 'dataTable',
			sendAgainTo,
			options: { rateLimitMessages: 100, rateLimitPeriodSeconds: 1 },
		}),
		contacts,
	);
	expect(run.error).toBeUndefined();
	service.sim.settleMessages();
	return run.json;
}

const timesMessaged = (phone: string) =>
	service.sim.messages.filter((m) => m.body.contact === phone).length;

test('a rerun with Send Again To Nobody sends nothing; with Contacts Whose Message Failed only to the failed ones, once per failure', async () => {
	const first = await send('nobody');
	expect(first.map((row) => [row.firstName, row.outcome])).toEqual([
		['Ada', 'accepted'],
		['Grace', 'accepted'],
		['Alan', 'accepted'],
		['Margaret', 'accepted'],
	]);

	const nobody = await send('nobody');
	expect(nobody.map((row) => row.outcome)).toEqual(contacts.map(() => 'already accepted'));
	expect(nobody.map((row) => row.note)).toEqual(contacts.map(() => ALREADY_SENT_NOTE));
	expect(contacts.map((c) => timesMessaged(c.phone))).toEqual([1, 1, 1, 1]);

	const again = await send('failed');
	expect(again.map((row) => [row.firstName, row.outcome])).toEqual([
		['Ada', 'already accepted'],
		// SENT: unconfirmed, it may still be delivered: not sent again.
		['Grace', 'already accepted'],
		['Alan', 'accepted'],
		['Margaret', 'accepted'],
	]);
	expect(again[2].note).toContain('FAILED');
	expect(again[3].note).toContain('DELIVERING_FAILED');
	expect(again[0]).toMatchObject({
		correlationId: first[0].correlationId,
		sentAt: first[0].sentAt,
	});
	expect(again[2].correlationId).not.toBe(first[2].correlationId);
	expect(contacts.map((c) => timesMessaged(c.phone))).toEqual([1, 1, 2, 2]);

	// The messages sent again failed too: the next rerun sends them once more, and only them.
	const third = await send('failed');
	expect(third.map((row) => row.outcome)).toEqual([
		'already accepted',
		'already accepted',
		'accepted',
		'accepted',
	]);
	expect(contacts.map((c) => timesMessaged(c.phone))).toEqual([1, 1, 3, 3]);
});

test('the status of the earlier message cannot be read: not sent again, the note says why', async () => {
	const phone = '+31655560000';
	const run = async () =>
		await runContactCenter(
			fixture.credentials,
			sendParameters({ contact: phone, sendOnce: 'message', sendOnceStore: 'dataTable', sendAgainTo: 'failed' }),
		);
	const first = await run();
	service.sim.settleMessages();
	service.sim.injectFault({
		method: 'GET',
		path: `/proactive-messaging/${String(first.json[0].correlationId)}`,
		response: { status: 503, body: { error: 'down' } },
		times: 100,
	});
	const again = await run();
	expect(again.json[0]).toMatchObject({ outcome: 'already accepted' });
	expect(String(again.json[0].note)).toContain('could not be read');
	expect(timesMessaged(phone)).toBe(1);
});
