/* eslint-disable @typescript-eslint/no-explicit-any -- test code: the browser helpers are plain JS, untyped */
/**
 * The "Contact Center Record API" credential where users see it, in a real browser (headless
 * Chromium through puppeteer-core, as nodesPanel.e2e.test.ts) against a real n8n (2.41.1) with the
 * packed package installed: the dialog's notice and fields, the Test's banner for a key expiring in
 * 3 days, and the HTTP Request node's Predefined Credential Type list (issue 26).
 * CONTACT_CENTER_PACKAGE_TARBALL installs another build of the package instead
 * (docs/credentials.md shows this test failing on the package before the issue).
 */
import * as runtimeModule from '../../scripts/lib/n8n-runtime';
import * as dialogModule from './credential-dialog';
import * as helpersModule from './helpers';
import * as panelModule from './nodes-panel';

type Json = Record<string, any>;
const rt: Json = runtimeModule;
const dialog: Json = dialogModule;
const panel: Json = panelModule;
const { report }: Json = helpersModule;

const RECORD_CREDENTIAL = 'Contact Center Record API';
const DAY_S = 24 * 3600;

let instance: Json;
let page: Json;
/** The owner's session for n8n's REST API. */
let cookie: string;

const log = (line: string) => report(`[e2e record credential dialog] ${line}`);

let session: Json;

beforeAll(async () => {
	session = await panel.startEditorSession(log);
	({ instance, page, cookie } = session);
}, 900_000);

afterAll(async () => {
	await session?.stop();
}, 120_000);

/** An API key of the owner with every scope, as n8n's "Create an API key" dialog makes it. */
const createOwnerKey = async (expiresAt: number) =>
	(await rt.createApiKey(instance, cookie, { labelPrefix: 'dialog', expiresAt }))
		.rawApiKey as string;

describe('the "Contact Center Record API" credential dialog', () => {
	test('Create credential, "Contact Center Record": the dialog says where the key comes from, above n8n API URL, n8n API Key, Data Table Name', async () => {
		const offered: string[] = await dialog.openNewCredential(
			page,
			instance.baseUrl,
			'Contact Center Record',
			RECORD_CREDENTIAL,
		);
		expect(offered).toContain(RECORD_CREDENTIAL);
		const form: Json = await dialog.credentialForm(page);
		log(`dialog: ${JSON.stringify(form)}`);
		expect(form.fields).toEqual(['n8n API URL', 'n8n API Key', 'Data Table Name']);
		expect(form.notices).toEqual([
			expect.stringContaining('Settings -> n8n API -> Create an API key'),
		]);
		expect(form.notices[0]).toContain('"No expiration"');
		expect(form.notices[0]).toContain('role Member');
		expect(form.noticesAboveFields).toBe(true);
	});

	test('Save with an owner key expiring in 3 days: the Test banner fails with "More details", which show "The key works" and "(in 3 days)"', async () => {
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

		const banner: string = await dialog.saveAndReadTestBanner(page);
		log(`Test banner: ${JSON.stringify(banner)}`);
		// n8n shows a failing Test's message only once "More details" is clicked (its Banner component).
		expect(banner).toMatch(/^Couldn.t connect with these settings/);
		expect(banner).toContain('More details');
		expect(banner).not.toContain('The key works');

		const expanded: string = await dialog.expandTestDetails(page);
		log(`Test banner, More details: ${JSON.stringify(expanded)}`);
		expect(expanded).toMatch(/^Couldn.t connect with these settings/);
		expect(expanded).toContain('The key works');
		expect(expanded).toMatch(/it expires on \d{4}-\d\d-\d\d \d\d:\d\d UTC \(in 3 days\)/);
		expect(expanded).toContain("it is a key of this n8n's owner");

		const screenshot = await dialog.screenshotCredentialDialog(
			page,
			`${instance.userFolder}/record-credential-test.png`,
		);
		log(`screenshot of the dialog: ${screenshot}`);
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
