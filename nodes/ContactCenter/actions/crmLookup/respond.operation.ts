import {
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeProperties,
} from 'n8n-workflow';

import {
	buildAttributes,
	buildLookupFoundBody,
	buildLookupHttpResponse,
	LOOKUP_ANSWERED_FLAG,
	type LookupHttpResponse,
} from '../../../shared/lookupResponse';

const show = { show: { resource: ['crmLookup'], operation: ['respond'] } };

export const description: INodeProperties[] = [
	{
		displayName:
			'Answers the lookup that started this workflow (Trigger On "Lookup") with the first item; all items pass on',
		name: 'respondNotice',
		type: 'notice',
		default: '',
		displayOptions: show,
	},
	{
		displayName: 'Respond With',
		name: 'respondWith',
		type: 'options',
		displayOptions: show,
		options: [
			{
				name: 'Found (200 With Attributes)',
				value: 'found',
				description: 'Found: answer 200 with the attributes below',
			},
			{
				name: 'Not Found (404)',
				value: 'notFound',
				description: 'Answer 404: "no lookup found", attributes unchanged',
			},
		],
		default: 'found',
		description:
			'Whether the contact was found. To decide from the data, switch to an expression that returns "found" or "notFound", for example one that checks whether the search returned an email address.',
	},
	{
		displayName: 'Auto Confirm',
		name: 'autoConfirm',
		type: 'boolean',
		displayOptions: show,
		default: false,
		description:
			'Whether the service saves the attributes at once (true) or shows them to the agent, who confirms them (false). Ignored for Not Found.',
	},
	{
		displayName: 'Attributes Input',
		name: 'attributesInput',
		type: 'options',
		noDataExpression: true,
		displayOptions: show,
		options: [
			{
				name: 'Alias / Value Pairs',
				value: 'pairs',
				description: 'One row per attribute',
			},
			{
				name: 'JSON Object',
				value: 'json',
				description: 'One object, an entry per attribute (e.g. an expression)',
			},
		],
		default: 'pairs',
		description: 'How to give the attributes of a 200 answer',
	},
	{
		displayName: 'Attributes',
		name: 'attributes',
		type: 'fixedCollection',
		placeholder: 'Add Attribute',
		typeOptions: { multipleValues: true, sortable: true },
		displayOptions: { show: { ...show.show, attributesInput: ['pairs'] } },
		default: {},
		description:
			'The contact attributes to return, keyed by their alias (Settings -> Agent Workspace -> Contact Attributes). The service deletes the value of a CRM-managed attribute that is missing here or null, so list every CRM-managed attribute. Ignored for Not Found.',
		options: [
			{
				displayName: 'Attribute',
				name: 'attribute',
				values: [
					{
						displayName: 'Alias',
						name: 'alias',
						type: 'string',
						default: '',
						required: true,
						placeholder: 'e.g. email',
						description: 'The alias of the contact attribute, as configured in the service',
					},
					{
						displayName: 'Value',
						name: 'value',
						type: 'string',
						default: '',
						placeholder: 'e.g. {{ $json.email }}',
						description:
							'The value as text. Numbers and booleans are sent as text; an expression that returns null (or, with "Send Empty Values as Null", an empty value) deletes the value in the service.',
					},
				],
			},
		],
	},
	{
		displayName: 'Attributes (JSON)',
		name: 'attributesJson',
		type: 'json',
		displayOptions: { show: { ...show.show, attributesInput: ['json'] } },
		default: '{\n  "email": "",\n  "name": ""\n}',
		placeholder: '{ "email": "ana@example.com", "name": "Ana", "phone": null }',
		description:
			'An object whose keys are the attribute aliases (Settings -> Agent Workspace -> Contact Attributes) and whose values are text or null. The service deletes the value of a CRM-managed attribute that is missing here or null. Ignored for Not Found.',
	},
	{
		displayName: 'Send Empty Values as Null',
		name: 'emptyAsNull',
		type: 'boolean',
		displayOptions: show,
		default: true,
		description:
			'Whether an empty text value is sent as null, which deletes the value of a CRM-managed attribute in the service, instead of as an empty text',
	},
];

type Entries = Array<[alias: unknown, value: unknown]>;

