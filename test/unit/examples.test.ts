import { NodeHelpers, type INode } from 'n8n-workflow';

import { ContactCenter } from '../../nodes/ContactCenter/ContactCenter.node';
import * as exampleFilesModule from './exampleFiles';

const { exampleFiles, readExample } = exampleFilesModule as {
	exampleFiles: () => string[];
	readExample: (file: string) => unknown;
};

interface StickyNote {
	name: string;
	parameters: { content: string; width: number; height: number };
}

function stickyNotes(file: string): StickyNote[] {
	const workflow = readExample(file) as {
		nodes: Array<StickyNote & { type: string }>;
	};
	return workflow.nodes.filter((node) => node.type === 'n8n-nodes-base.stickyNote');
}

/*
 * n8n 2.41's sticky note (editor CSS): 8 px padding left, right and top; text area = the note's
 * height minus 24 px (--spacing--lg); paragraphs 14 px at line height 1.35 with 8 px below; an
 * h2 24 px at line height 1.35 with 8 px below. 7 px is a pessimistic mean glyph width of Inter at
 * 14 px: with it this estimate was at or above the height Chromium rendered for every example note
 * (InterVariable from n8n's editor, 2026-11-25).
 */
const MEAN_GLYPH_PX = 7;
const PARAGRAPH_LINE_PX = 14 * 1.35;
const HEADING_PX = 24 * 1.35;
const BLOCK_GAP_PX = 8;
const PADDING_X_PX = 16;
const NOTE_CHROME_PX = 24;

function estimatedNoteHeight({ content, width }: StickyNote['parameters']): number {
	const glyphsPerLine = Math.floor((width - PADDING_X_PX) / MEAN_GLYPH_PX);
	let height = NOTE_CHROME_PX;
	for (const line of content.split('\n').filter((text) => text.trim() !== '')) {
		if (line.startsWith('## ')) {
			height += HEADING_PX + BLOCK_GAP_PX;
			continue;
		}
		const visible = line.replace(/\*\*|`/g, '');
		height += Math.ceil(visible.length / glyphsPerLine) * PARAGRAPH_LINE_PX + BLOCK_GAP_PX;
	}
	return height;
}

describe('example workflows', () => {
	const files = exampleFiles();

	it('are the five examples', () => {
		expect(files).toHaveLength(5);
	});

	it.each(files)('%s: every sticky note is tall enough to show its whole text', (file) => {
		for (const note of stickyNotes(file)) {
			expect(note.parameters.height).toBeGreaterThanOrEqual(
				Math.ceil(estimatedNoteHeight(note.parameters)),
			);
		}
	});

	it("2-bulk-send: the delivery report is the node's Get Delivery Report on Send's items after the wait, and the only Code node is the send list", () => {
		const workflow = readExample('2-bulk-send-and-delivery-report.json') as {
			nodes: INode[];
			connections: Record<string, { main: Array<Array<{ node: string }>> }>;
		};
		const report = workflow.nodes.find((node) => node.name === 'Delivery report');
		expect(report).toMatchObject({
			type: 'n8n-nodes-contact-center.contactCenter',
			parameters: { operation: 'getDeliveryReport', output: 'summary' },
		});
		expect(workflow.connections['Wait for delivery'].main[0].map(({ node }) => node)).toContain(
			'Delivery report',
		);
		// No Code node at all: the send list is a Set node split into one item per contact.
		expect(workflow.nodes.map(({ type }) => type)).not.toContain('n8n-nodes-base.code');
		expect(workflow.connections['Contact list'].main[0].map(({ node }) => node)).toEqual([
			'Contacts to remind',
		]);
	});

	it.each(files)(
		'%s: every parameter of a Contact Center node is a field the node shows for its operation',
		(file) => {
			const { description } = new ContactCenter();
			const workflow = readExample(file) as { nodes: INode[] };
			const nodes = workflow.nodes.filter(
				(node) => node.type === 'n8n-nodes-contact-center.contactCenter',
			);
			for (const node of nodes) {
				const shown = description.properties
					.filter((property) =>
						NodeHelpers.displayParameter(node.parameters, property, node, description),
					)
					.map((property) => property.name);
				expect({
					node: node.name,
					unknown: Object.keys(node.parameters).filter((name) => !shown.includes(name)),
				}).toEqual({ node: node.name, unknown: [] });
			}
		},
	);
});
