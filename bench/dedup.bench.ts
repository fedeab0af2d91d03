/* eslint-disable @n8n/community-nodes/no-restricted-globals -- benchmarks run in jest on a developer machine, never inside n8n */
/**
 * Benchmark 4b (issue 5): size of the write back deduplication store after 100 000 idempotency
 * keys.
 *
 * - 100 000 unique keys through the trigger's dedup helpers, called exactly as the trigger's
 *   handleWriteBack calls them (getDedupStore, pruneDedupStore, lookupKey, recordRun), on one node
 *   static data object: entries kept and JSON bytes.
 * - The real trigger (webhook() in n8n-core's WebhookContext, test/harness runWebhook) on that full
 *   store: more unique keys, to show the bound holds through the node and what one call costs there.
 */
import { randomUUID } from 'node:crypto';
import type { IDataObject } from 'n8n-workflow';

import { ContactCenterTrigger } from '../nodes/ContactCenterTrigger/ContactCenterTrigger.node';
import {
	DEDUP_STATIC_KEY,
	DEFAULT_DEDUP_LIMITS,
	getDedupStore,
	lookupKey,
	pruneDedupStore,
	recordRun,
	touchKey,
} from '../nodes/ContactCenterTrigger/helpers/dedup';
import { createCredentialStore, runWebhook } from '../test/harness';
import { DEFAULT_SIGNING_SECRET, signBody } from '../test/simulator';
import { fmt, recordSection } from './results';

const KEYS = 100_000;
const CHUNK = 10_000;
/** Calls of the real trigger on the full store. */
const NODE_CALLS = 1000;
const NODE_STATIC_KEY = 'node:Contact Center Trigger';

/** A write back as the service sends it (spec 2.11), small: the store keeps only the key. */
function writeBack(idempotencyKey: string) {
	return {
		type: 'CONVERSATION_RESOLVED',
		version: 1,
		idempotencyKey,
		data: {
			medium: { id: 'whatsapp' },
			channel: { id: 'ch-1', name: 'Support WhatsApp' },
			conversation: { id: 'conv-1', createdAt: '2026-01-01T10:00:00+01:00', previousStatus: 'new', currentStatus: 'resolved' },
			statusUpdatedAt: '2026-01-01T10:05:00+01:00',
			statusUpdatedReason: 'agentResolved',
		},
	};
}

const keysIn = (workflowStaticData: IDataObject) =>
	Object.keys(((workflowStaticData[NODE_STATIC_KEY] as IDataObject | undefined)?.[DEDUP_STATIC_KEY] ?? {}) as IDataObject).length;

