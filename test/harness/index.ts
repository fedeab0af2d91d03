export { createCredentialStore, CredentialStore } from './credential-store';
export type { CredentialStoreOptions } from './credential-store';
export { runNode } from './run-node';
export type { RunNodeOptions, RunNodeResult } from './run-node';
export { runWebhook } from './run-webhook';
export type { RunWebhookOptions, RunWebhookResult, WebhookRequest } from './run-webhook';
