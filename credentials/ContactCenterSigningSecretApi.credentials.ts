import type { Icon, ICredentialType, INodeProperties } from 'n8n-workflow';

/**
 * The shared secret of the CRM integration (interface C). The service issues one per configured
 * URL (lookup, write back); the Contact Center Trigger checks the X-Service-Signature header of
 * every call with it. There is no HTTP API that could confirm the secret, so the trigger's
 * credential test (`testedBy`) checks what can be checked locally: that it is valid hexadecimal.
 * n8n 2.41.1's credential dialog shows a passing test only as "Connection tested successfully",
 * never its message (`useCredentialForm`, `CredentialConfig`), so the notice says what it checks.
 * Without a test the dialog would show no banner, but n8n's linter and community package scanner
 * require one (`credential-test-required`; the scanner ignores inline disables), and a red banner
 * for a secret that may be right would be false.
 */
export class ContactCenterSigningSecretApi implements ICredentialType {
	name = 'contactCenterSigningSecretApi';

	displayName = 'Contact Center Signing Secret API';

	icon: Icon = {
		light: 'file:../icons/contactCenter.svg',
		dark: 'file:../icons/contactCenter.dark.svg',
	};

	documentationUrl =
		'https://github.com/n8n-nodes-contact-center/n8n-nodes-contact-center/blob/main/docs/credentials.md';

	properties: INodeProperties[] = [
		{
			displayName:
				'The test checks only that the secret is hexadecimal: the service alone knows its key. A wrong secret shows as refused calls (401), reported at the trigger.',
			name: 'testNotice',
			type: 'notice',
			default: '',
		},
		{
			displayName: 'Signing Secret',
			name: 'secret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			placeholder: 'e.g. 3f1c9a7be24d5086f7a3c1e9b0d2486a…',
			description:
				'The hexadecimal secret key the service shows after you save a URL under Settings -> Integration & APIs -> CRM. Paste it as shown: an even number of digits 0-9 and a-f (either case). Each URL gets its own secret, so use one credential per endpoint unless the service shows the same key.',
		},
	];
}
