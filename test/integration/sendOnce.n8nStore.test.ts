/**
 * Send Once at its defaults: on, recorded in n8n's own deduplication store (no credential). The
 * Contact Center node through n8n-core's real helpers (checkProcessedAndRecord) against the
 * simulator; the store is the harness's stand-in of n8n's processed_data, with the same hashing,
 * entries and whole-value writes.
 */
import { processedData } from '../harness/n8n-services';
import { runContactCenter, useSimulator } from './contactCenterFixture';

const service = useSimulator({ settleAfterMs: 0, sendRateLimit: { limit: 1000, windowMs: 1000 } });

jest.setTimeout(30_000);

const NODE_STORE = 'harness-workflow-id|n:harness-node-id';
/** Each test messages numbers of its own: the simulator keeps every message of the file. */
let numbersFrom = 0;
const contacts = (n: number, from = 0) =>
	Array.from({ length: n }, (_, k) => ({
		firstName: `Contact ${from + k}`,
		phone: `+316${String(numbersFrom + from + k).padStart(8, '0')}`,
	}));

/** A Send node as the editor adds it: no Send Once field set, only the OAuth2 credential. */
const atDefaults = {
	resource: 'proactiveMessage',
	operation: 'send',
	medium: 'TWILIO',
	channel: 'Support SMS',
	contact: '={{ $json.phone }}',
	text: 'Your appointment is tomorrow',
	options: { rateLimitMessages: 200, rateLimitPeriodSeconds: 1 },
};

const send = async (items: Array<Record<string, string>>, parameters = atDefaults) =>
	await runContactCenter(service.credentials, parameters, items);

const timesMessaged = (phone: string) =>
	service.sim.messages.filter((m) => m.body.contact === phone).length;

beforeEach(() => {
	processedData.reset();
	numbersFrom += 1000;
});

test('a Send node at its defaults sends on its first run and messages nobody twice when run again', async () => {
	const list = contacts(5);
	const first = await send(list);
	expect(first.error).toBeUndefined();
	expect(first.json.map((row) => row.outcome)).toEqual(list.map(() => 'accepted'));

	const again = await send(list);
	expect(again.error).toBeUndefined();
	expect(again.json.map((row) => [row.firstName, row.outcome])).toEqual(
		list.map((c) => [c.firstName, 'already accepted']),
	);
	expect(again.json[0].note).toMatch(/^Nothing sent again/);
	expect(list.map((c) => timesMessaged(c.phone))).toEqual(list.map(() => 1));

	// A longer list: only the new contacts are messaged.
	const longer = await send(contacts(8));
	expect(longer.json.map((row) => row.outcome)).toEqual([
		...list.map(() => 'already accepted'),
		'accepted',
		'accepted',
		'accepted',
	]);
	expect(contacts(8).map((c) => timesMessaged(c.phone))).toEqual(contacts(8).map(() => 1));
});

describe.each([
	{ rate: 200, count: 40, most: 5, calls: 9 },
	{ rate: 20, count: 12, most: 3, calls: 5 },
	{ rate: 5, count: 5, most: 1, calls: 6 },
])('at $rate per second', ({ rate, count, most, calls }) => {
	test(`at no moment does the store hold more than ${most} claim(s) without a sent mark (what a kill -9 leaves)`, async () => {
		const plain = new Set<string>();
		const original = processedData.checkProcessedAndRecord;
		let worst = 0;
		processedData.checkProcessedAndRecord = async function (items, ...rest) {
			const result = await original.call(this, items, ...rest);
			for (const item of items as string[]) plain.add(item);
			const claims = [...plain].filter((mark) => mark.startsWith('claim|'));
			const unsent = claims.filter((mark) => !plain.has(mark.replace(/^claim\|/, 'sent|')));
			// Each message has two claim marks (this period and the next).
			worst = Math.max(worst, unsent.length / 2);
			return result;
		};
		try {
			const run = await send(contacts(count), {
				...atDefaults,
				options: { rateLimitMessages: rate, rateLimitPeriodSeconds: 1 },
			});
			expect(run.json.every((row) => row.outcome === 'accepted')).toBe(true);
		} finally {
			processedData.checkProcessedAndRecord = original;
		}
		expect(worst).toBeGreaterThanOrEqual(1);
		expect(worst).toBeLessThanOrEqual(most);
		// One call for the messages due within 150 ms (one at 5/s, three at 20/s, five at most), the
		// sent marks going with the next claim, and one at the end.
		expect(processedData.calls.checkProcessedAndRecord).toBe(calls);
		expect(processedData.calls.removeProcessed).toBe(0);
	});
});

