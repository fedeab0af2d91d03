/* eslint-disable @n8n/community-nodes/no-restricted-globals -- benchmarks run in jest on a developer machine, never inside n8n */
/**
 * Benchmark 4b (issue 5): size of the write back deduplication store after 100 000 idempotency
 * keys, and what it costs per delivery.
 *
 * - 100 000 unique keys through the trigger's IdempotencyKeyStore, called exactly as the trigger's
 *   handleWriteBack calls it (merge what static data holds, prune, lookup, record, write back to
 *   static data): entries kept and JSON bytes.
 * - The real trigger (webhook() in n8n-core's WebhookContext, test/harness runWebhook) on that full
 *   store, with the static data saved as JSON and loaded again before every call, as n8n does for a
 *   production webhook: more unique keys, to show the bound holds through the node and what one
 *   call costs there.
 */
import { randomUUID } from 'node:crypto';
import type { IDataObject } from 'n8n-workflow';

import { ContactCenterTrigger } from '../nodes/ContactCenterTrigger/ContactCenterTrigger.node';
import {
	DEDUP_STATIC_KEY,
	DEFAULT_DEDUP_LIMITS,
	IdempotencyKeyStore,
	PERSISTED_RECORD_LENGTH,
	type PersistedDedupStore,
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
			conversation: {
				id: 'conv-1',
				createdAt: '2026-01-01T10:00:00+01:00',
				previousStatus: 'new',
				currentStatus: 'resolved',
			},
			statusUpdatedAt: '2026-01-01T10:05:00+01:00',
			statusUpdatedReason: 'agentResolved',
		},
	};
}

const keysIn = (workflowStaticData: IDataObject) =>
	(
		(
			(workflowStaticData[NODE_STATIC_KEY] as IDataObject | undefined)?.[DEDUP_STATIC_KEY] as
				| PersistedDedupStore
				| undefined
		)?.records ?? ''
	).length / PERSISTED_RECORD_LENGTH;

