/**
 * Send Once while n8n's public API stumbles: the Contact Center node through n8n-core against the
 * service's simulator, the record in the data table API stand-in with faults. Every contact is
 * messaged once over a run and a rerun, and every item says truthfully what happened.
 */
import type { IDataObject } from 'n8n-workflow';

import { resetProcessState, setRecordTiming } from '../harness/processState';
import { runContactCenter, sendParameters } from './contactCenterFixture';
import {
	FAULT_PATTERNS,
	RECORD_TABLE,
	campaignContacts,
	useRecordApi,
	useSimulatorBeside,
} from './recordFaults';

const fixture = useRecordApi();
const service = useSimulatorBeside(fixture);
const contactsOf = campaignContacts('+3161');

async function sendTo(contacts: string[]) {
	return await runContactCenter(
		fixture.credentials,
		sendParameters({
			contact: '={{ $json.phone }}',
			sendOnce: 'message', sendOnceStore: 'dataTable',
			options: { rateLimitMessages: 1000, rateLimitPeriodSeconds: 1 },
		}),
		contacts.map((phone) => ({ phone })),
		true,
	);
}

const messagesTo = (contact: string) =>
	service.sim.messages.filter((m) => m.body.contact === contact);

/** Each item's outcome checked against what the simulator received before and during the run. */
function untrueOutcomes(items: IDataObject[], contacts: string[], sentBefore: Set<string>) {
	return items.flatMap((item, i) => {
		const contact = contacts[i];
		const received = messagesTo(contact).length > 0;
		const truthful =
			(item.outcome === 'accepted' && received && !sentBefore.has(contact)) ||
			(item.outcome === 'already accepted' && sentBefore.has(contact)) ||
			(item.outcome === 'not sent' && !received) ||
			(item.outcome === 'may have been sent' && received);
		return truthful ? [] : [`${contact}: ${String(item.outcome)} (${String(item.error ?? '')})`];
	});
}

describe('Send Once with n8n API faults in the record calls', () => {
	test.each(FAULT_PATTERNS.filter((pattern) => pattern.rule !== undefined))(
		'$name: a campaign of 12, then run again with the API healthy: every contact messaged exactly once, every item truthful',
		async ({ rule }) => {
			const contacts = contactsOf(12);
			fixture.api.setFaults(rule);
			const first = await sendTo(contacts);
			expect(untrueOutcomes(first.json, contacts, new Set())).toEqual([]);
			fixture.api.setFaults(undefined);
			const sentBefore = new Set(contacts.filter((contact) => messagesTo(contact).length > 0));
			const again = await sendTo(contacts);
			expect(untrueOutcomes(again.json, contacts, sentBefore)).toEqual([]);
			expect(contacts.filter((contact) => messagesTo(contact).length !== 1)).toEqual([]);
			expect(first.json.filter((item) => item.outcome === 'may have been sent')).toEqual([]);
		},
		60_000,
	);

	test("a rate limit that outlasts the retries: items 'not sent', saying n8n's API rate-limited the record (not the key); the rerun sends every one of them", async () => {
		setRecordTiming({ retryBudgetMs: 1200 });
		const contacts = contactsOf(3);
		fixture.api.setFaults(() => ({ status: 429, retryAfterSeconds: 1 }));
		const first = await sendTo(contacts);
		expect(first.json.map((item) => item.outcome)).toEqual(['not sent', 'not sent', 'not sent']);
		expect(String(first.json[0].error)).toContain("n8n's API rate-limited the record's read calls");
		const description = String(first.json[0].errorDescription);
		expect(description).toContain('The API key is fine');
		expect(description).toContain('The message was not sent.');
		expect(contacts.filter((contact) => messagesTo(contact).length > 0)).toEqual([]);
		fixture.api.setFaults(undefined);
		const again = await sendTo(contacts);
		expect(again.json.map((item) => item.outcome)).toEqual(['accepted', 'accepted', 'accepted']);
	}, 30_000);

	test('a claim whose read fails after its row was inserted leaves no claim behind: the rerun sends, nothing says "may have been sent"', async () => {
		setRecordTiming({ retryBudgetMs: 600 });
		const contacts = contactsOf(2);
		// Send Once's first read passes; from the claim's insert on, every read fails.
		let inserted = false;
		fixture.api.setFaults(({ operation }) => {
			if (operation === 'insertRows') inserted = true;
			return operation === 'getRows' && inserted ? { status: 500 } : undefined;
		});
		const first = await sendTo(contacts);
		expect(first.json.map((item) => item.outcome)).toEqual(['not sent', 'not sent']);
		expect(String(first.json[0].error)).toContain("n8n's API did not answer");
		fixture.api.setFaults(undefined);
		expect(
			fixture.api.rowsOf(RECORD_TABLE, fixture.apiKey).filter((row) => row.state === 'running'),
		).toEqual([]);
		const again = await sendTo(contacts);
		expect(again.json.map((item) => item.outcome)).toEqual(['accepted', 'accepted']);
	}, 30_000);

	test("the record credential switched to another user's key: the next run uses that user's table, without a restart", async () => {
		const [before, after] = contactsOf(2);
		expect((await sendTo([before])).json[0].outcome).toBe('accepted');
		const other = fixture.api.addUser('teammate');
		fixture.credentials.set('contactCenterRecordApi', {
			baseUrl: fixture.api.baseUrl,
			apiKey: other.apiKey,
			dataTableName: RECORD_TABLE,
		});
		try {
			const result = await sendTo([after]);
			expect(result.json[0].outcome).toBe('accepted');
			expect(fixture.api.rowsOf(RECORD_TABLE, other.apiKey).map((row) => row.state)).toEqual([
				'done',
			]);
			expect(fixture.api.calls.filter((call) => call.status === 403)).toEqual([]);
		} finally {
			fixture.credentials.set('contactCenterRecordApi', {
				baseUrl: fixture.api.baseUrl,
				apiKey: fixture.apiKey,
				dataTableName: RECORD_TABLE,
			});
		}
	});
});

describe("Send Once at n8n's data table storage warning level", () => {
	test("a run warns under its output, naming the used and the maximum size, from 80 % of the record credential's Storage Limit; it still sends", async () => {
		const record = fixture.credentials.get('contactCenterRecordApi') ?? {};
		// The stand-in's tables take 8 KB each and more per row: a 1 KB limit is past 80 %.
		fixture.credentials.set('contactCenterRecordApi', {
			...record,
			customStorageLimit: true,
			storageLimitMb: 0.001,
		});
		// The record's table exists (an earlier run), and the sizes are read afresh.
		await sendTo(contactsOf(1));
		resetProcessState();
		try {
			const contacts = contactsOf(2);
			const { json, hints } = await sendTo(contacts);
			expect(json.map((item) => item.outcome)).toEqual(['accepted', 'accepted']);
			expect(hints).toEqual([
				expect.objectContaining({
					type: 'warning',
					message: expect.stringMatching(
						/^n8n's data table storage is nearly full: .* of its 0\.0 MB limit used/,
					),
				}),
			]);
		} finally {
			fixture.credentials.set('contactCenterRecordApi', record);
		}
	});
});
