import type { IExecuteFunctions, NodeExecutionHint } from 'n8n-workflow';

import { runLookup } from '../../nodes/ContactCenterTrigger/lookup.endpoint';

/** A lookup run's context: its mode and the nodes after the trigger, as n8n gives them. */
function lookupRun(mode: string, children: object[]) {
	const hints: NodeExecutionHint[] = [];
	const context = {
		getContext: () => ({}),
		getNodeParameter: () => 'notFound',
		getMode: () => mode,
		getNode: () => ({ name: 'Lookup', type: 'n8n-nodes-contact-center.contactCenterTrigger' }),
		getChildNodes: () => children,
		addExecutionHints: (...added: NodeExecutionHint[]) => hints.push(...added),
		onExecutionFinish: () => {},
	} as unknown as IExecuteFunctions;
	runLookup(context, [{ json: { email: 'ada@example.com' } }]);
	return hints;
}

const respond = (extra: object = {}) => ({
	name: 'Respond',
	type: 'n8n-nodes-contact-center.contactCenter',
	typeVersion: 1,
	parameters: { resource: 'crmLookup', operation: 'respond' },
	...extra,
});

describe("a lookup's test run", () => {
	it('says the caller gets the answer of the Respond to Lookup that follows, and 404 when the run ends before', () => {
		expect(lookupRun('manual', [respond()])).toEqual([
			{
				type: 'info',
				location: 'outputPane',
				message:
					'The caller gets the answer of "Respond to Lookup" once this run reaches it; a run that ends before (as a test of this trigger alone does) answers 404 (no lookup found).',
			},
		]);
	});

	it.each([
		['none', []],
		['a disabled one', [respond({ disabled: true })]],
		['another operation', [respond({ parameters: { resource: 'metric', operation: 'get' } })]],
	])('warns when no Respond to Lookup follows (%s)', (_, children) => {
		expect(lookupRun('manual', children).map((hint) => hint.type)).toEqual(['warning']);
	});

	it('adds nothing to a production run', () => {
		expect(lookupRun('webhook', [])).toEqual([]);
	});
});
