/* eslint-disable @typescript-eslint/no-explicit-any -- test code: the browser helpers are plain JS, untyped */
/**
 * What a new user reads in the node settings, measured in a real browser (headless Chromium
 * through puppeteer-core, as editor/nodesPanel.ts) against a real n8n (2.41.1) with the packed
 * package: every notice of both nodes at most two lines as rendered, every option description one
 * line of its dropdown (n8n cuts it with "…" after two), the Docs link of each node opening its
 * docs page (the URL n8n opens, with its `?utm_source`), a Send node added from the nodes panel
 * getting its OAuth2 credential filled in and running on its first try, and Send's output of a
 * first run and a rerun with Send Once, as the output table shows it.
 */
import * as runtimeModule from '../../../scripts/lib/n8n-runtime';
import * as simulatorModule from '../../simulator';
import * as dialogModule from '../credential-dialog';
import * as helpersModule from '../helpers';
import * as panelModule from '../nodes-panel';
import * as textsModule from '../panel-texts';
import { saveCredential, saveRecordCredential } from './credentials';
import { signInForBlock } from './signedIn';

type Json = Record<string, any>;
const rt: Json = runtimeModule;
const sim: Json = simulatorModule;
const dialog: Json = dialogModule;
const panel: Json = panelModule;
const texts: Json = textsModule;
const { report }: Json = helpersModule;

/**
 * Registers this suite in a describe block of its own; `session` is the editor session
 * (nodes-panel.js startEditor) that test/e2e/editor.e2e.test.ts starts for its suites. The suite
 * signs in on a page of its own, in a fresh browser context.
 */
