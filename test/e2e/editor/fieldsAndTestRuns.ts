/* eslint-disable @typescript-eslint/no-explicit-any -- test code: the browser helpers are plain JS, untyped */
/**
 * What a user sees in a real browser (headless Chromium through puppeteer-core, as
 * editor/nodesPanel.ts) against a real n8n (2.41.1) with the packed package: Metric -> Get's
 * Timezone and Medium lists, the WhatsApp template's Language and body variable titles, the
 * signing secret dialog's notice and test, a lookup's test run from the trigger's panel to the
 * line under its output, and each endpoint's test run with a signed sample call.
 */
import { sleep } from 'n8n-workflow';

import * as runtimeModule from '../../../scripts/lib/n8n-runtime';
import * as simulatorModule from '../../simulator';
import * as dialogModule from '../credential-dialog';
import * as helpersModule from '../helpers';
import * as textsModule from '../panel-texts';
import { saveCredential, saveRecordCredential } from './credentials';
import { signInForBlock } from './signedIn';

type Json = Record<string, any>;
const rt: Json = runtimeModule;
const sim: Json = simulatorModule;
const dialog: Json = dialogModule;
const { report }: Json = helpersModule;
const texts: Json = textsModule;

const ACTION = 'n8n-nodes-contact-center.contactCenter';
const TRIGGER = 'n8n-nodes-contact-center.contactCenterTrigger';

/**
 * Registers this suite in a describe block of its own; `session` is the editor session
 * (nodes-panel.js startEditor) that test/e2e/editor.e2e.test.ts starts for its suites.
 */