function attributeEntries(this: IExecuteFunctions, itemIndex: number): Entries {
	const input = this.getNodeParameter('attributesInput', itemIndex, 'pairs') as string;
	if (input === 'json') {
		let value = this.getNodeParameter('attributesJson', itemIndex, '{}') as unknown;
		if (typeof value === 'string') {
			try {
				value = JSON.parse(value === '' ? '{}' : value);
			} catch (error) {
				throw new NodeOperationError(
					this.getNode(),
					`'Attributes (JSON)' is not valid JSON: ${(error as Error).message}`,
					{ itemIndex, description: 'Enter one JSON object, e.g. { "email": "ana@example.com" }' },
				);
			}
		}
		if (value === null || typeof value !== 'object' || Array.isArray(value)) {
			throw new NodeOperationError(this.getNode(), "'Attributes (JSON)' must be a JSON object", {
				itemIndex,
				description:
					'Enter one object whose keys are attribute aliases, e.g. { "email": "ana@example.com", "phone": null }',
			});
		}
		return Object.entries(value as IDataObject);
	}
	const pairs = this.getNodeParameter('attributes.attribute', itemIndex, []) as IDataObject[];
	return pairs.map((pair) => [pair.alias, pair.value]);
}

/** The HTTP answer for one item: 404, or 200 with `{autoConfirm, attributes}` (spec 2.10). */
export function buildResponse(this: IExecuteFunctions, itemIndex: number): LookupHttpResponse {
	const respondWith = this.getNodeParameter('respondWith', itemIndex, 'found') as unknown;
	if (respondWith === 'notFound') return buildLookupHttpResponse(undefined);
	if (respondWith !== 'found') {
		throw new NodeOperationError(
			this.getNode(),
			`'Respond With' is "${String(respondWith)}", which is neither "found" nor "notFound"`,
			{
				itemIndex,
				description:
					'Choose Found or Not Found, or make the expression return exactly "found" or "notFound"',
			},
		);
	}
	const emptyAsNull = this.getNodeParameter('emptyAsNull', itemIndex, true) as boolean;
	const built = buildAttributes(attributeEntries.call(this, itemIndex), emptyAsNull);
	if (!built.ok) {
		throw new NodeOperationError(
			this.getNode(),
			built.alias === ''
				? `An attribute ${built.detail}`
				: `The value of attribute '${built.alias}' ${built.detail}`,
			{
				itemIndex,
				description:
					'Give every attribute its alias from Settings -> Agent Workspace -> Contact Attributes, and a text value (or null to delete it)',
			},
		);
	}
	const autoConfirm = this.getNodeParameter('autoConfirm', itemIndex, false) as boolean;
	return buildLookupHttpResponse(buildLookupFoundBody(built.attributes, autoConfirm === true));
}

const isLookupTrigger = (node: { type: string; disabled?: boolean; parameters?: IDataObject }) =>
	/(^|\.)contactCenterTrigger$/.test(node.type) &&
	node.disabled !== true &&
	(node.parameters?.endpoint === undefined || node.parameters.endpoint === 'lookup');

/**
 * Answering anything but a lookup would answer the call that started the run, e.g. a write back
 * delivery with 200 before the workflow ran to its end.
 */
function assertInLookupWorkflow(this: IExecuteFunctions): void {
	const parents = this.getParentNodes(this.getNode().name, { includeNodeParameters: true });
	if (parents.some(isLookupTrigger)) return;
	throw new NodeOperationError(
		this.getNode(),
		'Respond to Lookup answers only a lookup, and no Contact Center Trigger with Trigger On "Lookup" starts this workflow',
		{
			itemIndex: 0,
			description:
				'Connect this node after a Contact Center Trigger with Trigger On: Lookup. A write back is answered by its trigger itself (its Respond option), a notification at once.',
		},
	);
}

/**
 * Answers the lookup through `sendResponse`: while the Contact Center Trigger (Trigger On: Lookup)
 * waits in n8n's "responseNode" mode, n8n resolves the HTTP answer with the first response a node
 * sends. Only the first item answers, as in n8n's Respond to Webhook; all items are passed on.
 */
export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	const items = this.getInputData();
	let response: LookupHttpResponse;
	try {
		assertInLookupWorkflow.call(this);
		response = buildResponse.call(this, 0);
	} catch (error) {
		const nodeError =
			error instanceof NodeOperationError
				? error
				: new NodeOperationError(this.getNode(), error as Error, { itemIndex: 0 });
		if (!this.continueOnFail()) throw nodeError;
		return items.map((_, itemIndex) => ({
			json: { error: nodeError.message },
			pairedItem: { item: itemIndex },
		}));
	}
	await this.sendResponse(response);
	this.getContext('flow')[LOOKUP_ANSWERED_FLAG] = true;

	if (items.length > 1) {
		this.addExecutionHints({
			message: `${items.length} items reached Respond to Lookup; only the first one answered the lookup`,
			location: 'outputPane',
		});
	}
	return items.map((item, itemIndex) => ({ json: item.json, pairedItem: { item: itemIndex } }));
}
