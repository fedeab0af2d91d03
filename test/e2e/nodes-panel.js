'use strict';
/**
 * Drives n8n's editor in headless Chromium (Debian's package, through puppeteer-core): signs in,
 * opens the nodes panel from the canvas and reads what it lists, as a user sees it.
 */
const fs = require('node:fs');
const puppeteer = require('puppeteer-core');

const CHROMIUM = process.env.CONTACT_CENTER_CHROMIUM || '/usr/bin/chromium';

/** The owner account the test sets up in its own fresh n8n. */
const OWNER = {
	email: 'owner@example.com',
	password: 'NodesPanel-test-1',
	firstName: 'Panel',
	lastName: 'Owner',
};

/** Another build of the package to install instead of this clone's (CONTACT_CENTER_PACKAGE_TARBALL). */
function packageTarball() {
	return process.env.CONTACT_CENTER_PACKAGE_TARBALL || undefined;
}

/** The panel's search box filters as the user types; results settle within a few frames. */
const SETTLE_MS = 600;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const SELECTORS = {
	canvasPlus: '[data-test-id="canvas-plus-button"]',
	panelPlus: '[data-test-id="node-creator-plus-button"]',
	panel: '[data-test-id="node-creator"]',
	search:
		'[data-test-id="node-creator-search-bar"] input, input[data-test-id="node-creator-search-bar"]',
	entry: '[data-test-id="node-creator"] [data-test-id="item-iterator-item"]',
	entryName: '[data-test-id="node-creator-item-name"]',
	noResults: '[data-test-id="node-creator-no-results"]',
	ndvClose: '[data-test-id="ndv-close-button"]',
};

function assertChromium() {
	if (!fs.existsSync(CHROMIUM)) {
		throw new Error(
			`Chromium is missing at ${CHROMIUM}: the nodes panel test needs it. Install Debian's package (apt-get update && apt-get install -y chromium; .ci/run does) or set CONTACT_CENTER_CHROMIUM to a Chromium binary.`,
		);
	}
}

async function launch() {
	assertChromium();
	return await puppeteer.launch({
		executablePath: CHROMIUM,
		headless: true,
		// root in CI containers: Chromium's sandbox needs user namespaces it does not get there
		args: ['--no-sandbox', '--disable-dev-shm-usage'],
	});
}

/**
 * A page of the editor's size. Leaving a workflow with unsaved changes asks "Leave site?"
 * (beforeunload): the tests leave each one they build, so the page says yes.
 */
async function openPage(browser) {
	const page = await browser.newPage();
	await page.setViewport({ width: 1400, height: 900 });
	page.on('dialog', (dialog) => dialog.accept());
	return page;
}

/** Signs in on n8n's sign-in page; resolves once the editor's home has loaded. */
async function signIn(page, baseUrl, owner) {
	await page.goto(`${baseUrl}/signin`, { waitUntil: 'networkidle2' });
	await page.type('input[type=email]', owner.email);
	await page.type('input[type=password]', owner.password);
	await Promise.all([
		page.waitForNavigation({ waitUntil: 'networkidle2' }),
		page.keyboard.press('Enter'),
	]);
}

/** A new workflow with the nodes panel open ("What triggers this workflow?"). */
async function openTriggerPanel(page, baseUrl) {
	await page.goto(`${baseUrl}/workflow/new`, { waitUntil: 'networkidle2' });
	await page.waitForSelector(SELECTORS.canvasPlus, { visible: true });
	await page.click(SELECTORS.canvasPlus);
	await page.waitForSelector(SELECTORS.search, { visible: true });
}

/** A saved workflow (`url`) that has a node: the nodes panel from its + button ("What happens next?"). */
async function openNextStepPanel(page, url) {
	await page.goto(url, { waitUntil: 'networkidle2' });
	await page.waitForSelector(SELECTORS.panelPlus, { visible: true });
	await page.click(SELECTORS.panelPlus);
	await page.waitForSelector(SELECTORS.search, { visible: true });
}

