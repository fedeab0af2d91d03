import type {
	IAuthenticateGeneric,
	Icon,
	ICredentialTestRequest,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

/**
 * Where the package keeps its durable record of what was already done (write backs processed):
 * a data table of this n8n, reached through n8n's own public API with an n8n API key. n8n refuses
 * its internal data table helpers to community nodes, and its other stores (static data,
 * processed_data) rewrite one whole value per write; through the API every record is its own row,
 * written at once and seen by every n8n process.
 */
export class ContactCenterRecordApi implements ICredentialType {
	name = 'contactCenterRecordApi';

	displayName = 'Contact Center Record API';

	icon: Icon = {
		light: 'file:../icons/contactCenter.svg',
		dark: 'file:../icons/contactCenter.dark.svg',
	};

	documentationUrl =
		'https://github.com/n8n-nodes-contact-center/n8n-nodes-contact-center?tab=readme-ov-file#contact-center-record-api-contactcenterrecordapi';

	properties: INodeProperties[] = [
		{
			displayName: 'n8n API URL',
			name: 'baseUrl',
			type: 'string',
			default: 'http://localhost:5678/api/v1',
			required: true,
			placeholder: 'e.g. https://n8n.example.com/api/v1',
			description:
				"The public API URL of this n8n instance (its editor URL followed by /api/v1). In queue mode every worker and webhook process must reach it: use the main instance's internal address.",
		},
		{
			displayName: 'n8n API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description:
				'An API key of this n8n (Settings -> n8n API -> Create an API key). It needs the data table scopes (dataTable:create, dataTable:list, dataTableRow:create, dataTableRow:read, dataTableRow:update, dataTableRow:delete) if your n8n offers key scopes.',
		},
		{
			displayName: 'Data Table Name',
			name: 'dataTableName',
			type: 'string',
			default: 'contact_center_record',
			required: true,
			placeholder: 'e.g. contact_center_record',
			description:
				"The data table that holds the record. Created with its columns in the API key owner's personal project when first needed (when a workflow using it is activated, or at its first write back or Send Once message); keep one per n8n instance.",
		},
	];

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			headers: {
				'X-N8N-API-KEY': '={{ $credentials.apiKey }}',
			},
		},
	};

	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{ $credentials.baseUrl.replace(/\\/+$/, "") }}',
			url: '/data-tables',
			qs: { limit: 1 },
		},
	};
}
