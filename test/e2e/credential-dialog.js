'use strict';
/**
 * Drives n8n's credential dialog and a node's parameter lists in headless Chromium, as a user does:
 * Credentials -> Create credential, search and pick a type, paste into the fields, Save (n8n then
 * runs the credential's Test and shows its banner). Builds on nodes-panel.js (browser, sign-in).
 */

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
 * Save: n8n saves the credential and runs its Test. Resolves with the banner's visible text once it
 * shows the outcome ("Please check the errors below" is the form's own, not the Test's).
 */
async function saveAndReadTestBanner(page) {
	await page.click(SELECTORS.save);
	await page.waitForFunction(
		(selector) =>
			[...document.querySelectorAll(selector)].some(
				(banner) =>
					banner.getClientRects().length > 0 &&
					/tested successfully|connect with these settings/i.test(banner.innerText),
			),
		{ timeout: 60_000 },
		TEST_BANNER,
	);
	return await testBanner(page);
}

/** The visible Test banner's text, as shown now. */
async function testBanner(page) {
	const texts = await visibleTexts(page, TEST_BANNER);
	return texts.find((text) => /tested successfully|connect with these settings/i.test(text)) ?? '';
}

/** Clicks the banner's "More details" link, which shows the Test's message; the banner's text then. */
async function expandTestDetails(page) {
	const [link] = await page.$$(`xpath/.//span[normalize-space()="More details"]`);
	if (!link) throw new Error(`the Test banner has no "More details": ${await testBanner(page)}`);
	await link.click();
	await sleep(SETTLE_MS);
	return await testBanner(page);
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

module.exports = {
	SELECTORS,
	openNewCredential,
	credentialForm,
	pasteIntoField,
	saveAndReadTestBanner,
	testBanner,
	expandTestDetails,
	screenshotCredentialDialog,
	chooseParameterOption,
	parameterOptionsFor,
};
