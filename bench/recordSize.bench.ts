/* eslint-disable no-console -- benchmarks run in jest on a developer machine, never inside n8n */
/**
 * How much of n8n's data table storage (N8N_DATA_TABLES_MAX_SIZE_BYTES) the write back record takes
 * per event: 1,000 keyed write backs delivered to example 4's trigger in one n8n process (SQLite),
 * 8 in flight, and the record table's `sizeBytes` as n8n's public API lists it (the figure n8n's
 * size limit adds up) before and after.
 */
import { e2e, local, rt, stackForSuite, type Json } from './localStack';
import { fmt, recordSection } from './results';

const { postSigned, writeBackPayload } = e2e;

const EVENTS = 1000;
const IN_FLIGHT = 8;

describe("The write back record's room in n8n's data table storage", () => {
	const suite = stackForSuite('bench-record-size', {
		extraEnv: { N8N_DATA_TABLES_SIZE_CHECK_CACHE_DURATION_MS: '0' },
	});

	const recordBytes = async () => {
		const tables = await rt.publicApi(suite.stack.instance, 'GET', '/data-tables?limit=100');
		const table = (tables.data as Json[]).find((t) => t.name === local.RECORD_TABLE_NAME);
		return { bytes: Number(table?.sizeBytes ?? 0), id: table?.id as string };
	};

	it('measures bytes per event', async () => {
		const url = suite.stack.webhooks.find((w: Json) => w.endpoint === 'writeBack').url;
		const secret = suite.stack.secrets.writeBack;
		const stamp = Date.now();
		const deliver = async (key: string) => {
			const res = await postSigned(url, writeBackPayload(key, `conv-${key}`), { secret });
			if (res.status !== 200) throw new Error(`${key}: ${res.status} ${res.text}`);
		};
		// The table and its first pages exist before the measured events.
		for (let i = 0; i < 20; i++) await deliver(`size-warm-${stamp}-${i}`);
		const before = await recordBytes();
		let next = 0;
		await Promise.all(
			Array.from({ length: IN_FLIGHT }, async () => {
				while (next < EVENTS) await deliver(`size-${stamp}-${next++}`);
			}),
		);
		const after = await recordBytes();
		const rows = await rt.publicApi(
			suite.stack.instance,
			'GET',
			`/data-tables/${after.id}/rows?limit=1&sortBy=${encodeURIComponent('id:desc')}`,
		);
		const perEvent = (after.bytes - before.bytes) / EVENTS;
		const perMb = Math.floor((1024 * 1024) / perEvent);
		console.log(`record: ${before.bytes} -> ${after.bytes} bytes for ${EVENTS} events`);
		recordSection({
			id: 'record-size',
			title: "The write back record's room in n8n's data table storage",
			command:
				'npx jest --selectProjects bench --runInBand --testTimeout=1800000 bench/recordSize.bench.ts',
			method: `${EVENTS} keyed write backs to example 4's trigger in one n8n process (SQLite), ${IN_FLIGHT} in flight; the record table's \`sizeBytes\` as n8n's public API lists it (what n8n's size limit adds up), before and after. One row per event (in queue mode the claim row becomes the done row: one row too). A row as stored: \`${JSON.stringify(rows.data?.[0] ?? {})}\`.`,
			figures: [
				{ name: 'Record bytes per event', value: fmt(perEvent, 0) },
				{ name: 'Events per MB of N8N_DATA_TABLES_MAX_SIZE_BYTES', value: String(perMb) },
				{
					name: "Events in 72 hours (the record's retention) that fill 10 % of the default 200 MB",
					value: String(Math.floor((20 * 1024 * 1024) / perEvent)),
				},
			],
			raw: { before: before.bytes, after: after.bytes, events: EVENTS },
			n8nVersion: rt.N8N_VERSION,
		});
		expect(perEvent).toBeGreaterThan(0);
	}, 1_200_000);
});
