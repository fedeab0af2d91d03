/* eslint-disable @typescript-eslint/no-explicit-any -- test code: the runtime helpers are plain JS, untyped */
/** Credentials the editor suites save through n8n's REST API, as the local setup makes them. */
import * as runtimeModule from '../../../scripts/lib/n8n-runtime';
import * as localModule from '../../../scripts/lib/local-setup';

type Json = Record<string, any>;
const rt: Json = runtimeModule;
const local: Json = localModule;

/** Saves a credential of `type`; resolves with its id. */
export async function saveCredential(
	instance: Json,
	cookie: string,
	name: string,
	type: string,
	data: Json,
): Promise<string> {
	const saved = await rt.restCall(instance, 'POST', '/credentials', {
		cookie,
		body: { name, type, data },
	});
	expect(saved.status).toBe(200);
	return saved.json.data.id as string;
}

/** A Contact Center Record API credential with a new n8n API key of the data table scopes. */
export async function saveRecordCredential(
	instance: Json,
	cookie: string,
	name: string,
): Promise<string> {
	const offered = await rt.restCall(instance, 'GET', '/api-keys/scopes', { cookie });
	const { rawApiKey } = await rt.createApiKey(instance, cookie, {
		labelPrefix: name.toLowerCase().replace(/[^a-z0-9]+/g, '-'),
		scopes: local.dataTableScopes(offered.json.data ?? offered.json),
	});
	return await saveCredential(instance, cookie, name, 'contactCenterRecordApi', {
		baseUrl: `${instance.baseUrl}/api/v1`,
		apiKey: rawApiKey,
		dataTableName: 'contact_center_record',
	});
}