describe('Benchmark 4b: deduplication store after 100 000 keys', () => {
	it('stores 100 000 unique keys and measures the store', async () => {
		// Part 1: the helpers, in the order handleWriteBack calls them, one delivery per millisecond.
		const workflowStaticData: IDataObject = { [NODE_STATIC_KEY]: {} };
		const limits = DEFAULT_DEDUP_LIMITS;
		let now = Date.now() - KEYS;
		let runsStarted = 0;
		const chunkMs: number[] = [];
		let chunkStart = performance.now();
		for (let i = 1; i <= KEYS; i++) {
			now += 1;
			const key = randomUUID();
			const store = getDedupStore(workflowStaticData[NODE_STATIC_KEY] as IDataObject);
			pruneDedupStore(store, now, limits);
			if (lookupKey(store, key, now, limits) === 'done') {
				touchKey(store, key, now);
			} else {
				recordRun(store, key, 'done', now, limits);
				runsStarted++;
			}
			if (i % CHUNK === 0) {
				const at = performance.now();
				chunkMs.push(at - chunkStart);
				chunkStart = at;
				process.stderr.write(`[bench] dedup: ${i} keys, ${keysIn(workflowStaticData)} kept, ${fmt(chunkMs[chunkMs.length - 1] / CHUNK, 2)} ms per delivery\n`);
			}
		}
		const kept = keysIn(workflowStaticData);
		const bytes = Buffer.byteLength(JSON.stringify(workflowStaticData));

		// Part 2: the real trigger on the full store.
		const credentials = createCredentialStore({ contactCenterSigningSecretApi: { secret: DEFAULT_SIGNING_SECRET } });
		const nodeType = new ContactCenterTrigger();
		let nodeRuns = 0;
		const nodeStarted = performance.now();
		for (let i = 0; i < NODE_CALLS; i++) {
			const rawBody = Buffer.from(JSON.stringify(writeBack(randomUUID())));
			const result = await runWebhook({
				nodeType,
				parameters: { endpoint: 'writeBack', responseTiming: 'immediately' },
				credentials,
				staticData: workflowStaticData,
				request: {
					method: 'POST',
					headers: { 'content-type': 'application/json', 'x-service-signature': signBody(DEFAULT_SIGNING_SECRET, rawBody) },
					rawBody,
				},
			});
			if (result.workflowData) nodeRuns++;
		}
		const nodeMsPerCall = (performance.now() - nodeStarted) / NODE_CALLS;
		const keptAfterNode = keysIn(workflowStaticData);
		const bytesAfterNode = Buffer.byteLength(JSON.stringify(workflowStaticData));
		const bounded = kept <= limits.maxKeys && keptAfterNode <= limits.maxKeys;

		recordSection({
			id: 'dedup',
			title: '4b. Deduplication store after 100 000 keys',
			method: `${KEYS} unique idempotency keys, one delivery per millisecond (all within the ${limits.retentionMs / 3_600_000} h retention, so only the key cap of ${limits.maxKeys} bounds the store), through the trigger's dedup helpers called as its write back handler calls them, on one node static data object; then ${NODE_CALLS} more signed write backs with unique keys through the Contact Center Trigger's webhook() in n8n-core's WebhookContext (test/harness runWebhook) on that same static data. Bytes = JSON of the workflow static data, which n8n stores in the workflow row and, for a production webhook, reads and writes on every call that changes it.`,
			figures: [
				{ name: `Keys kept after ${KEYS} keys`, value: `${kept} (${runsStarted} deliveries started a run)`, target: 'bounded', met: kept <= limits.maxKeys },
				{ name: `Static data JSON after ${KEYS} keys`, value: `${bytes} bytes (${fmt(bytes / 1024)} KiB, ${fmt(bytes / Math.max(1, kept))} bytes per key)`, target: 'bounded', met: kept <= limits.maxKeys },
				{ name: `Keys kept / JSON after ${NODE_CALLS} more through the node`, value: `${keptAfterNode} / ${bytesAfterNode} bytes (${nodeRuns} of ${NODE_CALLS} calls started a run)`, target: 'bounded', met: bounded },
				{ name: 'Dedup helpers: time per delivery, first 10 000 keys / last 10 000 (store full)', value: `${fmt(chunkMs[0] / CHUNK, 2)} ms / ${fmt(chunkMs[chunkMs.length - 1] / CHUNK, 2)} ms` },
				{ name: 'Real trigger webhook() on the full store: time per call', value: `${fmt(nodeMsPerCall, 2)} ms` },
			],
			notes: [
				'The store is bounded by the key cap. But every write back prunes the whole store twice (handleWriteBack, then recordRun): a scan of all entries and, once the store is over the cap, a sort of all keys by age. With 10 000 keys that costs milliseconds of CPU per delivery on n8n\'s main thread (figures above), more than all the rest of the trigger\'s work; the cost grows with the store, not with the traffic.',
				`Through the node in n8n-core's WebhookContext, where n8n wraps the static data in its ObservableObject proxies, one call on the full store took ${fmt(nodeMsPerCall, 1)} ms: at most about ${Math.floor(1000 / nodeMsPerCall)} write backs per second per core once the store is full, whatever n8n does around it.`,
			],
		});
	});
});
