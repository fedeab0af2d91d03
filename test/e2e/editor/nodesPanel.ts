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
import { FOUND_WORDS, N8N_NODES_MATCHING_AGENT, WORDS } from './panelWords';
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
