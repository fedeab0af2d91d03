/**
 * End to end on n8n 2.41.1, one process, as operators of busy instances run n8n: successful
 * executions not saved (EXECUTIONS_DATA_SAVE_ON_SUCCESS=none, n8n's advice for busy instances), and
 * then the instance saving them but the workflow set to "Save successful production executions:
 * Do not save". The write back guarantee must not depend on what n8n saves: each event is processed
 * once on its first delivery, a redelivery after the answer is a 2xx duplicate, and so is one after
 * an n8n restart. The side effect is example 4's: a row per event in the conversations data table,
 * counted through n8n's public API after the runs.
 */
import * as helpersModule from './helpers';
import {
	type Json,
	answerOfWriteBack,
	conversationRows,
	executionsOf,
	expectWebhookRegistered,
	instance,
	redeliverExpectingDuplicate,
	restartN8n,
	rt,
	useOneProcessStack,
	webhook,
	workflowId,
} from './one-process';

const { report }: Json = helpersModule;

useOneProcessStack([], { EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'none' });

/** Each key's number of rows in the conversations table: how often the workflow ingested it. */
async function ingested(keys: string[]): Promise<Record<string, number>> {
	const rows = await conversationRows();
	return Object.fromEntries(
		keys.map((key) => [key, rows.filter((row) => row.idempotencyKey === key).length]),
	);
}

const once = (keys: string[]) => Object.fromEntries(keys.map((key) => [key, 1]));

/** First deliveries, then redeliveries after the answer, then redeliveries after a restart. */
async function deliverTwiceAroundARestart(keys: string[], env: Record<string, string>) {
	const url = webhook('writeBack');
	const first = await Promise.all(keys.map(async (key) => await answerOfWriteBack(url, key)));
	expect(first).toEqual(keys.map(() => '200 processed'));
	for (const key of keys) await redeliverExpectingDuplicate(key);
	expect(await ingested(keys)).toEqual(once(keys));

	await restartN8n(url, env);
	for (const key of keys) await redeliverExpectingDuplicate(key);
	expect(await ingested(keys)).toEqual(once(keys));
}

describe('write backs with n8n saving no successful executions', () => {
	test('EXECUTIONS_DATA_SAVE_ON_SUCCESS=none: 12 events, each ingested once across redeliveries and a restart, and no execution saved', async () => {
		const keys = Array.from({ length: 12 }, (_, i) => `unsaved-${Date.now()}-${i}`);
		await deliverTwiceAroundARestart(keys, { EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'none' });
		expect(await executionsOf(workflowId('writeBack'))).toEqual([]);
	});

	test('the workflow\'s "Do not save" with the instance saving everything: each event ingested once across redeliveries and a restart', async () => {
		const url = webhook('writeBack');
		await restartN8n(url, { EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'all' });
		const id = workflowId('writeBack');
		const current = await rt.publicApi(instance(), 'GET', `/workflows/${id}`);
		await rt.publicApi(instance(), 'PUT', `/workflows/${id}`, {
			name: current.name,
			nodes: current.nodes,
			connections: current.connections,
			settings: { ...current.settings, saveDataSuccessExecution: 'none' },
		});
		await rt.publicApi(instance(), 'POST', `/workflows/${id}/deactivate`);
		await rt.activateWorkflow(instance(), id);
		await expectWebhookRegistered(url);
		const before = (await executionsOf(id)).length;

		const keys = Array.from({ length: 6 }, (_, i) => `doNotSave-${Date.now()}-${i}`);
		await deliverTwiceAroundARestart(keys, { EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'all' });
		const saved = (await executionsOf(id)).length - before;
		report(`[e2e] executions saved with the workflow's "Do not save": ${saved}`);
		expect(saved).toBe(0);
	});
});