/**
 * Saves a new workflow with only a Manual Trigger (n8n's REST API, the owner's `cookie`), opens it
 * in the editor and opens the nodes panel for the next step ("What happens next?").
 */
async function openNextStepPanelOfNewWorkflow(page, instance, cookie, name) {
	const rt = require('../../scripts/lib/n8n-runtime');
	const created = await rt.restCall(instance, 'POST', '/workflows', {
		cookie,
		body: {
			name,
			nodes: [
				{
					id: 'manual',
					name: 'Manual Trigger',
					type: 'n8n-nodes-base.manualTrigger',
					typeVersion: 1,
					position: [0, 0],
					parameters: {},
				},
			],
			connections: {},
		},
	});
	if (created.status !== 200)
		throw new Error(`creating the workflow: ${created.status} ${created.text}`);
	await openNextStepPanel(page, `${instance.baseUrl}/workflow/${created.json.data.id}`);
}

/** The panel's heading, e.g. "What triggers this workflow?". */
async function panelTitle(page) {
	return await page.$eval(
		SELECTORS.panel,
		(el) => el.querySelector('h1, h2, h3, [class*="title"]')?.textContent?.trim() ?? '',
	);
}

/** Names of the panel's entries from the top, as listed now. */
async function listedEntries(page) {
	return await page.$$eval(
		SELECTORS.entry,
		(entries, nameSelector) =>
			entries.map((entry) => entry.querySelector(nameSelector)?.textContent?.trim() ?? ''),
		SELECTORS.entryName,
	);
}

/** Types `text` into the panel's search box (replacing what was there); the entries it lists. */
async function search(page, text) {
	const box = await page.waitForSelector(SELECTORS.search, { visible: true });
	// Focused and selected rather than clicked: a click can come while the panel still slides in,
	// and puppeteer then finds no point to click ("Node is either not clickable").
	await box.evaluate((el) => {
		el.focus();
		el.select();
	});
	await page.keyboard.press('Backspace');
	await box.type(text);
	await sleep(SETTLE_MS);
	if (await page.$(SELECTORS.noResults)) return [];
	return await listedEntries(page);
}

/** Opens the first entry named `name` in the current search results. */
async function openEntry(page, name) {
	const entries = await page.$$(SELECTORS.entry);
	for (const entry of entries) {
		const text = await entry.$eval(SELECTORS.entryName, (el) => el.textContent.trim());
		if (text === name) {
			await entry.click();
			await sleep(SETTLE_MS);
			return;
		}
	}
	throw new Error(
		`no entry "${name}" in the panel; listed: ${(await listedEntries(page)).join(', ')}`,
	);
}

/**
 * The items of the opened entry under each category header ("Triggers (3)", "Actions (6)"), by
 * header text. A category's items are rendered in the same block as its header.
 */
async function categorizedItems(page) {
	return await page.$$eval(
		`${SELECTORS.panel} [data-test-id="node-creator-category-item"]`,
		(headers, itemSelector, nameSelector) =>
			headers.map((header) => ({
				category: header.textContent.trim(),
				items: [
					...(header
						.closest('[class*="categorizedItemsRenderer"]')
						?.querySelectorAll(itemSelector) ?? []),
				].map((item) => item.querySelector(nameSelector)?.textContent?.trim() ?? ''),
			})),
		'[data-test-id="item-iterator-item"]',
		SELECTORS.entryName,
	);
}

/** Clicks the opened entry's item named `name`, which adds the node and opens its settings. */
async function chooseItem(page, name) {
	for (const item of await page.$$(SELECTORS.entry)) {
		const text = await item.evaluate(
			(el, nameSelector) => el.querySelector(nameSelector)?.textContent?.trim(),
			SELECTORS.entryName,
		);
		if (text === name) {
			await item.click();
			await page.waitForSelector(SELECTORS.ndvClose, { visible: true });
			return;
		}
	}
	throw new Error(
		`no item "${name}" in the opened entry; listed: ${(await listedEntries(page)).join(', ')}`,
	);
}