describe('Benchmark 4b: deduplication store after 100 000 keys', () => {
	it('stores 100 000 unique keys and measures the store', async () => {
		// Part 1: the helpers, in the order handleWriteBack calls them, one delivery per millisecond.
		const workflowStaticData: IDataObject = { [NODE_STATIC_KEY]: {} };
		const nodeStaticData = workflowStaticData[NODE_STATIC_KEY] as IDataObject;
		const limits = DEFAULT_DEDUP_LIMITS;
		const store = new IdempotencyKeyStore(limits);
		let now = Date.now() - KEYS;
		let runsStarted = 0;
		const chunkMs: number[] = [];
		let chunkStart = performance.now();
		for (let i = 1; i <= KEYS; i++) {
			now += 1;
			const key = randomUUID();
			store.merge(nodeStaticData[DEDUP_STATIC_KEY]);
			store.prune(now);
			if (store.lookup(key, now) === 'done') {
				store.touch(key, now);
			} else {
				store.record(key, 'done', now);
				runsStarted++;
			}
			nodeStaticData[DEDUP_STATIC_KEY] = store.toPersisted();
			if (i % CHUNK === 0) {
				const at = performance.now();
				chunkMs.push(at - chunkStart);
				chunkStart = at;
				process.stderr.write(
					`[bench] dedup: ${i} keys, ${keysIn(workflowStaticData)} kept, ${fmt(chunkMs[chunkMs.length - 1] / CHUNK, 3)} ms per delivery\n`,
				);
			}
		}
		const kept = keysIn(workflowStaticData);
		const bytes = Buffer.byteLength(JSON.stringify(workflowStaticData));

		// Part 2: the real trigger on the full store.
		const credentials = createCredentialStore({
			contactCenterSigningSecretApi: { secret: DEFAULT_SIGNING_SECRET },
		});
		const nodeType = new ContactCenterTrigger();
		let nodeRuns = 0;
		let nodeMs = 0;
		let staticData = workflowStaticData;
		for (let i = 0; i < NODE_CALLS; i++) {
			// n8n loads the static data from its database for every production webhook call.
			staticData = JSON.parse(JSON.stringify(staticData)) as IDataObject;
			const rawBody = Buffer.from(JSON.stringify(writeBack(randomUUID())));
			const started = performance.now();
			const result = await runWebhook({
				nodeType,
				typeVersion: 1,
				parameters: { endpoint: 'writeBack', responseTiming: 'immediately' },
				credentials,
				staticData,
				workflowId: 'bench-dedup-workflow',
				request: {
					method: 'POST',
					headers: {
						'content-type': 'application/json',
						'x-service-signature': signBody(DEFAULT_SIGNING_SECRET, rawBody),
					},
					rawBody,
				},
			});
			nodeMs += performance.now() - started;
			if (result.workflowData) nodeRuns++;
		}
		const nodeMsPerCall = nodeMs / NODE_CALLS;
		const keptAfterNode = keysIn(staticData);
		const bytesAfterNode = Buffer.byteLength(JSON.stringify(staticData));
		const bounded = kept <= limits.maxKeys && keptAfterNode <= limits.maxKeys;

		recordSection({
			id: 'dedup',
			title: '4b. Deduplication store after 100 000 keys',
			method: `${KEYS} unique idempotency keys, one delivery per millisecond (all within the ${limits.retentionMs / 3_600_000} h retention, so only the key cap of ${limits.maxKeys} bounds the store), through the trigger's IdempotencyKeyStore called as its write back handler calls it (merge the static data, prune, lookup, record, write the keys back into static data), on one node static data object; then ${NODE_CALLS} more signed write backs with unique keys through the Contact Center Trigger's webhook() in n8n-core's WebhookContext (test/harness runWebhook), the static data saved as JSON and loaded again before each call as n8n does for a production webhook (the trigger's in-process store is then fresh: it starts empty and merges the loaded keys on its first call). Bytes = JSON of the workflow static data, which n8n stores in the workflow row and, for a production webhook, reads and writes on every call that changes it.`,
			figures: [
				{
					name: `Keys kept after ${KEYS} keys`,
					value: `${kept} (${runsStarted} deliveries started a run)`,
					target: 'bounded',
					met: kept <= limits.maxKeys,
				},
				{
					name: `Static data JSON after ${KEYS} keys`,
					value: `${bytes} bytes (${fmt(bytes / 1024)} KiB, ${fmt(bytes / Math.max(1, kept))} bytes per key)`,
					target: 'bounded',
					met: kept <= limits.maxKeys,
				},
				{
					name: `Keys kept / JSON after ${NODE_CALLS} more through the node`,
					value: `${keptAfterNode} / ${bytesAfterNode} bytes (${nodeRuns} of ${NODE_CALLS} calls started a run)`,
					target: 'bounded',
					met: bounded,
				},
				{
					name: 'Store: time per delivery, first 10 000 keys / last 10 000 (store full)',
					value: `${fmt(chunkMs[0] / CHUNK, 3)} ms / ${fmt(chunkMs[chunkMs.length - 1] / CHUNK, 3)} ms`,
				},
				{
					name: 'Real trigger webhook() on the full store, static data reloaded each call: time per call',
					value: `${fmt(nodeMsPerCall, 2)} ms`,
				},
			],
			notes: [
				`The store is bounded by the key cap. It keeps the keys in insertion order by last sighting, so pruning visits only the oldest entries, and it saves them as one string of 18-character records (a 72-bit SHA-256 fingerprint of the key, the minute of the last sighting, the state) rather than one object per key: n8n wraps every object in static data in a change-tracking proxy on every load, and it copies the workflow's static data into every execution it saves, so the saved form is what each execution of a write back workflow carries. Each delivery writes all kept keys back (a string of up to ${limits.maxKeys} records); it merges the saved keys only when another store wrote them (the copy is tagged with the writing store's id), so in this loop, where the store reads its own copy, the merge is skipped: ${fmt(chunkMs[chunkMs.length - 1] / CHUNK, 3)} ms per delivery on a full store.`,
				`Through the node in n8n-core's WebhookContext, static data reloaded from JSON before each call, one call on the full store took ${fmt(nodeMsPerCall, 2)} ms (the previous design, one object per key pruned by sorting, took 100.7 ms per call on 2026-11-22, there without the reload).`,
			],
		});
	});
});
