import {
	NodeHelpers,
	Workflow,
	type INode,
	type INodeParameters,
	type INodeTypes,
} from 'n8n-workflow';

import { ContactCenter } from '../../nodes/ContactCenter/ContactCenter.node';
import { MEDIUM_OPTIONS } from '../../nodes/ContactCenter/actions/proactiveMessage/send/description';
import { METRIC_KEYS, METRICS } from '../../nodes/ContactCenter/helpers/metrics';

const nodeType = new ContactCenter();
const { description } = nodeType;
const TYPE = 'n8n-nodes-contact-center.contactCenter';

/** Every resource and operation the node offers, from its own description. */
const operations = description.properties
	.filter((property) => property.name === 'operation')
	.flatMap((property) =>
		(property.options as Array<{ value: string }>).map((option) => ({
			resource: String(property.displayOptions?.show?.resource?.[0]),
			operation: option.value,
		})),
	);

/**
 * What n8n's editor shows for a node just added from the panel: the parameters completed with
 * their defaults (useCanvasOperations resolveNodeParameters), the name made from the action
 * (NodeHelpers.makeNodeName) and the subtitle evaluated as useNodeHelpers.getNodeSubtitle does.
 */
function canvasLabels(resource: string, operation: string, set: INodeParameters = {}) {
	const parameters =
		NodeHelpers.getNodeParameters(
			description.properties,
			{ resource, operation, ...set },
			true,
			false,
			{ typeVersion: 1 },
			description,
		) ?? {};
	const node: INode = {
		id: 'node-id',
		name: NodeHelpers.makeNodeName(parameters, description),
		type: TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters,
	};
	const nodeTypes: INodeTypes = {
		getByName: () => nodeType,
		getByNameAndVersion: () => nodeType,
		getKnownTypes: () => ({}),
	};
	const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
	const subtitle = workflow.expression.getSimpleParameterValue(
		node,
		description.subtitle as string,
		'internal',
		{},
	);
	return { name: node.name, subtitle: String(subtitle) };
}

describe('the canvas label of each operation', () => {
	it('covers the seven operations', () => {
		expect(operations).toHaveLength(7);
	});

	it.each(operations)('$resource $operation: the subtitle does not repeat the name', (op) => {
		const { name, subtitle } = canvasLabels(op.resource, op.operation);
		expect(subtitle).not.toMatch(/^(undefined|null|)$/);
		expect(name.toLowerCase()).not.toContain(subtitle.toLowerCase());
		expect(subtitle.toLowerCase()).not.toContain(name.toLowerCase());
	});

	it('says the medium, the metric, the number of metrics and the answer', () => {
		expect(operations.map(({ resource, operation }) => canvasLabels(resource, operation))).toEqual([
			{ name: 'Send message', subtitle: 'SMS via MessageBird' },
			{ name: 'Get message status', subtitle: 'Received or not, per contact' },
			{ name: 'Get failed messages', subtitle: 'Contact and reason of each' },
			{ name: 'Get delivery report', subtitle: 'Received or not, with reason' },
			{ name: 'Get metric', subtitle: 'Inbound Message Volume' },
			{ name: 'Get metric snapshot', subtitle: '8 metrics in one row' },
			{ name: 'Respond to CRM lookup', subtitle: 'Found: 200' },
		]);
	});

	it.each(MEDIUM_OPTIONS)('names the medium $name', ({ name, value }) => {
		expect(canvasLabels('proactiveMessage', 'send', { medium: value }).subtitle).toBe(name);
	});

	it.each(METRIC_KEYS)('names the metric %s as the Metric field does', (metric) => {
		expect(canvasLabels('metric', 'get', { metric }).subtitle).toBe(METRICS[metric].name);
	});

	it('says a summary report, counts the metrics of a snapshot and names a not-found answer', () => {
		const snapshot = canvasLabels('metric', 'getSnapshot', { metrics: ['handleTime'] });
		expect(snapshot.subtitle).toBe('1 metric in one row');
		const summary = canvasLabels('proactiveMessage', 'getDeliveryReport', { output: 'summary' });
		expect(summary.subtitle).toBe('Who got it, in one item');
		const notFound = canvasLabels('crmLookup', 'respond', { respondWith: 'notFound' });
		expect(notFound.subtitle).toBe('Not found: 404');
	});
});
