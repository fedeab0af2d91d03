import { Workflow, type INode, type INodeTypes } from 'n8n-workflow';

import {
	BODY_VARIABLE_ITEM_TITLE,
	bodyVariableTitle,
	buildTemplateShorthand,
	TemplateFieldError,
	type WhatsAppTemplate,
} from '../../nodes/ContactCenter/helpers/templateShorthand';
import { parseTemplateShorthand } from '../simulator/shorthand';

const base: WhatsAppTemplate = {
	namespace: 'ns_1',
	templateName: 'order_shipped',
	language: 'en_US',
	bodyVariables: [],
};

describe('buildTemplateShorthand', () => {
	it('builds the shorthand of spec 2.2 with the fallback defaulting to the template name', () => {
		expect(buildTemplateShorthand({ ...base, bodyVariables: ['Ann', '#123'] })).toBe(
			'&((namespace=[[ns_1]] template=[[order_shipped]] fallback=[[order_shipped]] language=[[en_US]] body_text=[[Ann]] body_text=[[#123]]))&',
		);
	});

	it('uses an explicit fallback and allows zero body variables', () => {
		expect(buildTemplateShorthand({ ...base, fallback: 'Your order shipped' })).toBe(
			'&((namespace=[[ns_1]] template=[[order_shipped]] fallback=[[Your order shipped]] language=[[en_US]]))&',
		);
	});

	it.each([
		['namespace', { namespace: 'a]]b' }, 'Namespace', ']]'],
		['template name', { templateName: 'x))&y' }, 'Template Name', '))&'],
		['language', { language: '[[en' }, 'Language', '[['],
		['fallback', { fallback: 'hi &((' }, 'Fallback Text', '&(('],
		['body variable', { bodyVariables: ['ok', 'tail]'] }, 'Body Variables: Variable {{2}}', ']'],
	])(
		'refuses a %s that would change the structure, naming the field',
		(_, change, field, sequence) => {
			let caught: unknown;
			try {
				buildTemplateShorthand({ ...base, ...change });
			} catch (error) {
				caught = error;
			}
			expect(caught).toBeInstanceOf(TemplateFieldError);
			expect((caught as TemplateFieldError).field).toBe(field);
			expect((caught as TemplateFieldError).message).toContain(`'${field}'`);
			expect((caught as TemplateFieldError).message).toContain(sequence);
			expect((caught as TemplateFieldError).fix).toMatch(/Remove|add a character/);
		},
	);

	it.each([
		[{ namespace: ' ' }, 'Namespace'],
		[{ templateName: '' }, 'Template Name'],
		[{ language: '' }, 'Language'],
		[{ bodyVariables: ['Ann', ''] }, 'Body Variables: Variable {{2}}'],
	])('refuses an empty mandatory value: %p', (change, field) => {
		expect(() => buildTemplateShorthand({ ...base, ...change })).toThrow(`'${field}' is empty`);
	});
});

describe('body variable titles', () => {
	/** The itemTitle as n8n's expression evaluator gives it, with $collection as the editor sets it. */
	function titleOf(index: number): unknown {
		const node: INode = {
			id: 'node-id',
			name: 'Contact Center',
			type: 'n8n-nodes-contact-center.contactCenter',
			typeVersion: 1,
			position: [0, 0],
			parameters: {},
		};
		const nodeTypes = {
			getByName: () => undefined,
			getByNameAndVersion: () => undefined,
			getKnownTypes: () => ({}),
		} as unknown as INodeTypes;
		const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
		return workflow.expression.getSimpleParameterValue(node, BODY_VARIABLE_ITEM_TITLE, 'internal', {
			$collection: { item: { index, value: {} } },
		});
	}

	it('name the template variable each entry fills, in the editor (itemTitle) as in errors', () => {
		for (const index of [0, 1, 9]) expect(titleOf(index)).toBe(bodyVariableTitle(index));
		expect(bodyVariableTitle(0)).toBe('Variable {{1}}');
		expect(bodyVariableTitle(9)).toBe('Variable {{10}}');
	});
});

/** Deterministic PRNG so that a failure can be replayed from its seed. */
function mulberry32(seed: number) {
	return () => {
		seed = (seed + 0x6d2b79f5) | 0;
		let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
		t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

describe('buildTemplateShorthand, randomized', () => {
	const alphabet = [
		'[',
		']',
		'(',
		')',
		'&',
		'=',
		' ',
		'\n',
		'a',
		'Z',
		'9',
		'é',
		'_',
		'body_text',
		'{{1}}',
	];
	const random = mulberry32(20261122);
	const randomValue = () =>
		Array.from(
			{ length: Math.floor(random() * 8) },
			() => alphabet[Math.floor(random() * alphabet.length)],
		).join('');

	it('never builds a shorthand that parses into other fields than it came from', () => {
		let built = 0;
		let refused = 0;
		for (let run = 0; run < 5000; run++) {
			const template: WhatsAppTemplate = {
				namespace: randomValue(),
				templateName: randomValue(),
				language: randomValue(),
				fallback: random() < 0.5 ? undefined : randomValue(),
				bodyVariables: Array.from({ length: Math.floor(random() * 4) }, randomValue),
			};
			let shorthand: string;
			try {
				shorthand = buildTemplateShorthand(template);
			} catch (error) {
				expect(error).toBeInstanceOf(TemplateFieldError);
				refused++;
				continue;
			}
			built++;
			const fallback = template.fallback || template.templateName;
			expect(parseTemplateShorthand(shorthand)).toEqual({
				namespace: template.namespace,
				template: template.templateName,
				fallback,
				language: template.language,
				bodyText: template.bodyVariables,
			});
		}
		// Both branches must have been exercised for the property to mean anything.
		expect(built).toBeGreaterThan(100);
		expect(refused).toBeGreaterThan(100);
	});
});
