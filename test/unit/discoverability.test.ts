/**
 * The node descriptions' texts n8n shows (action names; the canvas subtitle: canvasSubtitle.test.ts),
 * the codex files' node types, and the package metadata every link derives from. What the nodes
 * panel's search finds is measured in a browser: test/e2e/editor.e2e.test.ts.
 */
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { ContactCenterOAuth2Api } from '../../credentials/ContactCenterOAuth2Api.credentials';
import { ContactCenterSigningSecretApi } from '../../credentials/ContactCenterSigningSecretApi.credentials';
import actionCodex from '../../nodes/ContactCenter/ContactCenter.node.json';
import { ContactCenter } from '../../nodes/ContactCenter/ContactCenter.node';
import triggerCodex from '../../nodes/ContactCenterTrigger/ContactCenterTrigger.node.json';
import packageJson from '../../package.json';
import { FOUND_WORDS, WORDS } from '../e2e/editor/panelWords';

const { description } = new ContactCenter();

function optionsOf(name: string, resource?: string): INodePropertyOptions[] {
	const property = description.properties.find(
		(p: INodeProperties) =>
			p.name === name && (!resource || p.displayOptions?.show?.resource?.includes(resource)),
	);
	return (property?.options ?? []) as INodePropertyOptions[];
}

const operations = optionsOf('resource').flatMap((resource) =>
	optionsOf('operation', resource.value as string).map((operation) => ({
		resource: resource.value as string,
		operation,
	})),
);

/**
 * The first test of n8n's nodes panel search (2.41.1, `sublimeSearch`): a string can match only
 * when every letter typed occurs in it in order, case aside. An entry none of whose strings
 * (display name, codex aliases) passes is not listed at all.
 */
const containsInOrder = (typed: string, text: string) => {
	let next = 0;
	for (const letter of text.toLowerCase()) if (letter === typed[next]?.toLowerCase()) next++;
	return typed.length > 0 && next === typed.length;
};
const searched = ['Contact Center', ...actionCodex.alias];

describe('codex files', () => {
	// Where a word the user types puts the nodes in n8n's nodes panel shows only in the panel:
	// test/e2e/editor.e2e.test.ts types them in a browser (docs/nodes-panel-search.md).
	it('name their own node type', () => {
		expect(actionCodex.node).toBe(`${packageJson.name}.contactCenter`);
		expect(triggerCodex.node).toBe(`${packageJson.name}.contactCenterTrigger`);
	});

	it.each([...WORDS, ...FOUND_WORDS, 'agent'])(
		'"%s", typed in the nodes panel, matches the entry\'s name or an alias',
		(word) => {
			expect({ word, matches: searched.filter((text) => containsInOrder(word, text)) }).toEqual({
				word,
				matches: expect.arrayContaining([expect.any(String)]),
			});
		},
	);

	// No n8n node matched these words (the panel listed nothing for them): an alias spelled as the
	// word scores the most any string can, which the browser test measures first.
	it.each(['sms status', 'mass sms', 'delivery failed'])('"%s" is an alias as typed', (word) => {
		expect(actionCodex.alias.map((alias) => alias.toLowerCase())).toContain(word);
	});

	it('the word containing test reads as the panel does', () => {
		expect(containsInOrder('sms', 'SyncroMSP')).toBe(true);
		expect(containsInOrder('sms status', 'Message Status')).toBe(false);
	});
});

describe('Contact Center node description', () => {
	it('says what the node does', () => {
		expect(description.description).toMatch(/SMS/);
		expect(description.description).toMatch(/WhatsApp/);
		expect(description.description).toMatch(/metrics/);
	});

	it('has an operation for each resource', () => {
		expect(operations.map(({ resource, operation }) => `${resource}:${operation.value}`)).toEqual([
			'proactiveMessage:send',
			'proactiveMessage:getStatus',
			'proactiveMessage:getFailed',
			'proactiveMessage:getDeliveryReport',
			'metric:get',
			'metric:getSnapshot',
			'crmLookup:respond',
		]);
	});

	it.each(operations)(
		'$resource / $operation.name: action name in sentence case, without articles',
		({ operation }) => {
			const withoutAcronyms = operation.action?.replace(/\bCRM\b/g, '');
			expect(withoutAcronyms).toMatch(/^[A-Z][^A-Z]*$/);
			expect(operation.action).not.toMatch(/\b(a|an|the)\b/i);
		},
	);
});

describe('package metadata', () => {
	// package.json's repository.url is the one place that names the GitHub owner and repository.
	const repositoryUrl = packageJson.repository.url
		.replace(/^git\+/, '')
		.replace(/\.git$/, '') as string;

	it('derives homepage, bugs and author from repository.url', () => {
		expect(repositoryUrl).toMatch(/^https:\/\/github\.com\/[^/]+\/[^/]+$/);
		expect(packageJson.homepage).toBe(`${repositoryUrl}#readme`);
		expect(packageJson.bugs.url).toBe(`${repositoryUrl}/issues`);
		expect(packageJson.author.url).toBe(repositoryUrl.replace(/\/[^/]+$/, ''));
		expect(packageJson.author.name).toBeTruthy();
		expect(packageJson.author.email).toMatch(/@/);
	});

	it.each([
		['the Contact Center codex', JSON.stringify(actionCodex.resources)],
		['the Contact Center Trigger codex', JSON.stringify(triggerCodex.resources)],
		['the OAuth2 credential', new ContactCenterOAuth2Api().documentationUrl],
		['the signing secret credential', new ContactCenterSigningSecretApi().documentationUrl],
	])('%s links to the same repository', (_, text) => {
		const links = text.match(/https:\/\/github\.com\/[^'"#?]+/g);
		expect(links).not.toBeNull();
		for (const link of links ?? [])
			expect(link.replace(/\/blob\/main\/docs\/[a-z-]+\.md$/, '')).toBe(repositoryUrl);
	});
});
