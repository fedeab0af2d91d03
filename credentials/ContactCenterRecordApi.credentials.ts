import type { Icon, ICredentialType, INodeProperties } from 'n8n-workflow';

/**
 * Where the package keeps its durable record of what was already done (write backs processed,
 * messages sent once): a data table of this n8n, reached through n8n's own public API with an n8n
 * API key. n8n refuses its internal data table helpers to community nodes, and its other stores
 * (static data, processed_data) rewrite one whole value per write; through the API every record is
 * its own row, written at once and seen by every n8n process.
 *
 * No `authenticate` block and no `test` request, on purpose: n8n's HTTP Request node (and an AI
 * agent's HTTP tool) offers under "Predefined Credential Type" only credentials that have
 * `authenticate` (or extend OAuth), and applies only that block. Without it no other node can send
 * the key anywhere; the package's record calls add it themselves, only to the credential's n8n API
 * URL. The nodes test the credential (`testedBy: contactCenterRecordApiTest`).
 */
export class ContactCenterRecordApi implements ICredentialType {
	name = 'contactCenterRecordApi';

	displayName = 'Contact Center Record API';

	icon: Icon = {
		light: 'file:../icons/contactCenter.svg',
		dark: 'file:../icons/contactCenter.dark.svg',
	};

	documentationUrl =
		'https://github.com/n8n-nodes-contact-center/n8n-nodes-contact-center/blob/main/docs/credentials.md';

	properties: INodeProperties[] = [
		{
			displayName:
				'Make the key in Settings -> n8n API -> Create API key: Expiration Never, Scopes Custom with Data tables ticked. Paste it below into n8n API Key. A failed test says why under More details.',
			name: 'setupNotice',
			type: 'notice',
			default: '',
		},
		{
			displayName: 'n8n API URL',
			name: 'baseUrl',
			type: 'string',
			default: 'http://localhost:5678/api/v1',
			required: true,
			placeholder: 'e.g. https://n8n.example.com/api/v1',
			description:
				"The public API URL of this n8n instance: its editor URL followed by /api/v1. In queue mode every worker and webhook process must reach it: use the main instance's internal address. The key is sent only to this address.",
		},
		{
			displayName: 'n8n API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description:
				'An API key of this n8n, made as described above (Settings -> n8n API -> Create API key). Only the Contact Center nodes can use it: it is not offered to HTTP Request nodes.',
		},
		{
			displayName: 'Data Table Name',
			name: 'dataTableName',
			type: 'string',
			default: 'contact_center_record',
			required: true,
			placeholder: 'e.g. contact_center_record',
			description:
				"The data table that holds the record. Created with its columns in the API key user's personal project when first needed (when a workflow using it is activated, or at its first write back or Send Once message); keep one per n8n instance.",
		},
		{
			displayName: 'Custom Storage Limit',
			name: 'customStorageLimit',
			type: 'boolean',
			default: false,
			description:
				"Whether this n8n sets N8N_DATA_TABLES_MAX_SIZE_BYTES. Leave off for n8n's default limit (200 MB): runs warn when the data tables reach 80 % of it.",
		},
		{
			displayName: 'Storage Limit (MB)',
			name: 'storageLimitMb',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: 200,
			displayOptions: { show: { customStorageLimit: [true] } },
			description:
				"This n8n's limit for all data tables together: N8N_DATA_TABLES_MAX_SIZE_BYTES in MB. n8n's API does not tell it, and runs warn at 80 % of it.",
		},
	];
}
