/**
 * What the Send Once benchmarks share: their campaign workflows activated in the suite's n8n, one
 * campaign posted to a workflow's webhook and awaited, and the figures read from the simulator's log.
 */
import { e2e, rt, type Json, type SuiteStack } from './localStack';

const { waitFor } = e2e;

/** Activates the workflows (each started by a webhook) before the suite's tests. */
export function activateWhenStarted(suite: SuiteStack, workflows: Json[]): void {
	beforeAll(async () => {
		for (const workflow of workflows) {
			await rt.activateWorkflow(suite.stack.instance, workflow.id);
			await waitFor(
				async () =>
					(await rt.registeredWebhooks(suite.stack.instance)).some(
						(r: Json) => r.workflowId === workflow.id,
					),
				{ what: `the webhook of ${workflow.id}` },
			);
		}
	}, 900_000);
}

export interface CampaignRun {
	/** The execution as n8n lists it, once stopped. */
	execution: Json;
	/** The sends the simulator accepted for this campaign. */
	accepted: Json[];
}

/**
 * Posts the campaign (its body names `campaign`, the simulator's metadata of each send) to the
 * workflow's webhook path and waits for the new execution to stop.
 */
export async function runCampaign(
	suite: SuiteStack,
	workflowId: string,
	webhookPath: string,
	body: Json,
	timeoutMs: number,
): Promise<CampaignRun> {
	const { instance, simulator } = suite.stack;
	const requestsBefore = (simulator.requests as Json[]).length;
	const known = new Set((await rt.listExecutions(instance, { workflowId })).map((e: Json) => e.id));
	const url = `${instance.baseUrl}/webhook/${webhookPath}`;
	await rt.waitForWebhook(url);
	const res = await fetch(url, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(body),
	});
	expect(res.status).toBe(200);
	const execution = await waitFor(
		async () =>
			(await rt.listExecutions(instance, { workflowId })).find(
				(e: Json) => !known.has(e.id) && e.stoppedAt,
			),
		{ what: `the campaign of ${workflowId} to end`, timeoutMs, intervalMs: 250 },
	);
	const accepted = (simulator.requests as Json[])
		.slice(requestsBefore)
		.filter(
			(r) =>
				r.method === 'POST' &&
				r.path.replace(/\/+$/, '') === '/proactive-messaging' &&
				r.status === 200 &&
				r.body?.metadata?.campaign === body.campaign,
		);
	return { execution, accepted };
}

export interface CampaignFigures {
	/** Contacts messaged more than once. */
	twice: number;
	/** Contacts messaged at least once. */
	contacts: number;
	/** (accepted - 1) / ((last accept - first accept) / window x limit). */
	share: number;
	/** The execution's start to stop. */
	makespanMs: number;
	/** The three longest gaps between two accepted sends, with the send after each (1-based). */
	longestGaps: Array<{ ms: number; before: number }>;
}

export function campaignFigures(
	{ execution, accepted }: CampaignRun,
	limit: number,
	windowMs: number,
): CampaignFigures {
	const perContact = new Map<string, number>();
	for (const r of accepted)
		perContact.set(r.body.contact, (perContact.get(r.body.contact) ?? 0) + 1);
	const times = accepted.map((r) => r.at).sort((a, b) => a - b);
	const spanMs = times.length > 1 ? times[times.length - 1] - times[0] : 0;
	return {
		twice: [...perContact.values()].filter((n) => n > 1).length,
		contacts: perContact.size,
		share: spanMs > 0 ? (accepted.length - 1) / ((spanMs / windowMs) * limit) : 0,
		makespanMs: Date.parse(execution.stoppedAt) - Date.parse(execution.startedAt),
		longestGaps: times
			.slice(1)
			.map((at, k) => ({ ms: at - times[k], before: k + 2 }))
			.sort((a, b) => b.ms - a.ms)
			.slice(0, 3),
	};
}
