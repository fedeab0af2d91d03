/* eslint-disable @typescript-eslint/no-explicit-any -- test code: the browser helpers are plain JS, untyped */
/**
 * The "Contact Center Record API" credential where users see it, in a real browser (headless
 * Chromium through puppeteer-core, as editor/nodesPanel.ts) against a real n8n (2.41.1) with the
 * packed package installed: the dialog's notice and fields, the test's banner for a key that works
 * (expiring in 3 days, the owner's), the README's steps followed and counted, a new Send node's
 * credential fields and notice, and the HTTP Request node's Predefined Credential Type list.
 * CONTACT_CENTER_PACKAGE_TARBALL installs another build of the package instead.
 */
import * as runtimeModule from '../../../scripts/lib/n8n-runtime';
import * as dialogModule from '../credential-dialog';
import * as helpersModule from '../helpers';
import * as panelModule from '../nodes-panel';
import * as textsModule from '../panel-texts';
import { signInForBlock } from './signedIn';

type Json = Record<string, any>;
const rt: Json = runtimeModule;
const dialog: Json = dialogModule;
const panel: Json = panelModule;
const texts: Json = textsModule;
const { report }: Json = helpersModule;

/**
 * Registers this suite in a describe block of its own; `session` is the editor session
 * (nodes-panel.js startEditor) that test/e2e/editor.e2e.test.ts starts for its suites. The suite
 * signs in on a page of its own, in a fresh browser context.
 */
