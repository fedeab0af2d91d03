/**
 * Runs node code through n8n-core's real execution contexts and request helpers.
 *
 *   const credentials = createCredentialStore({
 *     contactCenterOAuth2Api: { baseUrl: sim.url, clientId: 'sim-client-id', clientSecret: 'sim-client-secret' },
 *   });
 *   const { output, error } = await runNode({ nodeType: new ContactCenter(), parameters, credentials });
 *   credentials.get('contactCenterOAuth2Api')?.oauthTokenData; // the token n8n-core stored
 */
export { createCredentialStore, CredentialStore } from './credential-store';
export type { CredentialStoreOptions } from './credential-store';
export { runNode } from './run-node';
export type { RunNodeOptions, RunNodeResult } from './run-node';
export { captureLogs } from './logs';
export type { LogLine } from './logs';
export { runWebhook } from './run-webhook';
export type { RunWebhookOptions, RunWebhookResult, WebhookRequest } from './run-webhook';
