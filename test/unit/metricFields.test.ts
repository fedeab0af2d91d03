/**
 * Metric -> Get's fields as n8n's editor (2.41.1) handles them, through n8n-workflow's own
 * functions, the ones its bundle calls:
 * - a field changes (useNodeSettingsParameters' updateNodeParameter, NodeSettings-*.js): the node's
 *   parameters are read without defaults (getNodeParameters), the new value is set, option values
 *   the new values no longer offer are removed (removeMismatchedOptionValues, mirrored below), and
 *   the result is read again with defaults; getNodeParameters keeps no parameter its
 *   displayOptions hide, so a field the new Metric does not take is cleared;
 * - a collection's "Add …" list offers an option only when displayParameterPath shows it
 *   (CollectionParameterLegacy, ParameterInputList-*.js).
 * test/e2e/editor/fieldsAndTestRuns.ts switches the Metric in Chromium.
 */
import {
	NodeHelpers,
	type INode,
	type INodeParameters,
	type INodeProperties,
	type INodePropertyOptions,
} from 'n8n-workflow';

import { ContactCenter } from '../../nodes/ContactCenter/ContactCenter.node';

const { description } = new ContactCenter();
const node: INode = {
	id: 'metric',
	name: 'Contact Center',
	type: 'n8n-nodes-contact-center.contactCenter',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

const getProperty = (name: string) =>
	description.properties.find(
		(p) => p.name === name && p.displayOptions?.show?.operation?.includes('get'),
	) as INodeProperties;
const grouping = getProperty('grouping');
const groupingOption = (name: string) =>
	(grouping.options as INodeProperties[]).find((option) => option.name === name) as INodeProperties;

/** The editor's removeMismatchedOptionValues: a value the changed parameter no longer offers goes. */
function removeMismatchedOptionValues(parameters: INodeParameters, changed: string) {
	for (const property of description.properties) {
		const { show, hide } = property.displayOptions ?? {};
		if (!(property.name in parameters) || !property.options) continue;
		if (show?.[changed] === undefined && hide?.[changed] === undefined) continue;
		const value = parameters[property.name];
		const offered = ['collection', 'fixedCollection'].includes(property.type)
			? Object.keys(value as object).every((key) =>
					property.options?.some((option) => option.name === key),
				)
			: property.options.some((option) => (option as INodePropertyOptions).value === value);
		if (
			!offered &&
			NodeHelpers.displayParameter(parameters, property, node, description, parameters)
		) {
			delete parameters[property.name];
		}
	}
}

/** Sets one parameter as the node settings panel does when the user changes it. */
function change(parameters: INodeParameters, name: string, value: INodeParameters[string]) {
	const current = { ...node, parameters };
	const withoutDefaults =
		NodeHelpers.getNodeParameters(
			description.properties,
			parameters,
			false,
			false,
			current,
			description,
		) ?? {};
	const updated = structuredClone(withoutDefaults);
	updated[name] = value;
	removeMismatchedOptionValues(updated, name);
	return (
		NodeHelpers.getNodeParameters(
			description.properties,
			updated,
			true,
			false,
			current,
			description,
		) ?? {}
	);
}

const grouped = () => {
	let parameters: INodeParameters = change({}, 'resource', 'metric');
	parameters = change(parameters, 'metric', 'inboundMessageVolume');
	parameters = change(parameters, 'from', '2026-11-20T08:00:00');
	parameters = change(parameters, 'filters', { mediumId: 'whatsapp', channelId: 'ch-1' });
	return change(parameters, 'grouping', { groupByInterval: 'day', timezone: 'America/New_York' });
};

describe('Metric -> Get: switching the Metric in the editor', () => {
	it('keeps Grouping (Group By Interval, Timezone), From and the filters between the metrics that take them', () => {
		const before = grouped();
		expect(before.grouping).toEqual({ groupByInterval: 'day', timezone: 'America/New_York' });
		const after = change(before, 'metric', 'outboundMessageVolume');
		expect(after).toMatchObject({
			metric: 'outboundMessageVolume',
			from: '2026-11-20T08:00:00',
			filters: { mediumId: 'whatsapp', channelId: 'ch-1' },
			grouping: { groupByInterval: 'day', timezone: 'America/New_York' },
		});
		expect(change(after, 'metric', 'inboundMessageVolume').grouping).toEqual(before.grouping);
	});

	it('keeps what still applies for a metric without grouping; n8n clears the rest, as the Metric field says', () => {
		const after = change(grouped(), 'metric', 'firstResponseTime');
		expect(after).toMatchObject({
			from: '2026-11-20T08:00:00',
			filters: { mediumId: 'whatsapp', channelId: 'ch-1' },
		});
		expect(after).not.toHaveProperty('grouping');
		expect(getProperty('metric').description).toContain(
			'Switching to a metric that does not take a field (Grouping, Medium, From) clears that field',
		);
	});

	it('one Grouping field serves every metric that takes grouping', () => {
		expect(description.properties.filter((p) => p.name === 'grouping')).toHaveLength(1);
		expect(grouping.displayOptions?.show?.metric).toEqual([
			'inboundMessageVolume',
			'outboundMessageVolume',
		]);
	});
});

describe('Metric -> Get: Timezone', () => {
	const offered = (values: INodeParameters) =>
		NodeHelpers.displayParameterPath(
			{ parameters: values } as INodeParameters,
			groupingOption('timezone'),
			'parameters.grouping',
			node,
			description,
		);

	it('is offered under Add Grouping only once Group By Interval is added', () => {
		const parameters = change(grouped(), 'grouping', {});
		expect(offered(parameters)).toBe(false);
		expect(offered(change(parameters, 'grouping', { groupByInterval: 'hour' }))).toBe(true);
	});

	it('set without Group By Interval, it is cleared: it would change nothing', () => {
		const parameters = change(grouped(), 'grouping', { timezone: 'America/New_York' });
		expect(parameters.grouping).toEqual({});
	});

	it('says where Workflow Time Zone is set and where the output names the zone', () => {
		const timezone = groupingOption('timezone');
		const [workflowZone] = timezone.options as INodePropertyOptions[];
		expect(workflowZone).toMatchObject({ name: 'Workflow Time Zone', value: '' });
		expect(workflowZone.description).toBe(
			"Set in Workflow settings -> Timezone, else n8n's default",
		);
		expect(timezone.description).toContain('Workflow settings -> Timezone');
		expect(timezone.hint).toBe('Each output item names the zone used in its timezone column');
		expect(groupingOption('groupByInterval').hint).toContain('Workflow settings -> Timezone');
	});
});
