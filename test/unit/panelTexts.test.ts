/**
 * The texts n8n's panels show in full only when short: a notice box, and an option's description
 * in an options dropdown (n8n clamps it at two lines and cuts the rest with "…"; n8n's own nodes
 * keep it to one). Longer explanations belong in the docs page the node links. The limits are
 * guards taken from what Chromium rendered against n8n 2.41.1 in a 1400 px wide window: a notice of
 * 79 characters took two lines of the Parameters tab, an option description of 58 characters one
 * line of its dropdown and one of 63 two. test/e2e/editor.e2e.test.ts checks the rendered lines.
 */
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { ContactCenterBaseUrlApi } from '../../credentials/ContactCenterBaseUrlApi.credentials';
import { ContactCenterOAuth2Api } from '../../credentials/ContactCenterOAuth2Api.credentials';
import { ContactCenterRecordApi } from '../../credentials/ContactCenterRecordApi.credentials';
import { ContactCenterSigningSecretApi } from '../../credentials/ContactCenterSigningSecretApi.credentials';
import { ContactCenter } from '../../nodes/ContactCenter/ContactCenter.node';
import { ContactCenterTrigger } from '../../nodes/ContactCenterTrigger/ContactCenterTrigger.node';

export const NOTICE_MAX = 120;
/** The credential dialog is wider: a notice of 117 characters took one line there. */
export const CREDENTIAL_NOTICE_MAX = 200;
export const OPTION_MAX = 58;

interface Text {
	where: string;
	text: string;
}

function walk(properties: INodeProperties[], where: string, notices: Text[], options: Text[]) {
	for (const property of properties) {
		const here = `${where} > ${property.displayName || property.name}`;
		if (property.type === 'notice') notices.push({ where: here, text: property.displayName });
		for (const option of property.options ?? []) {
			if ('values' in option) {
				walk(option.values, here, notices, options);
			} else if ('value' in option) {
				const { name, description } = option as INodePropertyOptions;
				if (description && ['options', 'multiOptions'].includes(property.type)) {
					options.push({ where: `${here} > ${name}`, text: description });
				}
			} else {
				walk([option as INodeProperties], here, notices, options);
			}
		}
	}
}

const notices: Text[] = [];
const credentialNotices: Text[] = [];
const optionDescriptions: Text[] = [];
walk(new ContactCenter().description.properties, 'Contact Center', notices, optionDescriptions);
walk(new ContactCenterTrigger().description.properties, 'Trigger', notices, optionDescriptions);
for (const credential of [
	new ContactCenterBaseUrlApi(),
	new ContactCenterOAuth2Api(),
	new ContactCenterRecordApi(),
	new ContactCenterSigningSecretApi(),
]) {
	walk(credential.properties, credential.displayName, credentialNotices, optionDescriptions);
}

const tooLong = (texts: Text[], max: number) =>
	texts
		.filter(({ text }) => text.length > max)
		.map(({ where, text }) => `${where} (${text.length})`);

test('the nodes and credentials have notices and option descriptions to check', () => {
	expect(notices.length).toBeGreaterThanOrEqual(4);
	expect(credentialNotices.length).toBeGreaterThanOrEqual(1);
	expect(optionDescriptions.length).toBeGreaterThanOrEqual(20);
});

test(`every notice of the nodes fits two lines (at most ${NOTICE_MAX} characters)`, () => {
	expect(tooLong(notices, NOTICE_MAX)).toEqual([]);
});

test(`every notice of the credentials fits two lines of the dialog (at most ${CREDENTIAL_NOTICE_MAX} characters)`, () => {
	expect(tooLong(credentialNotices, CREDENTIAL_NOTICE_MAX)).toEqual([]);
});

test(`every option description fits one line of its dropdown (at most ${OPTION_MAX} characters)`, () => {
	expect(tooLong(optionDescriptions, OPTION_MAX)).toEqual([]);
});
