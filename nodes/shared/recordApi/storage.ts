import type { IExecuteFunctions } from 'n8n-workflow';

import { api, targetOf } from './client';
import { memoryOfKey, type KeyMemory } from './state';

// n8n's size limit and total are only on its internal REST API, which API keys cannot call; its
// public API lists each table's `sizeBytes` (all tables to an owner's or admin's key): the record
// adds them up. n8n's editor warns from 80 % (data-table-size-validator.service.js `sizeToState`).
const WARNING_SHARE = 0.8;
const USAGE_REUSE_MS = 60_000;
const LOG_EVERY_MS = 5 * 60_000;

const mb = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1)} MB`;

/** The warning for a storage this full, or undefined below n8n's warning level. */
export function storageWarning(usedBytes: number, limitBytes: number): string | undefined {
	if (usedBytes < WARNING_SHARE * limitBytes) return undefined;
	const share = Math.floor((100 * usedBytes) / limitBytes);
	return `n8n's data table storage is nearly full: ${mb(usedBytes)} of its ${mb(limitBytes)} limit used (${share} %). At the limit n8n refuses every data table write: write backs are then refused (the service delivers them again later) and Send Once sends nothing. Delete rows you no longer need from your data tables, or raise N8N_DATA_TABLES_MAX_SIZE_BYTES and the record credential's Storage Limit (MB) with it.`;
}

/** Warns in the run (and n8n's log, at most every 5 minutes) at n8n's warning level. */
export async function warnIfStorageNearlyFull(context: IExecuteFunctions): Promise<void> {
	let memory: KeyMemory | undefined;
	try {
		const target = await targetOf(context);
		memory = memoryOfKey(target);
		// Not while n8n's API fails the record's calls: reading the sizes would only wait for retries.
		if (memory.lastCallFailed) return;
		let usage = memory.storageUsage;
		if (usage === undefined || Date.now() - usage.readAt >= USAGE_REUSE_MS) {
			let usedBytes = 0;
			for (let cursor: string | undefined, page = 0; page < 20; page++) {
				const answer = (await api(context, target, 'GET', '/data-tables', {
					qs: { limit: 250, ...(cursor ? { cursor } : {}) },
				})) as { data?: Array<{ sizeBytes?: unknown }>; nextCursor?: unknown };
				for (const table of answer?.data ?? []) usedBytes += Number(table?.sizeBytes) || 0;
				cursor = typeof answer?.nextCursor === 'string' ? answer.nextCursor : undefined;
				if (cursor === undefined) break;
			}
			usage = { usedBytes, readAt: Date.now(), loggedAt: usage?.loggedAt };
			memory.storageUsage = usage;
		}
		const message = storageWarning(usage.usedBytes, target.storageLimitBytes);
		if (message === undefined) return;
		context.addExecutionHints({ message, type: 'warning', location: 'outputPane' });
		if (usage.loggedAt !== undefined && Date.now() - usage.loggedAt < LOG_EVERY_MS) return;
		usage.loggedAt = Date.now();
		context.logger.warn(`Contact Center: ${message}`, { workflowId: context.getWorkflow().id });
	} catch (error) {
		// The run goes on: its own record calls say what fails. Only the storage warning is missing,
		// which n8n's log says at most every 5 minutes per key (at debug where no key could be read).
		const now = Date.now();
		const line = `Contact Center: the sizes of n8n's data tables could not be read, so this run cannot warn of a nearly full storage: ${(error as Error).message}`;
		if (memory === undefined) return context.logger.debug(line);
		if (memory.sizesUnreadLoggedAt !== undefined && now - memory.sizesUnreadLoggedAt < LOG_EVERY_MS)
			return;
		memory.sizesUnreadLoggedAt = now;
		context.logger.warn(line, { workflowId: context.getWorkflow().id });
	}
}