export function describeFieldsAndTestRuns(session: () => Json): void {
	describe('fields and test runs', () => {
		let instance: Json;
		let page: Json;
		let cookie: string;

		const log = (line: string) => report(`[e2e fields] ${line}`);

		signInForBlock(session, (signedIn) => ({ instance, cookie, page } = signedIn));

		/** Saves a workflow of `nodes` (n8n's REST API) and opens `nodeId`'s settings in the editor. */
		async function openNodeOfNewWorkflow(name: string, nodes: Json[], nodeId: string) {
			const created = await rt.restCall(instance, 'POST', '/workflows', {
				cookie,
				body: { name, nodes, connections: {} },
			});
			expect(created.status).toBe(200);
			const id = created.json.data.id;
			await page.goto(`${instance.baseUrl}/workflow/${id}/${nodeId}`, {
				waitUntil: 'networkidle2',
			});
			await page.waitForSelector('[data-test-id="ndv"]', { visible: true });
			await sleep(1000);
			return id;
		}

		/** The visible text of the open node settings. */
		const ndvText = async () =>
			await page.$eval('[data-test-id="ndv"]', (el: any) => el.innerText as string);

		const shown = async (name: string) =>
			await page.$eval(
				`[data-test-id="parameter-input-${name}"] input`,
				(input: any) => input.value as string,
			);

		test('Metric -> Get grouped: Timezone is a list showing Workflow Time Zone by default; Medium lists names, not codes', async () => {
			await openNodeOfNewWorkflow(
				'Fields: metric',
				[
					{
						id: 'metric',
						name: 'Contact Center',
						type: ACTION,
						typeVersion: 1,
						position: [0, 0],
						parameters: {
							resource: 'metric',
							operation: 'get',
							metric: 'inboundMessageVolume',
							filters: { mediumId: '' },
							grouping: { groupByInterval: 'hour', timezone: '' },
						},
					},
				],
				'metric',
			);
			expect(await shown('timezone')).toBe('Workflow Time Zone');
			const zones: string[] = await dialog.parameterOptionsFor(page, 'timezone', 'New_York');
			await page.keyboard.press('Escape');
			log(`Timezone options for "New_York": ${JSON.stringify(zones)}`);
			expect(zones).toContain('America/New_York');
			expect(await shown('mediumId')).toBe('All Connected Mediums');
			const mediums: string[] = await dialog.parameterOptionsFor(page, 'mediumId', '');
			await page.keyboard.press('Escape');
			log(`Medium options: ${JSON.stringify(mediums)}`);
			// Each option: its name, then its description on the next line.
			const names = mediums.map((option) => option.split('\n')[0].trim());
			expect(names).toEqual(
				expect.arrayContaining(['Facebook Messenger', 'X (Twitter)', 'Email via Mailgun']),
			);
			expect(mediums).toContain('Facebook Messenger\nSent as mediumId fb');
			for (const code of ['fb', 'twit', 'rtm', 'mailgun']) expect(names).not.toContain(code);
		});

		/** The options the open node's "Add Grouping" list offers now. */
		async function addGroupingOptions() {
			const add = await page.waitForSelector('input[placeholder="Add Grouping"]', {
				visible: true,
			});
			await add.click();
			await sleep(600);
			const offered: string[] = await page.$$eval('li.el-select-dropdown__item', (items: any[]) =>
				items
					.filter((item) => item.getClientRects().length > 0)
					.map((item) => item.innerText.trim()),
			);
			await page.keyboard.press('Escape');
			await sleep(600);
			return offered;
		}

		const shows = async (name: string) =>
			(await page.$(`[data-test-id="parameter-input-${name}"]`)) !== null;

		test('Metric -> Get: another volume metric keeps Grouping; a metric without grouping clears it; Timezone is offered once Group By Interval is added, which says where the zone is set', async () => {
			await openNodeOfNewWorkflow(
				'Fields: metric switch',
				[
					{
						id: 'metric',
						name: 'Contact Center',
						type: ACTION,
						typeVersion: 1,
						position: [0, 0],
						parameters: {
							resource: 'metric',
							operation: 'get',
							metric: 'inboundMessageVolume',
							grouping: { groupByInterval: 'day', timezone: 'America/New_York' },
						},
					},
				],
				'metric',
			);
			await dialog.chooseParameterOption(page, 'metric', 'Outbound Message Volume');
			expect(await shown('metric')).toBe('Outbound Message Volume');
			expect(await shown('groupByInterval')).toBe('Day');
			expect(await shown('timezone')).toBe('America/New_York');
			const text: string = await ndvText();
			expect(text).toContain(
				"Intervals start in the workflow's time zone (Workflow settings -> Timezone) unless you add a Timezone",
			);
			expect(text).toContain('Each output item names the zone used in its timezone column');
			const zones: Json[] = await texts.optionDescriptionLines(page, 'timezone');
			expect(zones.find((zone) => zone.name === 'Workflow Time Zone')).toEqual({
				name: 'Workflow Time Zone',
				description: "Set in Workflow settings -> Timezone, else n8n's default",
				lines: 1,
				cut: false,
			});

			// n8n's editor keeps no field the new values hide (getNodeParameters), in any node.
			await dialog.chooseParameterOption(page, 'metric', 'First Response Time');
			expect(await shows('groupByInterval')).toBe(false);
			await dialog.chooseParameterOption(page, 'metric', 'Inbound Message Volume');
			expect(await shows('groupByInterval')).toBe(false);
			expect(await shows('timezone')).toBe(false);

			expect(await addGroupingOptions()).toEqual(['Group By Interval']);
			const add = await page.waitForSelector('input[placeholder="Add Grouping"]', {
				visible: true,
			});
			await add.click();
			await sleep(600);
			const [groupBy] = await page.$$(
				'xpath/.//li[contains(@class,"el-select-dropdown__item")][normalize-space()="Group By Interval"]',
			);
			await groupBy.click();
			await sleep(600);
			expect(await shown('groupByInterval')).toBe('Hour');
			expect(await addGroupingOptions()).toEqual(['Timezone']);
		});

		test('WhatsApp template: Language shows en_US; each body variable says which {{n}} it fills', async () => {
			await openNodeOfNewWorkflow(
				'Fields: template',
				[
					{
						id: 'send',
						name: 'Contact Center',
						type: ACTION,
						typeVersion: 1,
						position: [0, 0],
						parameters: {
							resource: 'proactiveMessage',
							operation: 'send',
							medium: 'WHATSAPP',
							messageType: 'template',
							templateBodyVariables: { variable: [{ value: 'Ada' }, { value: '#1042' }] },
						},
					},
				],
				'send',
			);
			expect(await shown('templateLanguage')).toBe('en_US');
			const text: string = await ndvText();
			log(
				`template fields: ${JSON.stringify(text.slice(text.indexOf('Body Variables'), text.indexOf('Body Variables') + 200))}`,
			);
			// n8n 2.41.1's default layout titles no entry (the itemTitle Variable {{1}} shows in its new
			// layout only): each entry's hint says it.
			const hints = text.split('The 1st entry fills {{1}}, the 2nd {{2}}, and so on').length - 1;
			expect(hints).toBe(2);
		});

		test('the "Contact Center Signing Secret API" dialog says what its Test checks; a wrong secret of the right form still reads "Connection tested successfully"', async () => {
			await dialog.openNewCredential(
				page,
				instance.baseUrl,
				'Contact Center Signing Secret',
				'Contact Center Signing Secret API',
			);
			const form: Json = await dialog.credentialForm(page);
			log(`signing secret dialog: ${JSON.stringify(form)}`);
			expect(form.notices).toEqual([
				'The test checks only that the secret is hexadecimal: the service alone knows its key. A wrong secret shows as refused calls (401), reported at the trigger.',
			]);
			await dialog.pasteIntoField(page, 'secret', 'ab'.repeat(32));
			const saved: Json = await dialog.saveAndReadTestResult(page);
			log(`signing secret test: ${JSON.stringify(saved)}`);
			// n8n shows a passing test without its message: the notice above is what says it.
			expect(saved.result).toMatchObject({ status: 'OK' });
			expect(saved.banner).toMatch(/tested successfully/i);
			await page.keyboard.press('Escape');
		});

		test("a lookup's test run: the panel says how to call the Test URL; the caller's 404 is said under the trigger's output", async () => {
			const credential = await rt.restCall(instance, 'POST', '/credentials', {
				cookie,
				body: {
					name: 'Lookup test secret',
					type: 'contactCenterSigningSecretApi',
					data: { secret: sim.DEFAULT_SIGNING_SECRET },
				},
			});
			expect(credential.status).toBe(200);
			const webhookId = 'e2e-lookup-test-run';
			await openNodeOfNewWorkflow(
				'Test run: lookup',
				[
					{
						id: 'lookup',
						name: 'Contact Center Trigger',
						type: TRIGGER,
						typeVersion: 1.1,
						position: [0, 0],
						webhookId,
						parameters: { endpoint: 'lookup' },
						credentials: {
							contactCenterSigningSecretApi: {
								id: credential.json.data.id,
								name: 'Lookup test secret',
							},
						},
					},
				],
				'lookup',
			);
			const header: string = await page.$eval(
				'[data-test-id="trigger-header"]',
				(el: any) => el.innerText,
			);
			expect(header).toContain('Set Test Event to Signed Sample Call, then click Execute step');
			const button: string = await page.$eval(
				'[data-test-id="trigger-execute-button"]',
				(el: any) => el.innerText.trim(),
			);
			const [question] = await page.$$(
				'xpath/.//*[normalize-space()="When will this node trigger my flow?"]',
			);
			await question.click();
			await sleep(500);
			const help: string = await ndvText();
			// The help names the button the panel shows.
			expect(help).toContain(`click ${button}`);
			expect(help).toContain(
				"leave Test Event at The Service's Call, click Execute step and call the Test URL",
			);

			await page.click('[data-test-id="trigger-execute-button"]');
			await page.waitForSelector('[data-test-id="trigger-listening"]', { visible: true });
			const rawBody = Buffer.from(JSON.stringify({ email: 'ada@example.com' }));
			const answer = await fetch(`${instance.baseUrl}/webhook-test/${webhookId}/lookup`, {
				method: 'POST',
				headers: {
					'content-type': 'application/json',
					'x-service-signature': sim.signBody(sim.DEFAULT_SIGNING_SECRET, rawBody),
				},
				body: rawBody,
			});
			expect(answer.status).toBe(404);
			await page.waitForFunction(
				() => document.body.innerText.includes('The caller was answered 404 (no lookup found)'),
				{ timeout: 60_000 },
			);
			const output: string = await ndvText();
			log(`after the test call: ${JSON.stringify(output.slice(0, 600))}`);
			expect(output).toContain(
				'The caller was answered 404 (no lookup found): no "Respond to Lookup" follows this trigger.',
			);
		});

		describe.each([
			['lookup', 'ada@example.com', 'The caller was answered 404 (no lookup found)'],
			['notification', 'DATA_IMPORT_ERROR', 'Sample notification'],
			['writeBack', 'CONVERSATION_RESOLVED', 'sample-'],
		])('%s', (endpoint, inOutput, alsoInOutput) => {
			test('Test Event "Signed Sample Call": Execute step alone runs the trigger with a signed sample call; the notice stays while listening', async () => {
				const secret = await saveCredential(
					instance,
					cookie,
					`Sample call secret (${endpoint})`,
					'contactCenterSigningSecretApi',
					{ secret: sim.DEFAULT_SIGNING_SECRET },
				);
				const record =
					endpoint === 'writeBack'
						? await saveRecordCredential(instance, cookie, 'Contact Center record (sample call)')
						: undefined;
				await openNodeOfNewWorkflow(
					`Sample call: ${endpoint}`,
					[
						{
							id: 'trigger',
							name: 'Contact Center Trigger',
							type: TRIGGER,
							typeVersion: 1.1,
							position: [0, 0],
							webhookId: `e2e-sample-call-${endpoint}`,
							parameters: { endpoint, testEvent: 'sample' },
							credentials: {
								contactCenterSigningSecretApi: {
									id: secret,
									name: `Sample call secret (${endpoint})`,
								},
								...(record
									? {
											contactCenterRecordApi: {
												id: record,
												name: 'Contact Center record (sample call)',
											},
										}
									: {}),
							},
						},
					],
					'trigger',
				);
				expect(await shown('testEvent')).toBe('Signed Sample Call');
				await page.click('[data-test-id="trigger-execute-button"]');
				// No terminal, no call of the user's own: n8n calls its Test URL, signed.
				await page.waitForFunction(
					(text: string) => document.body.innerText.includes(text),
					{ timeout: 60_000 },
					inOutput,
				);
				const output: string = await ndvText();
				log(`${endpoint} sample call output: ${JSON.stringify(output.slice(0, 800))}`);
				expect(output).toContain(alsoInOutput);
				expect(output).toContain(
					'Execute step: n8n calls the Test URL with a sample call signed with this credential',
				);
			});
		});
	});
}
