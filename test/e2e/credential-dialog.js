'use strict';
/**
 * Drives n8n's credential dialog and a node's parameter lists in headless Chromium, as a user does:
 * Credentials -> Create credential, search and pick a type, paste into the fields, Save (n8n then
 * runs the credential's Test and shows its banner). Builds on nodes-panel.js (browser, sign-in).
 */
const fs = require('node:fs');
const path = require('node:path');

const SELECTORS = {
	createCredential: '[data-test-id="add-resource-credential"]',
	typeSearch: '[data-test-id="new-credential-type-select"] input',
	typeOption: '[data-test-id="new-credential-type-select-option"]',
	typeContinue: '[data-test-id="new-credential-type-button"]',
	modal: '[data-test-id="editCredential-modal"]',
	dialog: '[data-test-id="credential-edit-dialog"]',
	config: '[data-test-id="node-credentials-config-container"]',
	connectionForm: 'form[data-test-id="credential-connection-parameter"]',
	save: '[data-test-id="credential-save-button"]',
};

/** The credential type list and a parameter's options filter as the user types; they settle within a few frames. */
const SETTLE_MS = 600;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Text of the visible elements matching `selector`, in page order. */
async function visibleTexts(page, selector) {
	return await page.$$eval(selector, (elements) =>
		elements
			.filter((element) => element.getClientRects().length > 0)
			.map((element) => element.innerText.trim()),
	);
}

/**
 * From the credentials list: Create credential, type `search` into "Search for app...", pick the
 * type named `typeName` and Continue. Resolves with the types the search offered, once the
 * credential's dialog is open.
 */
async function openNewCredential(page, baseUrl, search, typeName) {
	await page.goto(`${baseUrl}/home/credentials`, { waitUntil: 'networkidle2' });
	await page.click(SELECTORS.createCredential);
	const box = await page.waitForSelector(SELECTORS.typeSearch, { visible: true });
	await box.type(search);
	await sleep(SETTLE_MS);
	const offered = await visibleTexts(page, SELECTORS.typeOption);
	const options = await page.$$(SELECTORS.typeOption);
	let chosen = false;
	for (const option of options) {
		if ((await option.evaluate((el) => el.innerText.trim())) === typeName) {
			await option.click();
			chosen = true;
			break;
		}
	}
	if (!chosen)
		throw new Error(`"${search}" offers no "${typeName}"; offered: ${offered.join(', ')}`);
	// Continue is covered by the closing list until it has gone.
	await page.waitForSelector(SELECTORS.typeOption, { hidden: true });
	await page.click(SELECTORS.typeContinue);
	await page.waitForSelector(SELECTORS.dialog, { visible: true });
	return offered;
}

/**
 * What the open credential dialog shows on its Connection page: the notices' text, the fields'
 * labels (without the required mark), and whether every notice sits above the first field.
 */
async function credentialForm(page) {
	return await page.$$eval(SELECTORS.connectionForm, (forms) => {
		const shown = (element) => element.getClientRects().length > 0;
		const notices = forms.flatMap((form) => [...form.querySelectorAll('.notice')]).filter(shown);
		const labels = forms
			.flatMap((form) => [...form.querySelectorAll('label')])
			.filter(shown)
			.map((label) => ({
				text: (label.querySelector('span')?.innerText ?? label.innerText)
					.replace(/\s*\*\s*$/, '')
					.trim(),
				top: label.getBoundingClientRect().top,
			}));
		const firstFieldTop = Math.min(...labels.map((label) => label.top));
		return {
			notices: notices.map((notice) => notice.innerText.trim()),
			fields: labels.map((label) => label.text),
			noticesAboveFields:
				notices.length > 0 &&
				notices.every((notice) => notice.getBoundingClientRect().bottom <= firstFieldTop),
		};
	});
}

/**
 * Puts `value` into the credential field `name` the way pasting does: one input event with the
 * whole text. (Puppeteer's keystrokes, at machine speed, left only the last character of an API
 * key in the saved credential of n8n 2.41.1.)
 */
async function pasteIntoField(page, name, value) {
	const input = await page.waitForSelector(`[data-test-id="parameter-input-${name}"] input`, {
		visible: true,
	});
	await input.click({ count: 3 });
	await page.keyboard.press('Backspace');
	await page.evaluate((text) => document.execCommand('insertText', false, text), value);
	await sleep(SETTLE_MS);
	return await input.evaluate((el) => el.value);
}