/** The shown value of the node settings' parameter `name` (an options parameter's chosen label). */
async function parameterShown(page, name) {
	return await page.$eval(`[data-test-id="parameter-input-${name}"] input`, (input) => input.value);
}

async function closeNodeSettings(page) {
	await page.click(SELECTORS.ndvClose);
	await page.waitForSelector(SELECTORS.ndvClose, { hidden: true });
}

/**
 * A real n8n with the package (CONTACT_CENTER_PACKAGE_TARBALL, else this checkout built and
 * packed) and Chromium signed in to its editor as the owner. Chromium is launched first, so that a
 * missing browser fails at once, with what to install. Resolves with {browser, instance, page,
 * cookie (the owner's REST session), stop()}.
 */
async function startEditorSession(log) {
	const rt = require('../../scripts/lib/n8n-runtime');
	const { freshStateDir } = require('./helpers');
	const browser = await launch();
	const userFolder = freshStateDir();
	const runtime = await rt.installRuntime({ log });
	const instance = await rt.createInstance(runtime, { userFolder });
	const session = {
		browser,
		instance,
		stop: async () => {
			await browser.close();
			if (instance.server) await rt.stopServer(instance);
		},
	};
	const tarball = packageTarball();
	if (tarball) {
		log(`installing ${tarball}`);
		await rt.installPackageInto(userFolder, tarball, { runtime });
	} else {
		await rt.buildAndInstallPackage(userFolder, { runtime, log });
	}
	await rt.startServer(instance, { log });
	const loadError = rt.packageLoadError(instance);
	if (loadError) throw new Error(`n8n did not load the package: ${loadError}`);
	session.cookie = await rt.ensureOwner(instance, OWNER);
	session.page = await openPage(browser);
	await signIn(session.page, instance.baseUrl, OWNER);
	return session;
}

/**
 * One real n8n with the package and one Chromium for several browser suites (test/e2e/editor.e2e.test.ts):
 * as startEditorSession, without a page. `signedInPage()` deletes every credential (each suite
 * starts as in a fresh n8n, which has none), opens a page in a browser context of its own (its own
 * cookies and storage, as a fresh browser) and signs in there as the owner. Resolves with
 * {browser, instance, cookie, signedInPage(), stop()}.
 */
async function startEditor(log) {
	const session = await startEditorSession(log);
	await session.page.close();
	delete session.page;
	session.signedInPage = async () => {
		const rt = require('../../scripts/lib/n8n-runtime');
		const { cookie, instance } = session;
		const listed = await rt.restCall(instance, 'GET', '/credentials', { cookie });
		if (listed.status !== 200)
			throw new Error(`listing credentials: ${listed.status} ${listed.text}`);
		for (const credential of listed.json.data) {
			const deleted = await rt.restCall(instance, 'DELETE', `/credentials/${credential.id}`, {
				cookie,
			});
			if (deleted.status >= 300)
				throw new Error(`deleting credential ${credential.id}: ${deleted.status} ${deleted.text}`);
		}
		const context = await session.browser.createBrowserContext();
		const page = await openPage(context);
		await signIn(page, session.instance.baseUrl, OWNER);
		return page;
	};
	return session;
}

module.exports = {
	CHROMIUM,
	startEditor,
	startEditorSession,
	OWNER,
	packageTarball,
	SELECTORS,
	launch,
	openPage,
	signIn,
	openTriggerPanel,
	openNextStepPanel,
	openNextStepPanelOfNewWorkflow,
	panelTitle,
	search,
	openEntry,
	categorizedItems,
	chooseItem,
	parameterShown,
	closeNodeSettings,
};
