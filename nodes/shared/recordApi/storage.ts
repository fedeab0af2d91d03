import type { IExecuteFunctions } from 'n8n-workflow';

import { api, lastCallFailed, targetOf, type RecordTarget } from './client';
import { memoryOfKey, type Usage } from './state';

/**
 * n8n's data table storage as the record sees it. n8n refuses every row insert and update once all
 * data tables of the instance together reach N8N_DATA_TABLES_MAX_SIZE_BYTES, and its own editor
 * warns from 80 % of it (data-table-size-validator.service.js `sizeToState`). That limit and n8n's
 * total are only on n8n's internal REST API, which API keys cannot call; its public API lists each
 * table's `sizeBytes` to the key's user (every table for an owner's or admin's key). So the record
 * adds those up and compares them with the credential's Storage Limit (MB).
 */

/** n8n's warning level, as a share of its limit. */
const WARNING_SHARE = 0.8;
/** How long a process reuses the sizes it read. */
const USAGE_REUSE_MS = 60_000;
/** How often the same warning goes to n8n's log from one process. */
const LOG_EVERY_MS = 5 * 60_000;

const mb = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1)} MB`;

async function readUsedBytes(context: IExecuteFunctions, target: RecordTarget): Promise<number> {
	let used = 0;
	for (let cursor: string | undefined, page = 0; page < 20; page++) {
		const answer = (await api(context, target, 'GET', '/data-tables', {
			qs: { limit: 250, ...(cursor ? { cursor } : {}) },
		})) as { data?: Array<{ sizeBytes?: unknown }>; nextCursor?: unknown };
		for (const table of answer?.data ?? []) used += Number(table?.sizeBytes) || 0;
		cursor = typeof answer?.nextCursor === 'string' ? answer.nextCursor : undefined;
		if (cursor === undefined) break;
	}
	return used;
}

async function usageOf(context: IExecuteFunctions, target: RecordTarget): Promise<Usage> {
	const memory = memoryOfKey(target);
	const known = memory.storageUsage;
	if (known !== undefined && Date.now() - known.readAt < USAGE_REUSE_MS) return known;
	const usage: Usage = {
		usedBytes: await readUsedBytes(context, target),
		readAt: Date.now(),
		loggedAt: known?.loggedAt,
	};
	memory.storageUsage = usage;
	return usage;
}

/** The warning for a storage this full, or undefined below n8n's warning level. */
export function storageWarning(usedBytes: number, limitBytes: number): string | undefined {
	if (usedBytes < WARNING_SHARE * limitBytes) return undefined;
	const share = Math.floor((100 * usedBytes) / limitBytes);
	return `n8n's data table storage is nearly full: ${mb(usedBytes)} of its ${mb(limitBytes)} limit used (${share} %). At the limit n8n refuses every data table write: write backs are then refused (the service delivers them again later) and Send Once sends nothing. Delete rows you no longer need from your data tables, or raise N8N_DATA_TABLES_MAX_SIZE_BYTES and the record credential's Storage Limit (MB) with it.`;
}

/**
 * Warns in the run (an execution hint under the node's output, and n8n's log at most every 5
 * minutes per process) when n8n's data tables reach n8n's warning level. A size that cannot be
 * read warns nothing: the record's own calls report what is wrong.
 */
export async function warnIfStorageNearlyFull(context: IExecuteFunctions): Promise<void> {
	try {
		const target = await targetOf(context);
		// Not while n8n's API fails the record's calls: the sizes would only wait for their retries.
		if (lastCallFailed(target)) return;
		const usage = await usageOf(context, target);
		const message = storageWarning(usage.usedBytes, target.storageLimitBytes);
		if (message === undefined) return;
		context.addExecutionHints({ message, type: 'warning', location: 'outputPane' });
		if (usage.loggedAt !== undefined && Date.now() - usage.loggedAt < LOG_EVERY_MS) return;
		usage.loggedAt = Date.now();
		context.logger.warn(`Contact Center: ${message}`, { workflowId: context.getWorkflow().id });
	} catch {
		// Only a warning: whatever keeps the sizes from being read fails the record's own calls too.
	}
}
