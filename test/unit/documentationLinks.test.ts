/**
 * Every link into the documentation lands somewhere: the codex and credential documentation URLs
 * n8n shows in the editor point at README headings that exist, and every relative link of the
 * README, the docs/ pages and the changelog names an existing file (and heading).
 */
import { ContactCenterBaseUrlApi } from '../../credentials/ContactCenterBaseUrlApi.credentials';
import { ContactCenterOAuth2Api } from '../../credentials/ContactCenterOAuth2Api.credentials';
import { ContactCenterRecordApi } from '../../credentials/ContactCenterRecordApi.credentials';
import { ContactCenterSigningSecretApi } from '../../credentials/ContactCenterSigningSecretApi.credentials';
import packageJson from '../../package.json';
import * as documentationModule from './documentation';

const documentation = documentationModule as {
	headingAnchor: (heading: string) => string;
	anchorsOf: (file: string) => Set<string>;
	brokenRelativeLinksOf: (file: string) => string[];
	markdownFiles: () => string[];
	codexGithubUrls: () => Array<[string, string]>;
};

const repositoryUrl = packageJson.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');
const codexUrls = documentation.codexGithubUrls();

const documentationUrls: Array<[string, string]> = [
	...codexUrls,
	...[
		new ContactCenterBaseUrlApi(),
		new ContactCenterOAuth2Api(),
		new ContactCenterRecordApi(),
		new ContactCenterSigningSecretApi(),
	].map((credential): [string, string] => [credential.name, String(credential.documentationUrl)]),
];

describe('documentation links', () => {
	it('reads the URLs of both codex files', () => {
		expect(new Set(codexUrls.map(([file]) => file))).toEqual(
			new Set([
				'nodes/ContactCenter/ContactCenter.node.json',
				'nodes/ContactCenterTrigger/ContactCenterTrigger.node.json',
			]),
		);
	});

	it('computes the anchors GitHub gives headings', () => {
		expect(documentation.headingAnchor('Proactive Message -> Send')).toBe(
			'proactive-message---send',
		);
		expect(documentation.headingAnchor('Where "once" stops')).toBe('where-once-stops');
		expect(documentation.headingAnchor('1. Send at the rate limit')).toBe(
			'1-send-at-the-rate-limit',
		);
		expect(documentation.headingAnchor('`npm start`')).toBe('npm-start');
	});

	// n8n appends `?utm_source=…` to these URLs: after a `#` it would become part of the fragment,
	// and the page would open at its top. So each links a docs page, without a fragment.
	it.each(documentationUrls)(
		'%s links to a docs page that exists, without a fragment: %s',
		(_, url) => {
			const match = /^(https:\/\/github\.com\/[^?#]+)\/blob\/main\/(docs\/[a-z-]+\.md)$/.exec(url);
			expect(match?.[1]).toBe(repositoryUrl);
			expect(documentation.markdownFiles()).toContain(match?.[2]);
		},
	);

	it.each(documentation.markdownFiles())('every relative link of %s resolves', (file) => {
		expect(documentation.brokenRelativeLinksOf(file)).toEqual([]);
	});
});