/** The banner n8n shows in the dialog after the credential's Test (success or failure). */
const TEST_BANNER = `${SELECTORS.config} .el-tag--danger, ${SELECTORS.config} .el-tag--success`;

/**
 * Save, as the user clicks it: n8n saves the credential and runs its Test. Resolves with the Test's
 * result as n8n's REST API gave it to the editor ({status, message}), and what the user then
 * sees: the dialog closed (n8n closes it after a passing Test of a credential made from a node's
 * field) or the banner's text.
 */
async function saveAndReadTestResult(page) {
	const tested = page.waitForResponse(
		(response) =>
			response.url().includes('/rest/credentials/test') && response.request().method() === 'POST',
		{ timeout: 60_000 },
	);
	await page.click(SELECTORS.save);
	const answer = await (await tested).json();
	await page.waitForFunction(
		(dialog, banner) =>
			!document.querySelector(dialog) ||
			document.querySelector(dialog).getClientRects().length === 0 ||
			[...document.querySelectorAll(banner)].some(
				(element) =>
					element.getClientRects().length > 0 &&
					/tested successfully|connect with these settings/i.test(element.innerText),
			),
		{ timeout: 30_000 },
		SELECTORS.dialog,
		TEST_BANNER,
	);
	const open = await page.$(SELECTORS.dialog).then((d) => d?.isVisible() ?? false);
	return {
		result: answer.data ?? answer,
		dialogClosed: !open,
		banner: open ? await testBanner(page) : '',
	};
}

/** The visible Test banner's text, as shown now. */
async function testBanner(page) {
	const texts = await visibleTexts(page, TEST_BANNER);
	return texts.find((text) => /tested successfully|connect with these settings/i.test(text)) ?? '';
}

/** Whether the visible test banner is n8n's red one ("Couldn't connect with these settings"). */
async function testBannerIsRed(page) {
	return await page.$$eval(`${SELECTORS.config} .el-tag--danger`, (banners) =>
		banners.some((banner) => banner.getClientRects().length > 0),
	);
}

/**
 * Clicks "More details" in the red test banner and reads what n8n then shows under it: the Test's
 * message, and the words of its first line as rendered (the line a user reads first).
 */
async function testBannerDetails(page) {
	const [link] = await page.$$(
		`xpath/.//*[@data-test-id="node-credentials-config-container"]//*[contains(@class,"el-tag--danger")]//*[normalize-space()="More details"]`,
	);
	if (!link) throw new Error('the red test banner shows no "More details"');
	await link.click();
	await sleep(SETTLE_MS);
	return await page.$eval(`${SELECTORS.config} .el-tag--danger [class*="_details_"]`, (element) => {
		const text = element.innerText.trim();
		const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
		let firstTop;
		let firstLine = '';
		for (let node = walker.nextNode(); node; node = walker.nextNode()) {
			for (let i = 0; i < node.data.length; i++) {
				const range = document.createRange();
				range.setStart(node, i);
				range.setEnd(node, i + 1);
				const rect = [...range.getClientRects()].find((r) => r.width > 0);
				if (rect) {
					firstTop ??= Math.round(rect.top);
					if (Math.abs(Math.round(rect.top) - firstTop) > 2)
						return { text, firstLine: firstLine.trim() };
				}
				if (firstTop !== undefined) firstLine += node.data[i];
			}
		}
		return { text, firstLine: firstLine.trim() };
	});
}

/** A PNG of the credential dialog alone, written to `path`. */
async function screenshotCredentialDialog(page, path) {
	const dialog = await page.waitForSelector(`${SELECTORS.modal} .el-dialog, ${SELECTORS.modal}`, {
		visible: true,
	});
	await dialog.screenshot({ path });
	return path;
}

/** In the open node settings, picks `label` in the options parameter `name`. */
async function chooseParameterOption(page, name, label) {
	const select = await page.waitForSelector(`[data-test-id="parameter-input-${name}"]`, {
		visible: true,
	});
	await select.click();
	await sleep(SETTLE_MS);
	const [item] = await page.$$(
		`xpath/.//li[contains(@class,"el-select-dropdown__item")][.//*[normalize-space()="${label}"] or normalize-space()="${label}"]`,
	);
	if (!item) throw new Error(`parameter ${name} offers no "${label}"`);
	await item.click();
	await sleep(SETTLE_MS);
}