export function describePanelTexts(session: () => Json): void {
	describe("the node settings' texts", () => {
		const REPO = 'https://github.com/n8n-nodes-contact-center/n8n-nodes-contact-center/blob/main/';

		let instance: Json;
		let page: Json;
		let cookie: string;

		const log = (line: string) => report(`[e2e panel texts] ${line}`);

		signInForBlock(session, (signedIn) => ({ instance, cookie, page } = signedIn));

		/** Every notice shown now: at most two lines each. */
		async function expectShortNotices(where: string, atLeast: number) {
			const notices: Json[] = await texts.noticeLines(page);
			log(`${where}, notices: ${JSON.stringify(notices)}`);
			expect(notices.length).toBeGreaterThanOrEqual(atLeast);
			expect(notices.filter((notice) => notice.lines > 2)).toEqual([]);
		}

		/** The options of `name`: each description on one line, none cut. */
		async function expectOneLineOptions(name: string) {
			const options: Json[] = await texts.optionDescriptionLines(page, name);
			log(`${name}: ${JSON.stringify(options.map((o) => [o.name, o.lines]))}`);
			expect(options.length).toBeGreaterThan(0);
			expect(options.filter((option) => option.lines > 1 || option.cut)).toEqual([]);
		}

		/** The URL the Docs link opens: a docs page of the repository (no #fragment) and n8n's parameters. */
		function expectDocsPage(url: string, page: string) {
			expect(url).toBe(`${REPO}${page}?${url.split('?')[1]}`);
			expect(new URL(url).searchParams.get('utm_source')).toBe('n8n_app');
			expect(url).not.toContain('#');
			expect(texts.repoFileExists(page)).toBe(true);
		}

		describe('Contact Center node settings', () => {
			beforeAll(async () => {
				await panel.openNextStepPanelOfNewWorkflow(page, instance, cookie, 'Panel texts: action');
				await panel.search(page, 'send message');
				await panel.openEntry(page, 'Contact Center');
				await panel.chooseItem(page, 'Send message');
			}, 120_000);

			test("Send: Medium SMS and Contact from the input by default; the notice is one line, and Resource, Operation, Medium and Send Once's options one line each", async () => {
				// Send Once is on for a new node, in n8n's store; the notice shows once it is in a data table.
				expect(await panel.parameterShown(page, 'sendOnce')).toBe('Same Message Once');
				expect(await panel.parameterShown(page, 'sendOnceStore')).toBe('N8n (No Credential)');
				// SMS for a new node; Contact reads the input's usual phone fields.
				expect(await panel.parameterShown(page, 'medium')).toBe('SMS via MessageBird');
				const settings: string = await page.$eval(
					'[data-test-id="ndv"]',
					(el: any) => el.innerText as string,
				);
				expect(settings).toContain('{{ $json.phone ?? $json.mobile ?? $json.contact }}');
				await dialog.chooseParameterOption(page, 'medium', 'WhatsApp');
				await dialog.chooseParameterOption(
					page,
					'sendOnceStore',
					'Data Table (Record API Credential)',
				);
				const layout: Json = await texts.sendLayout(page);
				log(`Send: ${JSON.stringify(layout)}`);
				expect(layout.noticeLines).toBe(1);
				await expectShortNotices('Send', 1);
				for (const name of [
					'resource',
					'operation',
					'medium',
					'messageType',
					'sendOnce',
					'sendOnceStore',
					'sendAgainTo',
				]) {
					await expectOneLineOptions(name);
				}
			});

			test('Docs opens docs/contact-center-node.md, with n8n\'s "?utm_source"', async () => {
				const url: string = await texts.docsLinkTarget(page);
				log(`Contact Center, Docs: ${url}`);
				expectDocsPage(url, 'docs/contact-center-node.md');
			});

			test('Get Failed: its notice fits two lines', async () => {
				await dialog.chooseParameterOption(page, 'operation', 'Get Failed');
				await expectShortNotices('Get Failed', 1);
			});

			test("Metric: the operations' and metrics' options one line each; Agent Availability's notice fits", async () => {
				await dialog.chooseParameterOption(page, 'resource', 'Metric');
				await expectOneLineOptions('operation');
				await expectOneLineOptions('metric');
				await dialog.chooseParameterOption(page, 'metric', 'Agent Availability');
				// Its notice shows only while User Presence Status is empty.
				await expectShortNotices('Agent Availability', 0);
			});

			test("CRM Lookup: the notice fits two lines; Respond With's and Attributes Input's options one line each", async () => {
				await dialog.chooseParameterOption(page, 'resource', 'CRM Lookup');
				await expectShortNotices('Respond to Lookup', 1);
				await expectOneLineOptions('operation');
				await expectOneLineOptions('respondWith');
				await expectOneLineOptions('attributesInput');
				await panel.closeNodeSettings(page);
			});
		});

		describe('Contact Center Trigger node settings', () => {
			beforeAll(async () => {
				await panel.openTriggerPanel(page, instance.baseUrl);
				await panel.search(page, 'contact center');
				await panel.openEntry(page, 'Contact Center');
				await panel.chooseItem(page, 'On conversation write back');
			}, 120_000);

			test("Write Back: the notice fits two lines; Trigger On's, Events' and Respond's options one line each", async () => {
				await expectShortNotices('Write Back', 1);
				await expectOneLineOptions('endpoint');
				await expectOneLineOptions('respond');
				await expectOneLineOptions('events');
				// The consequence of Immediately is in the visible part.
				const respond: Json[] = await texts.optionDescriptionLines(page, 'respond');
				expect(respond.find((option) => option.name === 'Immediately')?.description).toContain(
					'not delivered again',
				);
			});

			test('Lookup and Notification: their notices fit two lines', async () => {
				await dialog.chooseParameterOption(page, 'endpoint', 'Lookup');
				await expectShortNotices('Lookup', 1);
				await expectOneLineOptions('ifNoResponse');
				await dialog.chooseParameterOption(page, 'endpoint', 'Notification');
				await expectShortNotices('Notification', 1);
			});

			test('Docs opens docs/trigger.md, with n8n\'s "?utm_source"', async () => {
				const url: string = await texts.docsLinkTarget(page);
				log(`Contact Center Trigger, Docs: ${url}`);
				expectDocsPage(url, 'docs/trigger.md');
				await panel.closeNodeSettings(page);
			});
		});

		describe("Send's credential and output in the editor, with the local setup's credentials", () => {
			let simulator: Json;
			let oauth2: string;
			let record: string;

			// As the local setup does: the OAuth2 credential first, then the record credential, which
			// is so the most recently updated one.
			beforeAll(async () => {
				simulator = await sim.startSimulator({ port: 0 });
				const client = simulator.options.clients[0];
				oauth2 = await saveCredential(
					instance,
					cookie,
					'Contact Center (simulator)',
					'contactCenterOAuth2Api',
					{
						baseUrl: simulator.url,
						clientId: client.clientId,
						clientSecret: client.clientSecret,
					},
				);
				record = await saveRecordCredential(instance, cookie, 'Contact Center record (panel)');
			}, 120_000);

			afterAll(async () => {
				await simulator?.stop();
			});

			async function executeWorkflow(workflowId: string, runs: number) {
				await page.click('[data-test-id="execute-workflow-button"]');
				const filter = encodeURIComponent(JSON.stringify({ workflowId }));
				for (let i = 0; i < 120; i++) {
					const listed = await rt.restCall(instance, 'GET', `/executions?filter=${filter}`, {
						cookie,
					});
					const executions: Json[] = listed.json?.data?.results ?? listed.json?.data ?? [];
					if (executions.filter((e) => e.status === 'success').length >= runs) return;
					await rt.sleep(500);
				}
				throw new Error(`run ${runs} of the workflow did not succeed`);
			}

			async function sendOutput(nodeName = 'Send reminder'): Promise<Json> {
				const nodes = await page.$$('[data-test-id="canvas-node"]');
				const names: string[] = await Promise.all(
					nodes.map(async (node: Json) => await node.evaluate((el: Json) => el.innerText)),
				);
				await nodes[names.findIndex((name) => name.includes(nodeName))].click({
					clickCount: 2,
				});
				const table: Json = await texts.outputTable(page);
				await panel.closeNodeSettings(page);
				const row = Object.fromEntries(
					table.columns.map((c: string, i: number) => [c, table.rows[0][i]]),
				);
				return {
					columns: table.columns.filter((c: string) => c !== ''),
					row,
					rows: table.rows.length,
				};
			}

			test('a Send node added from the nodes panel gets the OAuth2 credential filled in, needs no other, and runs on its first try', async () => {
				await panel.openNextStepPanelOfNewWorkflow(page, instance, cookie, 'Panel texts: new Send');
				await panel.search(page, 'send message');
				await panel.openEntry(page, 'Contact Center');
				await panel.chooseItem(page, 'Send message');
				await rt.sleep(1000);
				const fields: Json[] = await dialog.nodeCredentialFields(page);
				log(`new Send node, credential fields: ${JSON.stringify(fields)}`);
				expect(fields.map((f) => [f.label, f.selected])).toEqual([
					['Contact Center OAuth2 API', 'Contact Center (simulator)'],
				]);
				expect(await panel.parameterShown(page, 'sendOnce')).toBe('Same Message Once');
				expect(await panel.parameterShown(page, 'sendOnceStore')).toBe('N8n (No Credential)');
				await panel.closeNodeSettings(page);
				await page.keyboard.down('Control');
				await page.keyboard.press('s');
				await page.keyboard.up('Control');
				await rt.sleep(1000);
				const workflowId = new URL(page.url()).pathname.split('/').pop();
				const saved = await rt.restCall(instance, 'GET', `/workflows/${workflowId}`, { cookie });
				const nodes: Json[] = saved.json.data.nodes;
				const send = nodes.find((node) => node.type === 'n8n-nodes-contact-center.contactCenter')!;
				expect(send.credentials).toEqual({
					contactCenterOAuth2Api: { id: oauth2, name: 'Contact Center (simulator)' },
				});
				// The fields a user fills in before the first run, as saved by the editor.
				send.parameters = {
					...send.parameters,
					medium: 'TWILIO',
					channel: 'Appointments SMS',
					contact: '+31612345670',
					text: 'Your appointment is tomorrow at 10:00',
				};
				const updated = await rt.restCall(instance, 'PATCH', `/workflows/${workflowId}`, {
					cookie,
					body: { ...saved.json.data, nodes },
				});
				expect(updated.status).toBe(200);
				await page.goto(`${instance.baseUrl}/workflow/${workflowId}`, {
					waitUntil: 'networkidle2',
				});
				await page.waitForSelector('[data-test-id="execute-workflow-button"]', { visible: true });
				// The run started from the editor's button succeeds: n8n lists it as a success.
				await executeWorkflow(String(workflowId), 1);
			});

			test('the first run reads "accepted", the input\'s fields right after it, a note that it is not delivered yet; the rerun "already accepted" with the earlier time, a note that nothing was sent again, and no Send Once Key', async () => {
				const created = await rt.restCall(instance, 'POST', '/workflows', {
					cookie,
					body: {
						name: 'Panel texts: send twice',
						nodes: [
							{
								id: 'manual',
								name: 'Manual Trigger',
								type: 'n8n-nodes-base.manualTrigger',
								typeVersion: 1,
								position: [0, 0],
								parameters: {},
							},
							{
								id: 'contacts',
								name: 'Contacts',
								type: 'n8n-nodes-base.code',
								typeVersion: 2,
								position: [220, 0],
								parameters: {
									jsCode:
										"return [{ json: { firstName: 'Ada', phone: '+31612345678', customerId: 'CUST-1815' } }];",
								},
							},
							{
								id: 'send',
								name: 'Send reminder',
								type: 'n8n-nodes-contact-center.contactCenter',
								typeVersion: 1,
								position: [440, 0],
								parameters: {
									resource: 'proactiveMessage',
									operation: 'send',
									medium: 'TWILIO',
									channel: 'Appointments SMS',
									contact: '={{ $json.phone }}',
									text: 'Your appointment is tomorrow at 10:00',
									sendOnce: 'message',
									sendOnceStore: 'dataTable',
								},
								credentials: {
									contactCenterOAuth2Api: { id: oauth2, name: 'Contact Center (simulator)' },
									contactCenterRecordApi: { id: record, name: 'Contact Center record (panel)' },
								},
							},
						],
						connections: {
							'Manual Trigger': { main: [[{ node: 'Contacts', type: 'main', index: 0 }]] },
							Contacts: { main: [[{ node: 'Send reminder', type: 'main', index: 0 }]] },
						},
					},
				});
				const workflowId = created.json.data.id;
				await page.goto(`${instance.baseUrl}/workflow/${workflowId}`, {
					waitUntil: 'networkidle2',
				});
				await page.waitForSelector('[data-test-id="execute-workflow-button"]', { visible: true });

				await executeWorkflow(workflowId, 1);
				const first = await sendOutput();
				log(`first run: ${JSON.stringify(first)}`);
				await executeWorkflow(workflowId, 2);
				const rerun = await sendOutput();
				log(`rerun: ${JSON.stringify(rerun)}`);

				// The first column says what became of the message; the input's own fields follow it,
				// on screen without scrolling; the same columns on both runs, and no Send Once Key.
				expect(first.columns.slice(0, 5)).toEqual([
					'outcome',
					'firstName',
					'phone',
					'customerId',
					'contact',
				]);
				expect(first.columns).not.toContain('sendOnceKey');
				expect(rerun.columns).toEqual(first.columns);
				expect(first.row).toMatchObject({
					outcome: 'accepted',
					contact: '+31612345678',
					firstName: 'Ada',
					note: expect.stringMatching(/^Accepted is not delivered yet: Get Delivery Report/),
				});
				expect(rerun.row).toMatchObject({
					outcome: 'already accepted',
					sentAt: first.row.sentAt,
					correlationId: first.row.correlationId,
					firstName: 'Ada',
					note: expect.stringMatching(/^Nothing sent again: /),
				});
				expect(
					simulator.messages.filter((m: Json) => m.body.contact === '+31612345678'),
				).toHaveLength(1);
			});
		});
	});
}