test('a rerun skips the messages sent before in a few store calls, with no send slot each; a new contact among them is sent', async () => {
	const list = contacts(300);
	await send(list.slice(0, 200));
	processedData.calls.checkProcessedAndRecord = 0;
	const started = Date.now();
	const rerun = await send(list);
	const calls = processedData.calls.checkProcessedAndRecord;
	expect(rerun.json.filter((row) => row.outcome === 'already accepted')).toHaveLength(200);
	expect(rerun.json.filter((row) => row.outcome === 'accepted')).toHaveLength(100);
	// 200 skipped in batches of 1, 2, 4, ... 128 (two calls each), then 100 sends (one call for five).
	expect(calls).toBeLessThanOrEqual(2 * 8 + 20 + 3);
	expect(list.map((c) => timesMessaged(c.phone))).toEqual(list.map(() => 1));
	// 100 sends at 200/s take 0.5 s; 200 skips waited for no send slot.
	expect(Date.now() - started).toBeLessThan(5000);
});

test('after a crash: the message whose send was under way is "may have been sent", nobody is messaged twice, the rest is sent', async () => {
	const list = contacts(6);
	await send(list.slice(0, 4));
	// What a kill -9 during the fourth send leaves: its claim without its sent mark.
	const lastClaim = [...(processedData.rows.get(NODE_STORE)?.data ?? [])];
	processedData.rows.get(NODE_STORE)!.data = lastClaim.slice(0, -2);
	const rerun = await send(list);
	expect(rerun.error).toBeUndefined();
	expect(rerun.json.map((row) => row.outcome)).toEqual([
		'already accepted',
		'already accepted',
		'already accepted',
		'may have been sent',
		'accepted',
		'accepted',
	]);
	expect(rerun.json[3].note).toContain('The service may have it');
	expect(list.map((c) => timesMessaged(c.phone))).toEqual([1, 1, 1, 1, 1, 1]);
	// It stays "may have been sent" on the next run (its sent mark is not made up).
	const third = await send(list);
	expect(third.json[3].outcome).toBe('may have been sent');
});

test('two runs of the workflow at the same moment in one process message each contact once', async () => {
	const list = contacts(12);
	const [a, b] = await Promise.all([send(list), send(list)]);
	const sentBy = (run: typeof a) => run.json.filter((row) => row.outcome === 'accepted').length;
	expect(sentBy(a) + sentBy(b)).toBe(12);
	expect(list.map((c) => timesMessaged(c.phone))).toEqual(list.map(() => 1));
});

test('a send that cannot have reached the service frees its key: the rerun sends it', async () => {
	const { createCredentialStore } = await import('../harness');
	const unreachable = createCredentialStore({
		contactCenterOAuth2Api: { baseUrl: 'http://127.0.0.1:9', clientId: 'c', clientSecret: 's' },
	});
	const list = contacts(1);
	const failed = await runContactCenter(unreachable, atDefaults, list, true);
	expect(failed.json[0].outcome).toBe('not sent');
	expect(processedData.calls.checkProcessedAndRecord).toBe(1);
	expect(processedData.calls.removeProcessed).toBe(1);
	const rerun = await send(list);
	expect(rerun.json[0].outcome).toBe('accepted');
	expect(timesMessaged(list[0].phone)).toBe(1);
});

test('Send Once Off records nothing; the store refusing a claim fails the item as not sent, naming the cause', async () => {
	const off = await send(contacts(2), { ...atDefaults, sendOnce: 'off' } as typeof atDefaults);
	expect(off.json.map((row) => row.outcome)).toEqual(['accepted', 'accepted']);
	expect(processedData.calls.checkProcessedAndRecord).toBe(0);
	expect(processedData.calls.getProcessedDataCount).toBe(0);

	processedData.failWith = new Error('SQLITE_BUSY: database is locked');
	const refused = await send(contacts(1, 50));
	expect(refused.error?.message).toBe(
		"Send Once could not use n8n's store: SQLITE_BUSY: database is locked",
	);
	expect(timesMessaged(contacts(1, 50)[0].phone)).toBe(0);
});

test('a run whose workflow has no ID says to save it', async () => {
	const { runNode } = await import('../harness');
	const { ContactCenter } = await import('../../nodes/ContactCenter/ContactCenter.node');
	const run = await runNode({
		nodeType: new ContactCenter(),
		parameters: atDefaults,
		credentials: service.credentials,
		workflowId: '',
		inputItems: contacts(1, 60).map((json) => ({ json })),
	});
	expect(run.error?.message).toBe('Send Once cannot record: the workflow has no ID');
	expect(timesMessaged(contacts(1, 60)[0].phone)).toBe(0);
});