/** In the open node settings, types `text` into the options parameter `name`; the options it lists then. */
async function parameterOptionsFor(page, name, text) {
	const input = await page.waitForSelector(`[data-test-id="parameter-input-${name}"] input`, {
		visible: true,
	});
	await input.click();
	await input.type(text);
	await sleep(SETTLE_MS);
	return await visibleTexts(page, 'li.el-select-dropdown__item');
}

/**
 * What the user did, one entry per action: a click on a control (named by its text on the screen)
 * or a text typed or pasted into a field. Choosing in a dropdown is two actions: opening it and
 * clicking the option.
 */
function actionLog() {
	const actions = [];
	return {
		actions,
		/** Clicks `element` and records it by `name`, or else by its text as the screen shows it. */
		async click(element, name) {
			const text = name ?? (await element.evaluate((el) => el.innerText?.trim() ?? ''));
			await element.click();
			actions.push({ kind: 'click', text });
			return text;
		},
		typed(field) {
			actions.push({ kind: 'type', text: field });
		},
	};
}

/** The first visible element with exactly the text `text` among `selector`'s matches. */
async function visibleWithText(page, selector, text) {
	await page.waitForFunction(
		(css, wanted) =>
			[...document.querySelectorAll(css)].some(
				(el) => el.getClientRects().length > 0 && el.innerText?.trim() === wanted,
			),
		{ timeout: 30_000 },
		selector,
		text,
	);
	for (const element of await page.$$(selector)) {
		const matches = await element.evaluate(
			(el, wanted) => el.getClientRects().length > 0 && el.innerText?.trim() === wanted,
			text,
		);
		if (matches) return element;
	}
	throw new Error(`no visible "${text}" among ${selector}`);
}

const KEY_SELECTORS = {
	settingsApi: '[data-test-id="settings-api"]',
	createKey: 'button',
	label: '[data-test-id="api-key-label"] input, input[data-test-id="api-key-label"]',
	expiration: '[data-test-id="expiration-select"]',
	option: 'li.el-select-dropdown__item',
	custom: '[data-test-id="scopes-mode-custom"]',
	dataTables: '[data-test-id="scope-group-dataTables"]',
	scopesCount: '[data-test-id="scopes-count"]',
	modalButton: '[data-test-id="createOrEditApiKey-modal"] button',
	copy: '[data-test-id="copy-input-button"]',
};

/**
 * From n8n's Settings page, makes the record's key as the README says: n8n API -> Create API key,
 * a Label, Expiration Never, Scopes Custom with Data tables ticked, Save, and the copy button.
 * Resolves with the key as the copy button put it on the clipboard, and the scopes count shown.
 */
async function createRecordKeyAsTheReadmeSays(page, baseUrl, log) {
	await page.goto(`${baseUrl}/settings`, { waitUntil: 'networkidle2' });
	await page
		.browserContext()
		.overridePermissions(baseUrl, [
			'clipboard-read',
			'clipboard-write',
			'clipboard-sanitized-write',
		]);
	await log.click(await page.waitForSelector(KEY_SELECTORS.settingsApi, { visible: true }));
	await log.click(await visibleWithText(page, KEY_SELECTORS.createKey, 'Create API key'));
	const label = await page.waitForSelector(KEY_SELECTORS.label, { visible: true });
	// n8n focuses the Label field when the dialog opens.
	await label.type('contact center record');
	log.typed('Label');
	await log.click(
		await page.waitForSelector(KEY_SELECTORS.expiration, { visible: true }),
		'Expiration',
	);
	await sleep(SETTLE_MS);
	await log.click(await visibleWithText(page, KEY_SELECTORS.option, 'Never'));
	await sleep(SETTLE_MS);
	const custom = await page.waitForSelector(KEY_SELECTORS.custom, { visible: true });
	await log.click(custom, 'Custom');
	let dataTables = await page
		.waitForSelector(KEY_SELECTORS.dataTables, { visible: true, timeout: 10_000 })
		.catch(() => undefined);
	if (dataTables === undefined) {
		// On a busy machine the closing Expiration dropdown can take the click: the same step again,
		// not one more for the user.
		await custom.click();
		dataTables = await page.waitForSelector(KEY_SELECTORS.dataTables, { visible: true });
	}
	await sleep(SETTLE_MS);
	const countBefore = await page.evaluate(
		(css) => document.querySelector(css)?.innerText.trim() ?? '',
		KEY_SELECTORS.scopesCount,
	);
	await log.click(dataTables, 'Data tables');
	// Save takes what the form holds once it has re-rendered: the count shows the ticked scopes
	// (on a busy machine the count may lag the click).
	await page.waitForFunction(
		(css, before) => {
			const text = document.querySelector(css)?.innerText.trim() ?? '0 of';
			return !/^0 of/.test(text) && text !== before;
		},
		{ timeout: 15_000 },
		KEY_SELECTORS.scopesCount,
		countBefore,
	);
	const scopesCount = await page.$eval(KEY_SELECTORS.scopesCount, (el) => el.innerText.trim());
	await sleep(SETTLE_MS);
	await log.click(await visibleWithText(page, KEY_SELECTORS.modalButton, 'Save'));
	await log.click(await page.waitForSelector(KEY_SELECTORS.copy, { visible: true }), 'copy');
	await sleep(SETTLE_MS);
	const key = await page.evaluate(async () => await navigator.clipboard.readText());
	// "API key created successfully" stays open until Done.
	await log.click(await visibleWithText(page, KEY_SELECTORS.modalButton, 'Done'));
	return { key, scopesCount };
}

