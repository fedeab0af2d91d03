/**
 * Registers the process-wide services n8n-core's execution contexts fetch from its DI container.
 * Plain JS because @n8n/di is n8n-core's own dependency (a different copy from the top-level one),
 * so it must be resolved from n8n-core's location to share the same Container instance.
 */
const path = require('node:path');
const crypto = require('node:crypto');
const { DataDeduplicationService, InstanceSettings } = require('n8n-core');

const n8nCoreDir = path.dirname(require.resolve('n8n-core'));
const { Container } = require(require.resolve('@n8n/di', { paths: [n8nCoreDir] }));

/**
 * The real InstanceSettings reads (and on first use writes) ~/.n8n/config to obtain an
 * encryption key; tests must not touch the home directory, so a fixed in-memory one stands in.
 */
function registerInstanceSettings() {
	const settings = Object.create(InstanceSettings.prototype);
	Object.assign(settings, {
		instanceId: 'harness-instance-id',
		hmacSignatureSecret: 'harness-hmac-signature-secret',
		instanceType: 'main',
		instanceRole: 'leader',
		// Read by n8n-core's StorageConfig when a run's output passes through binary-data handling;
		// nothing is written there.
		n8nFolder: path.join(require('node:os').tmpdir(), 'n8n-nodes-contact-center-harness'),
		settings: { encryptionKey: 'harness-encryption-key' },
	});
	Container.set(InstanceSettings, settings);
}

/**
 * A stand-in of n8n's processed_data store (n8n/dist/deduplication/deduplication-helper.js, the
 * store of `helpers.checkProcessedAndRecord`), held in memory: the same md5 hashes, the same
 * entries mode with maxEntries, and the same read, merge and write of one value per context.
 * `rows` is the store, by `workflowId|context`, for tests that look at or change it.
 */
const processedData = {
	rows: new Map(),
	/** Calls made, by method: what a benchmark counts. */
	calls: { checkProcessedAndRecord: 0, removeProcessed: 0, getProcessedDataCount: 0 },
	/**
	 * When set, the next calls throw it (a database that refuses).
	 * @type {Error | undefined}
	 */
	failWith: undefined,
	contextOf(scope, contextData) {
		return `${contextData.workflow.id}|${scope === 'node' ? `n:${contextData.node.id}` : ''}`;
	},
	hash: (value) => crypto.createHash('md5').update(value.toString()).digest('base64'),
	async checkProcessedAndRecord(items, scope, contextData, options) {
		this.calls.checkProcessedAndRecord++;
		if (this.failWith) throw this.failWith;
		if (!contextData.workflow.id) throw new Error('The expression evaluated to a falsy value');
		if (options.mode !== 'entries') throw new Error('stand-in: only mode entries');
		const key = this.contextOf(scope, contextData);
		const read = this.rows.get(key) ?? { mode: 'entries', data: [] };
		const row = { mode: read.mode, data: [...read.data] };
		// n8n reads the row (findOne) and writes it back (update) in two database calls.
		await new Promise((resolve) => setImmediate(resolve));
		const seen = new Set(row.data);
		const result = { new: [], processed: [] };
		for (const item of items) {
			const hashed = this.hash(item);
			if (seen.has(hashed)) result.processed.push(item);
			else {
				result.new.push(item);
				row.data.push(hashed);
			}
		}
		if (options.maxEntries) row.data.splice(0, row.data.length - options.maxEntries);
		this.rows.set(key, { mode: row.mode, data: [...row.data] });
		return result;
	},
	async removeProcessed(items, scope, contextData) {
		this.calls.removeProcessed++;
		if (this.failWith) throw this.failWith;
		const key = this.contextOf(scope, contextData);
		const read = this.rows.get(key);
		if (!read) return;
		const row = { mode: read.mode, data: [...read.data] };
		await new Promise((resolve) => setImmediate(resolve));
		this.rows.set(key, row);
		for (const item of items) {
			const index = row.data.indexOf(this.hash(item));
			if (index !== -1) row.data.splice(index, 1);
		}
	},
	async clearAllProcessedItems(scope, contextData) {
		this.rows.delete(this.contextOf(scope, contextData));
	},
	async getProcessedDataCount(scope, contextData) {
		this.calls.getProcessedDataCount++;
		if (this.failWith) throw this.failWith;
		return this.rows.get(this.contextOf(scope, contextData))?.data.length ?? 0;
	},
	/** Whether the store holds this value (unhashed) for the context. */
	has(contextKey, value) {
		return this.rows.get(contextKey)?.data.includes(this.hash(value)) ?? false;
	},
	reset() {
		this.rows.clear();
		this.failWith = undefined;
		for (const method of Object.keys(this.calls)) this.calls[method] = 0;
	},
};

let deduplicationRegistered = false;
function registerDeduplication() {
	if (deduplicationRegistered) return;
	deduplicationRegistered = true;
	void DataDeduplicationService.init(processedData);
}

function registerN8nServices() {
	registerInstanceSettings();
	registerDeduplication();
}

/**
 * The logger every n8n-core execution context hands a node as `this.logger` (n8n-core's own copy
 * of @n8n/backend-common, from its container), for tests that check what a node logged.
 */
function n8nLogger() {
	const { Logger } = require(require.resolve('@n8n/backend-common', { paths: [n8nCoreDir] }));
	return Container.get(Logger);
}

module.exports = { registerN8nServices, n8nLogger, processedData };
