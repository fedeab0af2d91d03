/**
 * A lookup called at the editor's Test URL ("Listen for test event"): the caller's answer is said
 * under the trigger's output, where n8n itself says only "Node executed successfully".
 */
import { deliver } from '../harness/run-trigger-flow';
import { signed, useRecordApi, writeBackFlow } from './recordFaults';

const fixture = useRecordApi();

const lookupFlow = (ifNoResponse: string) => ({
	...writeBackFlow(fixture.credentials),
	parameters: { endpoint: 'lookup', ifNoResponse },
});

const triggerHints = (flow: ReturnType<typeof lookupFlow>, executionId?: string) =>
	flow.database.executions.get(executionId ?? '')?.resultData.runData['Contact Center Trigger']?.[0]
		?.hints ?? [];

describe('a lookup at the Test URL', () => {
	it.each([
		['notFound', 404, '404 (no lookup found)'],
		['serverError', 500, '500 (error)'],
	])(
		'If No Response Is Sent %s: answered %i, and the trigger output warns that no Respond to Lookup follows',
		async (ifNoResponse, status, answer) => {
			const flow = lookupFlow(ifNoResponse);
			const result = await deliver(flow, {
				...signed({ email: 'ada@example.com' }),
				mode: 'manual',
			});
			expect(result.status).toBe(status);
			expect(triggerHints(flow, result.executionId)).toEqual([
				{
					type: 'warning',
					location: 'outputPane',
					message: `The caller was answered ${answer}: no "Respond to Lookup" follows this trigger. Add a Contact Center node "Respond to Lookup" after it to answer with attributes.`,
				},
			]);
		},
	);

	it('adds no hint to a production call', async () => {
		const flow = lookupFlow('notFound');
		const result = await deliver(flow, signed({ email: 'ada@example.com' }));
		expect(result.status).toBe(404);
		expect(triggerHints(flow, result.executionId)).toEqual([]);
	});
});