/**
 * In the open node settings, opens the dialog of a new credential from the node's field named
 * `fieldLabel`: its "Connect to …" button when there is no credential of the type yet, else its
 * list's "Create new credential".
 */
async function createCredentialFromNodeField(page, fieldLabel, log) {
	const slots = await page.$$('[data-test-id="node-credentials-slot"]');
	for (const slot of slots) {
		const label = await slot.$eval(
			'[data-test-id="credentials-label"] label, [data-test-id="credentials-label"]',
			(el) => el.innerText.split('\n')[0].trim(),
		);
		if (label !== fieldLabel) continue;
		const empty = await slot.$(
			'[data-test-id="node-credentials-empty-state"] button, [data-test-id="node-credentials-empty-state"]',
		);
		if (empty) {
			await log.click(empty);
		} else {
			await log.click(await slot.$('[data-test-id="node-credentials-select"]'), fieldLabel);
			await sleep(SETTLE_MS);
			await log.click(
				await visibleWithText(
					page,
					'[data-test-id="node-credentials-select-item-new"]',
					'Create new credential',
				),
			);
		}
		await page.waitForSelector(SELECTORS.dialog, { visible: true });
		return;
	}
	throw new Error(`the node has no credential field "${fieldLabel}"`);
}

/**
 * The open node settings' credential fields, top to bottom: each field's label and what it
 * shows (the selected credential's name, or its "Connect to …" button's text).
 */
async function nodeCredentialFields(page) {
	return await page.$$eval('[data-test-id="node-credentials-slot"]', (slots) =>
		slots.map((slot) => {
			const empty = slot.querySelector('[data-test-id="node-credentials-empty-state"]');
			const input = slot.querySelector('[data-test-id="node-credentials-select"] input');
			return {
				label: (slot.querySelector('[data-test-id="credentials-label"]')?.innerText ?? '')
					.split('\n')[0]
					.trim(),
				selected: empty ? '' : (input?.value ?? '').trim(),
				top: slot.getBoundingClientRect().top,
				bottom: slot.getBoundingClientRect().bottom,
			};
		}),
	);
}

/** The README's section under `heading`, up to the next section of the README's top level. */
function readmeSection(heading) {
	const readme = fs.readFileSync(path.join(__dirname, '../../README.md'), 'utf8');
	const start = readme.indexOf(heading);
	if (start < 0) throw new Error(`the README has no "${heading}"`);
	const end = readme.indexOf('\n## ', start);
	return readme.slice(start, end < 0 ? undefined : end);
}

module.exports = {
	SELECTORS,
	openNewCredential,
	credentialForm,
	pasteIntoField,
	saveAndReadTestResult,
	testBanner,
	testBannerIsRed,
	testBannerDetails,
	screenshotCredentialDialog,
	chooseParameterOption,
	parameterOptionsFor,
	actionLog,
	createRecordKeyAsTheReadmeSays,
	createCredentialFromNodeField,
	nodeCredentialFields,
	readmeSection,
};
