import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { ContactCenter } from '../../nodes/ContactCenter/ContactCenter.node';
import { createCredentialStore, runNode, type CredentialStore } from '../harness';
import { startSimulator } from '../simulator';

export type Simulator = Awaited<ReturnType<typeof startSimulator>>;

/** A simulator of the service and a credential store pointing at it, shared by a test file. */
export function useSimulator(options: Parameters<typeof startSimulator>[0] = {}) {
	const fixture = {} as { sim: Simulator; credentials: CredentialStore };
	beforeAll(async () => {
		fixture.sim = await startSimulator(options);
		fixture.credentials = createCredentialStore({
			contactCenterOAuth2Api: {
				baseUrl: fixture.sim.url,
				clientId: 'sim-client-id',
				clientSecret: 'sim-client-secret',
			},
		});
	});
	afterAll(async () => await fixture.sim.stop());
	return fixture;
}

/** Runs the Contact Center node through n8n-core's real ExecuteContext. */
export async function runContactCenter(
	credentials: CredentialStore,
	parameters: INodeParameters,
	inputItems: IDataObject[] = [{}],
	continueOnFail = false,
) {
	const result = await runNode({
		nodeType: new ContactCenter(),
		parameters,
		credentials,
		continueOnFail,
		inputItems: inputItems.map((json) => ({ json })),
	});
	const items: INodeExecutionData[] = result.output?.[0] ?? [];
	return { ...result, items, json: items.map((item) => item.json) };
}

/** Send's parameters; its rows say how each message was sent (Include Send Details) unless told otherwise. */
export const sendParameters = (overrides: INodeParameters = {}): INodeParameters => ({
	resource: 'proactiveMessage',
	operation: 'send',
	medium: 'TWILIO',
	channel: 'Support SMS',
	contact: '+15551230001',
	text: 'Your order has shipped',
	// Send Once keeps its record in an n8n data table through n8n's public API: it is tested in the
	// e2e suites against a real n8n; here each send is sent.
	sendOnce: 'off',
	...overrides,
	options: { includeSendDetails: true, ...((overrides.options as INodeParameters) ?? {}) },
});

/** Error messages and descriptions as n8n shows them. */
export function describeError(error: unknown): { message: string; description: string } {
	const { message, description } = (error ?? {}) as {
		message?: string;
		description?: string | null;
	};
	return { message: message ?? '', description: description ?? '' };
}