export function describeRecordCredentialDialog(session: () => Json): void {
	describe("the record credential's dialog", () => {
		const RECORD_CREDENTIAL = 'Contact Center Record API';
		const OAUTH2_CREDENTIAL = 'Contact Center OAuth2 API';
		const DAY_S = 24 * 3600;
		/**
		 * The README's key and credential steps, from n8n's Settings page to the saved credential, in
		 * clicks and entries (a dropdown's choice is two: opening it and the option). n8n 2.41.1 needs
		 * them all: the Label is required to Save, Expiration starts at 30 days, Scopes at All, the key
		 * is shown once, to be copied and pasted, and "API key created successfully" stays open until Done.
		 */
		const MOST_KEY_AND_CREDENTIAL_ACTIONS = 13;

		let instance: Json;
		let page: Json;
		/** The owner's session for n8n's REST API. */
		let cookie: string;

		const log = (line: string) => report(`[e2e record credential dialog] ${line}`);

		signInForBlock(session, (signedIn) => ({ instance, cookie, page } = signedIn));

		/** An API key of the owner with every scope, as n8n's "Create API Key" dialog makes it with Scopes All. */
		const createOwnerKey = async (expiresAt: number | null) =>
			(await rt.createApiKey(instance, cookie, { labelPrefix: 'dialog', expiresAt }))
				.rawApiKey as string;

		async function deleteAllCredentials() {
			const listed = await rt.restCall(instance, 'GET', '/credentials', { cookie });
			for (const credential of listed.json.data) {
				await rt.restCall(instance, 'DELETE', `/credentials/${credential.id}`, { cookie });
			}
		}

		/**
		 * Leaves exactly one credential of each Contact Center type the Send node shows: an OAuth2 one
		 * (it is not called) and a record one with an owner key.
		 */
		async function keepOneCredentialOfEachType() {
			await deleteAllCredentials();
			const created = [
				{
					name: 'Contact Center account',
					type: 'contactCenterOAuth2Api',
					data: { baseUrl: 'http://127.0.0.1:9', clientId: 'id', clientSecret: 'secret' },
				},
				{
					name: 'Contact Center Record account',
					type: 'contactCenterRecordApi',
					data: {
						baseUrl: `${instance.baseUrl}/api/v1`,
						apiKey: await createOwnerKey(null),
						dataTableName: 'contact_center_record',
					},
				},
			];
			for (const body of created) {
				const answer = await rt.restCall(instance, 'POST', '/credentials', { cookie, body });
				expect(answer.status).toBe(200);
			}
		}

		describe('the "Contact Center Record API" credential dialog', () => {
			test('Create credential, "Contact Center Record": the dialog says where the key comes from, above n8n API URL, n8n API Key, Data Table Name and Custom Storage Limit (off: Storage Limit (MB) hidden)', async () => {
				const offered: string[] = await dialog.openNewCredential(
					page,
					instance.baseUrl,
					'Contact Center Record',
					RECORD_CREDENTIAL,
				);
				expect(offered).toContain(RECORD_CREDENTIAL);
				const form: Json = await dialog.credentialForm(page);
				log(`dialog: ${JSON.stringify(form)}`);
				expect(form.fields).toEqual([
					'n8n API URL',
					'n8n API Key',
					'Data Table Name',
					'Custom Storage Limit',
				]);
				expect(form.notices).toEqual([
					expect.stringContaining('Settings -> n8n API -> Create API key'),
				]);
				// n8n 2.41.1 shows this dialog no "Read our docs" link: the notice itself says which key to make.
				expect(form.notices[0]).toContain('Expiration Never');
				expect(form.notices[0]).toContain('Scopes Custom with Data tables ticked');
				expect(form.noticesAboveFields).toBe(true);
				// Two lines at most, as rendered.
				const notices: Json[] = await texts.noticeLines(page);
				log(`the dialog's notice as rendered: ${JSON.stringify(notices)}`);
				expect(notices.map((notice) => notice.lines)).toEqual([expect.any(Number)]);
				expect(notices[0].lines).toBeLessThanOrEqual(2);
			});

			test('Save with an owner key expiring in 3 days: the test passes in green, "Connection tested successfully"; its notes reach the editor', async () => {
				const nowS = Math.floor(Date.now() / 1000);
				const key = await createOwnerKey(nowS + 3 * DAY_S + 3600);
				await dialog.openNewCredential(
					page,
					instance.baseUrl,
					'Contact Center Record',
					RECORD_CREDENTIAL,
				);
				const apiUrl = `${instance.baseUrl}/api/v1`;
				expect(await dialog.pasteIntoField(page, 'baseUrl', apiUrl)).toBe(apiUrl);
				expect(await dialog.pasteIntoField(page, 'apiKey', key)).toBe(key);

				const saved: Json = await dialog.saveAndReadTestResult(page);
				log(`Save: ${JSON.stringify(saved)}`);
				expect(saved.banner).toMatch(/^Connection tested successfully/);
				expect(await dialog.testBannerIsRed(page)).toBe(false);
				expect(saved.result.status).toBe('OK');
				expect(saved.result.message).toMatch(/^The key works/);
				expect(saved.result.message).toMatch(
					/it expires on \d{4}-\d\d-\d\d \d\d:\d\d UTC \(in 3 days\)/,
				);
				expect(saved.result.message).toContain("it is a key of this n8n's owner");

				const screenshot = await dialog.screenshotCredentialDialog(
					page,
					`${instance.userFolder}/record-credential-test.png`,
				);
				log(`screenshot of the dialog: ${screenshot}`);
			});

			test('Save with a mistyped key: the red banner; its More details starts with "Check the key you pasted into n8n API Key"', async () => {
				const key = await createOwnerKey(null);
				// One character of the key's signature changed, as a slip when copying it.
				const mistyped = `${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`;
				await dialog.openNewCredential(
					page,
					instance.baseUrl,
					'Contact Center Record',
					RECORD_CREDENTIAL,
				);
				expect(await dialog.pasteIntoField(page, 'baseUrl', `${instance.baseUrl}/api/v1`)).toBe(
					`${instance.baseUrl}/api/v1`,
				);
				expect(await dialog.pasteIntoField(page, 'apiKey', mistyped)).toBe(mistyped);

				const saved: Json = await dialog.saveAndReadTestResult(page);
				log(`Save with a mistyped key: ${JSON.stringify(saved)}`);
				expect(saved.result.status).toBe('Error');
				// n8n's own words head the banner; the Test's message shows only under More details.
				expect(saved.banner).toMatch(/^Couldn’t connect with these settings/);
				expect(saved.banner).not.toContain('Check the key');
				expect(await dialog.testBannerIsRed(page)).toBe(true);
				const details: Json = await dialog.testBannerDetails(page);
				log(`More details: ${JSON.stringify(details)}`);
				expect(details.text).toBe(saved.result.message);
				expect(details.text).toMatch(/^Check the key you pasted into n8n API Key: n8n refused it/);
				expect(details.firstLine).toMatch(/^Check the key you pasted into n8n API Key/);
				await page.keyboard.press('Escape');
			});
		});

		describe("the README's steps for the record key, in n8n's screens", () => {
			test('from Settings to a saved credential in at most 13 clicks and entries (Done included), each control named in the README as n8n shows it', async () => {
				// A first record credential, as in the README: the field offers "Connect to …".
				await deleteAllCredentials();
				const actions = dialog.actionLog();
				const { key, scopesCount } = await dialog.createRecordKeyAsTheReadmeSays(
					page,
					instance.baseUrl,
					actions,
				);
				expect(scopesCount).toMatch(/^14 of \d+ scopes selected$/);
				// A node whose record field shows as added: the write back trigger (a new Send node
				// shows it once Send Once is turned on).
				await panel.openTriggerPanel(page, instance.baseUrl);
				await panel.search(page, 'write back');
				await panel.openEntry(page, 'Contact Center');
				await panel.chooseItem(page, 'On conversation write back');
				await dialog.createCredentialFromNodeField(page, RECORD_CREDENTIAL, actions);
				const apiUrl = `${instance.baseUrl}/api/v1`;
				// The README's default, http://localhost:5678/api/v1, is not this n8n's address.
				expect(await dialog.pasteIntoField(page, 'baseUrl', apiUrl)).toBe(apiUrl);
				actions.typed('n8n API URL');
				expect(await dialog.pasteIntoField(page, 'apiKey', key)).toBe(key);
				actions.typed('n8n API Key');
				const saved: Json = await dialog.saveAndReadTestResult(page);
				actions.actions.push({ kind: 'click', text: 'Save' });
				log(`README steps: ${actions.actions.map((a: Json) => `${a.kind} ${a.text}`).join(', ')}`);
				log(`Save: ${JSON.stringify(saved)}`);

				expect(saved.result).toEqual({
					status: 'OK',
					message: expect.stringMatching(/^The key works/),
				});
				expect(saved.dialogClosed).toBe(true);
				const fields: Json[] = await dialog.nodeCredentialFields(page);
				expect(fields.find((field) => field.label === RECORD_CREDENTIAL)?.selected).not.toBe('');

				const typedUrl = 1;
				expect(actions.actions.length - typedUrl).toBeLessThanOrEqual(
					MOST_KEY_AND_CREDENTIAL_ACTIONS,
				);
				const section: string = dialog.readmeSection('### Contact Center Record API');
				for (const action of actions.actions.filter((a: Json) => a.text !== 'copy')) {
					expect({ action, inReadme: section.includes(`**${action.text}**`) }).toEqual({
						action,
						inReadme: true,
					});
				}

				const asKey = async (route: string) =>
					(
						await fetch(`${apiUrl}${route}`, {
							headers: { 'X-N8N-API-KEY': key, accept: 'application/json' },
						})
					).status;
				expect({
					dataTables: await asKey('/data-tables'),
					users: await asKey('/users'),
					workflows: await asKey('/workflows'),
				}).toEqual({ dataTables: 200, users: 403, workflows: 403 });
			});
		});

		describe('a new Send node, with one credential of each type', () => {
			test("n8n fills in its one credential field (Send Once in n8n's store); Record Sends In Data Table adds the record field, right under Resource and above Operation, above the fold; its notice is one line", async () => {
				await keepOneCredentialOfEachType();
				await panel.openNextStepPanelOfNewWorkflow(page, instance, cookie, 'Send: credentials');
				await panel.search(page, 'send message');
				await panel.openEntry(page, 'Contact Center');
				await panel.chooseItem(page, 'Send message');
				const added: Json[] = await dialog.nodeCredentialFields(page);
				log(`credential fields of a new Send node: ${JSON.stringify(added)}`);
				// n8n fills in one credential per new node: the OAuth2 one, the only one Send at its defaults needs.
				expect(added.map((field) => field.label)).toEqual([OAUTH2_CREDENTIAL]);
				expect(added[0].selected).not.toBe('');
				expect((await texts.sendLayout(page)).notice).toBe('');

				await dialog.chooseParameterOption(
					page,
					'sendOnceStore',
					'Data Table (Record API Credential)',
				);
				const fields: Json[] = await dialog.nodeCredentialFields(page);
				const layout: Json = await texts.sendLayout(page);
				log(`credential fields: ${JSON.stringify(fields)}; layout: ${JSON.stringify(layout)}`);
				expect(fields.map((field) => field.label)).toEqual([OAUTH2_CREDENTIAL, RECORD_CREDENTIAL]);
				// What the errors say: "near the top of its Parameters tab, between Resource and Operation".
				const tops = [layout.resourceTop, ...fields.map((f) => f.top), layout.operationTop];
				expect(tops).toEqual([...tops].sort((a, b) => a - b));
				expect(Math.max(...fields.map((f) => f.bottom))).toBeLessThan(layout.viewportHeight);
				expect(layout.notice).toBe('Send Once uses the Record API credential (top)');
				expect(layout.noticeLines).toBe(1);
				expect(layout.noticeTop).toBeGreaterThan(layout.sendOnceTop);
				await panel.closeNodeSettings(page);
			});
		});

		describe('HTTP Request node, Authentication = Predefined Credential Type', () => {
			test('typing "Contact Center" into Credential Type offers the OAuth2 credential, not "Contact Center Record API"', async () => {
				await panel.openNextStepPanelOfNewWorkflow(
					page,
					instance,
					cookie,
					'Record credential: HTTP Request',
				);
				await panel.search(page, 'HTTP Request');
				await panel.openEntry(page, 'HTTP Request');
				await dialog.chooseParameterOption(page, 'authentication', 'Predefined Credential Type');
				const offered: string[] = await dialog.parameterOptionsFor(
					page,
					'nodeCredentialType',
					'Contact Center',
				);
				log(`Credential Type, "Contact Center": ${JSON.stringify(offered)}`);
				expect(offered).toContain('Contact Center OAuth2 API');
				expect(offered).not.toContain(RECORD_CREDENTIAL);
			});
		});
	});
}
