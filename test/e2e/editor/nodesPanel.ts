/* eslint-disable @typescript-eslint/no-explicit-any -- test code: the browser helpers are plain JS, untyped */
/**
 * What a user finds in n8n's nodes panel, in a real browser: headless Chromium (Debian's package)
 * driven by puppeteer-core against a real n8n (2.41.1) with the packed package installed. Each
 * word is typed into the panel's search box, and the Contact Center entry's place in the listed
 * results is read from the page. How n8n ranks them: docs/nodes-panel-search.md.
 * CONTACT_CENTER_PACKAGE_TARBALL installs another build of the package instead.
 */
import * as helpersModule from '../helpers';
import * as panelModule from '../nodes-panel';
import { signInForBlock } from './signedIn';

type Json = Record<string, any>;
const panel: Json = panelModule;
const { report }: Json = helpersModule;

/**
 * Registers this suite in a describe block of its own; `session` is the editor session
 * (nodes-panel.js startEditor) that test/e2e/editor.e2e.test.ts starts for its suites. The suite
 * signs in on a page of its own, in a fresh browser context.
 */
export function describeNodesPanel(session: () => Json): void {
	describe('the nodes panel', () => {
		const ENTRY = 'Contact Center';
		/**
		 * Every operation and endpoint, by the words an ops user types for it (the node's codex aliases
		 * carry them; docs/nodes-panel-search.md).
		 */
		const WORDS = [
			// the package, by what people call it
			'contact center',
			'call center',
			'customer service',
			'customer support',
			'support',
			'helpdesk',
			'omnichannel',
			// Send
			'sms',
			'send message',
			'send sms',
			'sms message',
			'bulk sms',
			'campaign',
			'text message',
			'send text',
			'whatsapp',
			'send whatsapp',
			'whatsapp template',
			'template message',
			'proactive message',
			'outbound message',
			'messaging',
			// Get Status, Get Failed Messages, Get Delivery Report
			'delivery status',
			'delivery report',
			'delivery receipt',
			'message status',
			'get status',
			'status',
			'failed messages',
			'failed message',
			'failed',
			'undelivered',
			// Get Metric, Get Metric Snapshot
			'metric',
			'metrics',
			'real-time',
			'snapshot',
			'get snapshot',
			'dashboard',
			'statistics',
			'stats',
			'analytics',
			'report',
			'reports',
			'kpi',
			'queue',
			'agents',
			'agent availability',
			'response time',
			'handle time',
			'wait time',
			// Respond to Lookup and the trigger's endpoints
			'crm',
			'lookup',
			'crm lookup',
			'customer lookup',
			'contact lookup',
			'caller lookup',
			'respond to lookup',
			'webhook',
			'callback',
			'write back',
			'writeback',
			'conversation',
			'notification',
			'notifications',
		];

		/**
		 * n8n's own nodes that "agent" finds ahead of any alias: Message an Agent and AI Agent by their
		 * alias or name plus popularity, Magento 2 by its name (x1.3) plus popularity
		 * (docs/nodes-panel-search.md).
		 */
		const N8N_NODES_MATCHING_AGENT = ['Message an Agent', 'AI Agent', 'Magento 2'];

		/** Words for what the package does that must find it at all: campaigns, SLAs, conversations. */
		const FOUND_WORDS = ['broadcast', 'reminder', 'sla', 'transcript'];

		let instance: Json;
		let page: Json;
		/** The owner's session for n8n's REST API. */
		let cookie: string;

		const log = (line: string) => report(`[e2e nodes panel] ${line}`);

		signInForBlock(session, (signedIn) => ({ instance, cookie, page } = signedIn));

		/** 1-based place of the Contact Center entry among the listed results, 0 when not listed. */
		const placeOf = (results: string[]) => results.indexOf(ENTRY) + 1;

		describe('"What triggers this workflow?" (the panel of a new workflow)', () => {
			beforeAll(async () => {
				await panel.openTriggerPanel(page, instance.baseUrl);
				expect(await panel.panelTitle(page)).toBe('What triggers this workflow?');
			}, 120_000);

			test.each(WORDS)('"%s" lists Contact Center among the first 3 results', async (word) => {
				const results: string[] = await panel.search(page, word);
				log(`"${word}": ${placeOf(results) || 'not listed'} (${results.slice(0, 6).join(', ')})`);
				expect({ word, firstThree: results.slice(0, 3) }).toEqual({
					word,
					firstThree: expect.arrayContaining([ENTRY]),
				});
			});

			test('"agent" lists Contact Center right after the n8n nodes that outscore any alias', async () => {
				const results: string[] = await panel.search(page, 'agent');
				log(`"agent": ${placeOf(results) || 'not listed'} (${results.slice(0, 6).join(', ')})`);
				expect(placeOf(results)).toBeGreaterThan(0);
				expect(N8N_NODES_MATCHING_AGENT).toEqual(
					expect.arrayContaining(results.slice(0, placeOf(results) - 1)),
				);
			});

			test.each(FOUND_WORDS)('"%s" lists Contact Center', async (word) => {
				const results: string[] = await panel.search(page, word);
				log(`"${word}": ${placeOf(results) || 'not listed'} (${results.slice(0, 6).join(', ')})`);
				expect({ word, listed: results.includes(ENTRY) }).toEqual({ word, listed: true });
			});

			test('the entry lists one trigger per endpoint: Lookup, Write Back, Notification', async () => {
				await panel.search(page, 'contact center');
				await panel.openEntry(page, ENTRY);
				const categories: Json[] = await panel.categorizedItems(page);
				const triggers = categories.find((c) => c.category.startsWith('Triggers'));
				expect(triggers?.items).toEqual([
					'On lookup request',
					'On conversation write back',
					'On notification',
				]);
			});
		});

		describe('each trigger entry adds a Contact Center Trigger on its endpoint', () => {
			test.each([
				['On lookup request', 'Lookup'],
				['On conversation write back', 'Write Back'],
				['On notification', 'Notification'],
			])('"%s" adds the trigger with Trigger On: %s', async (item, endpoint) => {
				await panel.openTriggerPanel(page, instance.baseUrl);
				await panel.search(page, 'contact center');
				await panel.openEntry(page, ENTRY);
				await panel.chooseItem(page, item);
				expect(await panel.parameterShown(page, 'endpoint')).toBe(endpoint);
				await panel.closeNodeSettings(page);
			});
		});

		describe('"What happens next?" (the panel of a workflow that has a trigger)', () => {
			beforeAll(async () => {
				await panel.openNextStepPanelOfNewWorkflow(
					page,
					instance,
					cookie,
					'Nodes panel: next step',
				);
				expect(await panel.panelTitle(page)).toBe('What happens next?');
			}, 120_000);

			test.each(WORDS)('"%s" lists Contact Center among the first 3 results', async (word) => {
				const results: string[] = await panel.search(page, word);
				log(
					`next step, "${word}": ${placeOf(results) || 'not listed'} (${results.slice(0, 6).join(', ')})`,
				);
				expect({ word, firstThree: results.slice(0, 3) }).toEqual({
					word,
					firstThree: expect.arrayContaining([ENTRY]),
				});
			});
		});
	});
}
