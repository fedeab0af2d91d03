import { createCredentialStore } from '../harness';
import {
	describeError,
	runContactCenter,
	sendParameters,
	useSimulator,
} from './contactCenterFixture';

/** A node whose credential was never picked is told so by the credential's name, not its internal type. */
describe('Contact Center: a credential not selected in the node', () => {
	const fixture = useSimulator();

	it('names the OAuth2 credential by its display name, before anything is sent', async () => {
		const { error } = await runContactCenter(createCredentialStore({}), sendParameters());
		expect(describeError(error)).toEqual({
			message: 'No "Contact Center OAuth2 API" credential is selected in this node',
			description: expect.stringContaining(
				'pick a credential in its "Contact Center OAuth2 API" field, near the top of its Parameters tab, between Resource and Operation',
			),
		});
		expect(fixture.sim.requests.filter((r) => r.method === 'POST')).toHaveLength(0);
	});

	it('names the record credential by its display name when Send Once needs it', async () => {
		const { error, json } = await runContactCenter(
			fixture.credentials,
			sendParameters({ sendOnce: 'message', sendOnceStore: 'dataTable' }),
			[{}],
			true,
		);
		const said = JSON.stringify(error ?? json);
		expect(said).toContain(
			'No \\"Contact Center Record API\\" credential is selected in this node',
		);
		expect(said).not.toContain('contactCenterRecordApi');
		expect(said).toContain('Or set Send Once to Off');
	});
});
