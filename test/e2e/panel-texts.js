'use strict';
/**
 * What the open node settings show, measured as rendered in Chromium: how many lines a notice and
 * an option's description take, where Send's credential fields sit, the URL the Docs link opens,
 * and a node's output table.
 */
const fs = require('node:fs');
const path = require('node:path');

const SETTLE_MS = 600;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * In the page: the lines an element's text takes as rendered, counted as the distinct tops of its
 * text's line boxes (independent of padding and line height).
 */
const LINES_OF = `(element) => {
	const range = document.createRange();
	range.selectNodeContents(element);
	return new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top))).size;
}`;

/** Every notice shown now (node settings or credential dialog): its text and its lines as rendered. */
async function noticeLines(page) {
	return await page.$$eval(
		'.notice',
		(notices, linesOf) => {
			const lines = new Function(`return ${linesOf}`)();
			return notices
				.filter((notice) => notice.getClientRects().length > 0)
				.map((notice) => ({ text: notice.innerText.trim(), lines: lines(notice) }));
		},
		LINES_OF,
	);
}

/**
 * Opens the options parameter `name` of the open node settings and reads each option: its name,
 * its description and the lines the description takes in full (n8n clamps it at two, with "…").
 * Closes the dropdown again.
 */
async function optionDescriptionLines(page, name) {
	const select = await page.waitForSelector(`[data-test-id="parameter-input-${name}"]`, {
		visible: true,
	});
	await select.click();
	await sleep(SETTLE_MS);
	const options = await page.$$eval('li.el-select-dropdown__item', (items) =>
		items
			.filter((item) => item.getClientRects().length > 0)
			.map((item) => {
				const description = item.querySelector('.option-description');
				const headline = item.querySelector('.option-headline');
				if (!description)
					return { name: (headline ?? item).innerText.trim(), description: '', lines: 0 };
				const lineHeight = parseFloat(getComputedStyle(description).lineHeight);
				return {
					name: (headline ?? item).innerText.trim(),
					description: description.innerText.trim(),
					// scrollHeight counts the lines the clamp hides too.
					lines: Math.round(description.scrollHeight / lineHeight),
					cut: description.scrollHeight > description.clientHeight + 1,
				};
			}),
	);
	await page.keyboard.press('Escape');
	await sleep(SETTLE_MS);
	return options;
}

/**
 * Where the open Send node's settings show Resource, Operation, the notice and Send Once (their tops
 * on the page), the notice's text and lines, and the height of the window.
 */
async function sendLayout(page) {
	return await page.evaluate((linesOf) => {
		const lines = new Function(`return ${linesOf}`)();
		const shown = (element) => element && element.getClientRects().length > 0;
		const top = (name) =>
			document.querySelector(`[data-test-id="parameter-input-${name}"]`)?.getBoundingClientRect()
				.top;
		const notice = [...document.querySelectorAll('[data-test-id="parameter-item"] .notice')].find(
			(element) => shown(element) && element.innerText.includes('Send Once'),
		);
		return {
			resourceTop: top('resource'),
			operationTop: top('operation'),
			sendOnceTop: top('sendOnce'),
			notice: notice?.innerText.trim() ?? '',
			noticeTop: notice?.getBoundingClientRect().top,
			noticeLines: notice ? lines(notice) : 0,
			viewportHeight: window.innerHeight,
		};
	}, LINES_OF);
}

/**
 * Clicks the open node settings' "Docs" link and resolves with the URL of the tab it opens (then
 * closed), as n8n builds it: the node's documentation URL with n8n's `?utm_source=…`.
 */
async function docsLinkTarget(page) {
	const browser = page.browser();
	const opened = new Promise((resolve) => {
		browser.once('targetcreated', (target) => resolve(target));
	});
	const [link] = await page.$$('xpath/.//a[normalize-space()="Docs"]');
	if (!link) throw new Error('the node settings show no "Docs" link');
	await link.click();
	const target = await Promise.race([
		opened,
		sleep(10_000).then(() => {
			throw new Error('the Docs link opened no tab');
		}),
	]);
	const url = target.url();
	const tab = await target.page().catch(() => null);
	await tab?.close().catch(() => undefined);
	await page.bringToFront();
	return url;
}

/**
 * The open node settings' output as its table shows it: the column headers and the cells of each
 * row, as text.
 */
async function outputTable(page) {
	await page.waitForSelector('[data-test-id="output-panel"] table', { visible: true });
	return await page.$eval('[data-test-id="output-panel"] table', (table) => ({
		columns: [...table.querySelectorAll('thead th')].map((th) => th.innerText.trim()),
		rows: [...table.querySelectorAll('tbody tr')].map((tr) =>
			[...tr.querySelectorAll('td')].map((td) => td.innerText.trim()),
		),
	}));
}

/** Whether this checkout has the file at `relativePath` (e.g. a docs page a link points to). */
function repoFileExists(relativePath) {
	return fs.existsSync(path.join(__dirname, '../..', relativePath));
}

module.exports = {
	repoFileExists,
	noticeLines,
	optionDescriptionLines,
	sendLayout,
	docsLinkTarget,
	outputTable,
};
