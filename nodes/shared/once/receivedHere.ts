/**
 * Whether a write back's run happens in the n8n process that received its webhook call.
 *
 * n8n runs a production execution in the process that received its webhook call, except in queue
 * mode, where a worker runs it from the database (n8n's WorkflowRunner: production executions are
 * enqueued in queue mode, run in the receiving process otherwise; several n8n processes only ever
 * share executions through queue mode). So when a run finds its input item as this process's
 * webhook call made it, this one n8n process receives and runs every delivery, and its memory sees
 * every delivery of a node that runs at the same time. A queue-mode worker never finds the mark
 * (its input came through the database), and a queue-mode webhook process never runs a production
 * execution, so neither ever learns that runs stay here.
 */
import { state } from './state';

/** Marks the item the webhook call hands to its run. */
export function markReceivedHere(json: object): void {
	state.receivedHere.add(json);
}

/**
 * For a production run (not the editor's test URL, which runs in the receiving process in every
 * mode): whether its input is the item this process's webhook call made; if so, this process
 * remembers that its production runs stay here.
 */
export function productionRunWasReceivedHere(json: object): boolean {
	const here = state.receivedHere.has(json);
	if (here) state.productionRunsStayHere = true;
	return here;
}

/** Whether a production run of this process was ever found to run where its call was received. */
export function productionRunsStayInThisProcess(): boolean {
	return state.productionRunsStayHere;
}
