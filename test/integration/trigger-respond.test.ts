import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { ContactCenter } from '../../nodes/ContactCenter/ContactCenter.node';
import { ContactCenterTrigger } from '../../nodes/ContactCenterTrigger/ContactCenterTrigger.node';
import { runNode } from '../harness';
import type { ParentNode } from '../harness/workflow-setup';

const triggerOn = (parameters: INodeParameters, disabled = false): ParentNode => ({
	nodeType: new ContactCenterTrigger(),
	name: 'Contact Center Trigger',
	parameters,
	disabled,
});

const LOOKUP_TRIGGER = triggerOn({ endpoint: 'lookup' });

/**
 * Runs the Contact Center node's "Respond to Lookup" through n8n-core's ExecuteContext, after the
 * nodes `parents` (by default a Contact Center Trigger on Lookup).
 */
async function respond(
	parameters: INodeParameters,
	items: IDataObject[],
	continueOnFail = false,
	parents: ParentNode[] = [LOOKUP_TRIGGER],
) {
	const inputItems: INodeExecutionData[] = items.map((json) => ({ json }));
	return await runNode({
		nodeType: new ContactCenter(),
		parameters: { resource: 'crmLookup', operation: 'respond', ...parameters },
		inputItems,
		continueOnFail,
		parents,
	});
}

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' };
const customer = { email: 'ana@example.com', name: 'Ana Silva', phone: '', visits: 3 };

