/* eslint-disable @typescript-eslint/no-explicit-any -- test code: the browser helpers are plain JS, untyped */
/**
 * n8n's editor in a real browser: headless Chromium (Debian's package) through puppeteer-core,
 * against one real n8n (2.41.1) with the packed package installed, shared by three suites that
 * each sign in on a page of their own in a fresh browser context, with no credential in n8n (as in
 * a fresh n8n; nodes-panel.js startEditor):
 * - editor/recordCredentialDialog.ts: the record credential's dialog and the README's steps;
 * - editor/nodesPanel.ts: what the nodes panel finds;
 * - editor/panelTexts.ts: what a new user reads in the node settings;
 * - editor/fieldsAndTestRuns.ts: Metric's and the template's fields, the signing secret dialog, a
 *   lookup's test run.
 * They need the same n8n settings, so one n8n start and one Chromium serve all three instead of one
 * each. The dialog suite comes first: it follows the README's steps from n8n's Settings page, as
 * in an n8n where nobody has made an API key yet.
 * CONTACT_CENTER_PACKAGE_TARBALL installs another build of the package instead.
 */
import * as helpersModule from './helpers';
import * as panelModule from './nodes-panel';
import { describeFieldsAndTestRuns } from './editor/fieldsAndTestRuns';
import { describeNodesPanel } from './editor/nodesPanel';
import { describePanelTexts } from './editor/panelTexts';
import { describeRecordCredentialDialog } from './editor/recordCredentialDialog';

type Json = Record<string, any>;
const panel: Json = panelModule;
const { report }: Json = helpersModule;

let editor: Json;

beforeAll(async () => {
	editor = await panel.startEditor((line: string) => report(`[e2e editor] ${line}`));
}, 900_000);

afterAll(async () => {
	await editor?.stop();
}, 120_000);

const session = () => editor;

describeRecordCredentialDialog(session);
describeNodesPanel(session);
describePanelTexts(session);
describeFieldsAndTestRuns(session);
