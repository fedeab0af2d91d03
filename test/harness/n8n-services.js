/**
 * Registers the process-wide services n8n-core's execution contexts fetch from its DI container.
 * Plain JS because @n8n/di is n8n-core's own dependency (a different copy from the top-level one),
 * so it must be resolved from n8n-core's location to share the same Container instance.
 */
const path = require('node:path');
const { InstanceSettings } = require('n8n-core');

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

function registerN8nServices() {
	registerInstanceSettings();
}

/**
 * The logger every n8n-core execution context hands a node as `this.logger` (n8n-core's own copy
 * of @n8n/backend-common, from its container), for tests that check what a node logged.
 */
function n8nLogger() {
	const { Logger } = require(require.resolve('@n8n/backend-common', { paths: [n8nCoreDir] }));
	return Container.get(Logger);
}

module.exports = { registerN8nServices, n8nLogger };