describe('Respond to Lookup', () => {
	it('answers 200 with {autoConfirm, attributes} built from alias/value pairs', async () => {
		const result = await respond(
			{
				respondWith: 'found',
				autoConfirm: true,
				attributes: {
					attribute: [
						{ alias: 'email', value: '={{ $json.email }}' },
						{ alias: 'fullName', value: '={{ $json.name }}' },
						{ alias: 'phone', value: '={{ $json.phone }}' },
						{ alias: 'visits', value: '={{ $json.visits }}' },
						{ alias: 'segment', value: 'retail' },
					],
				},
			},
			[customer],
		);
		expect(result.error).toBeUndefined();
		expect(result.sentResponses).toEqual([
			{
				statusCode: 200,
				headers: JSON_HEADERS,
				body: {
					autoConfirm: true,
					attributes: {
						email: 'ana@example.com',
						fullName: 'Ana Silva',
						phone: null,
						visits: '3',
						segment: 'retail',
					},
				},
			},
		]);
		expect(result.output).toEqual([[{ json: customer, pairedItem: { item: 0 } }]]);
	});

	it('sends autoConfirm false by default, so the agent confirms', async () => {
		const result = await respond(
			{ attributes: { attribute: [{ alias: 'email', value: '={{ $json.email }}' }] } },
			[customer],
		);
		expect(result.sentResponses[0]).toMatchObject({
			statusCode: 200,
			body: { autoConfirm: false, attributes: { email: 'ana@example.com' } },
		});
	});

	it('keeps an empty value as empty text when "Send Empty Values as Null" is off', async () => {
		const result = await respond(
			{
				emptyAsNull: false,
				attributes: { attribute: [{ alias: 'phone', value: '={{ $json.phone }}' }] },
			},
			[customer],
		);
		expect(result.sentResponses[0]).toMatchObject({ body: { attributes: { phone: '' } } });
	});

	it('answers 200 with an empty attributes object when none are given', async () => {
		const result = await respond({ respondWith: 'found' }, [customer]);
		expect(result.sentResponses).toEqual([
			{ statusCode: 200, headers: JSON_HEADERS, body: { autoConfirm: false, attributes: {} } },
		]);
	});

	it('answers 404 when told the contact was not found', async () => {
		const result = await respond({ respondWith: 'notFound' }, [{}]);
		expect(result.sentResponses).toEqual([{ statusCode: 404, headers: {}, body: Buffer.alloc(0) }]);
		expect(result.output).toEqual([[{ json: {}, pairedItem: { item: 0 } }]]);
	});

	it('decides 200 or 404 from the workflow data with an expression', async () => {
		const parameters = {
			respondWith: '={{ $json.email ? "found" : "notFound" }}',
			attributes: { attribute: [{ alias: 'email', value: '={{ $json.email }}' }] },
		};
		const found = await respond(parameters, [customer]);
		expect(found.sentResponses[0]).toMatchObject({ statusCode: 200 });
		const missing = await respond(parameters, [{ searched: 'bob@example.com' }]);
		expect(missing.sentResponses[0]).toMatchObject({ statusCode: 404 });
	});

	it('builds the attributes from a JSON object, keeping null and turning numbers into text', async () => {
		const result = await respond(
			{
				attributesInput: 'json',
				autoConfirm: true,
				attributesJson:
					'={{ { "email": $json.email, "visits": $json.visits, "vip": true, "phone": null } }}',
			},
			[customer],
		);
		expect(result.sentResponses[0]).toEqual({
			statusCode: 200,
			headers: JSON_HEADERS,
			body: {
				autoConfirm: true,
				attributes: { email: 'ana@example.com', visits: '3', vip: 'true', phone: null },
			},
		});
	});

	it('accepts the JSON object as text', async () => {
		const result = await respond(
			{ attributesInput: 'json', attributesJson: '{ "email": "ana@example.com", "phone": null }' },
			[customer],
		);
		expect(result.sentResponses[0]).toMatchObject({
			body: { attributes: { email: 'ana@example.com', phone: null } },
		});
	});

	it('answers only once, with the first item, and passes every item on', async () => {
		const items = [customer, { ...customer, email: 'other@example.com' }];
		const result = await respond(
			{ attributes: { attribute: [{ alias: 'email', value: '={{ $json.email }}' }] } },
			items,
		);
		expect(result.sentResponses).toHaveLength(1);
		expect(result.sentResponses[0]).toMatchObject({
			body: { attributes: { email: 'ana@example.com' } },
		});
		expect(result.output).toEqual([
			[
				{ json: items[0], pairedItem: { item: 0 } },
				{ json: items[1], pairedItem: { item: 1 } },
			],
		]);
	});

	it('refuses an attribute value that is an object, naming the alias, and sends nothing', async () => {
		const result = await respond(
			{ attributesInput: 'json', attributesJson: '{ "address": { "city": "Ghent" } }' },
			[customer],
		);
		expect(result.sentResponses).toEqual([]);
		expect(result.error?.message).toBe(
			"The value of attribute 'address' is an object; the service accepts only text or null",
		);
		expect(result.error).toMatchObject({
			name: 'NodeOperationError',
			description: expect.stringContaining('alias'),
		});
	});

	it('refuses invalid JSON with a message that says how to fix it', async () => {
		const result = await respond({ attributesInput: 'json', attributesJson: '{ email: ' }, [
			customer,
		]);
		expect(result.sentResponses).toEqual([]);
		expect(result.error?.message).toMatch(/^'Attributes \(JSON\)' is not valid JSON/);
	});

	it('refuses a JSON array', async () => {
		const result = await respond({ attributesInput: 'json', attributesJson: '["a"]' }, [customer]);
		expect(result.error?.message).toBe("'Attributes (JSON)' must be a JSON object");
	});

	it('refuses a pair without alias', async () => {
		const result = await respond({ attributes: { attribute: [{ alias: ' ', value: 'x' }] } }, [
			customer,
		]);
		expect(result.error?.message).toBe('An attribute has an empty alias');
	});

	it('refuses an expression that returns neither "found" nor "notFound"', async () => {
		const result = await respond({ respondWith: '={{ $json.email ? "yes" : "no" }}' }, [customer]);
		expect(result.sentResponses).toEqual([]);
		expect(result.error?.message).toBe(
			`'Respond With' is "yes", which is neither "found" nor "notFound"`,
		);
	});

	it('with Continue On Fail, outputs the error and sends nothing (the trigger then answers its fallback)', async () => {
		const result = await respond(
			{ attributesInput: 'json', attributesJson: '[1]' },
			[customer],
			true,
		);
		expect(result.error).toBeUndefined();
		expect(result.sentResponses).toEqual([]);
		expect(result.output).toEqual([
			[{ json: { error: "'Attributes (JSON)' must be a JSON object" }, pairedItem: { item: 0 } }],
		]);
	});

	it('answers after a Contact Center Trigger whose Trigger On is left at its default (Lookup)', async () => {
		const result = await respond({ respondWith: 'notFound' }, [{}], false, [triggerOn({})]);
		expect(result.error).toBeUndefined();
		expect(result.sentResponses).toHaveLength(1);
	});

	describe('outside a lookup workflow', () => {
		const REFUSAL =
			'Respond to Lookup answers only a lookup, and no Contact Center Trigger with Trigger On "Lookup" starts this workflow';

		it.each([
			['a write back', [triggerOn({ endpoint: 'writeBack' })]],
			['a notification', [triggerOn({ endpoint: 'notification' })]],
			['no Contact Center Trigger', []],
			['a disabled lookup trigger', [triggerOn({ endpoint: 'lookup' }, true)]],
		])(
			'after %s: fails saying it needs the lookup trigger, and answers nothing',
			async (_, parents) => {
				const result = await respond({ respondWith: 'found' }, [customer], false, parents);
				expect(result.sentResponses).toEqual([]);
				expect(result.output).toBeNull();
				expect(result.error).toMatchObject({
					name: 'NodeOperationError',
					message: REFUSAL,
					description: expect.stringContaining('Trigger On: Lookup'),
				});
			},
		);

		it('with Continue On Fail, outputs the error on every item and answers nothing, like its other errors', async () => {
			const items = [customer, { ...customer, email: 'other@example.com' }];
			const result = await respond({ respondWith: 'found' }, items, true, [
				triggerOn({ endpoint: 'writeBack' }),
			]);
			expect(result.error).toBeUndefined();
			expect(result.sentResponses).toEqual([]);
			expect(result.output).toEqual([
				[
					{ json: { error: REFUSAL }, pairedItem: { item: 0 } },
					{ json: { error: REFUSAL }, pairedItem: { item: 1 } },
				],
			]);
		});
	});

	it('needs no OAuth2 credential', () => {
		const [credential] = new ContactCenter().description.credentials ?? [];
		expect(credential.displayOptions).toEqual({ hide: { resource: ['crmLookup'] } });
	});
});
