import {
	type IDataObject,
	type IExecuteFunctions,
	type IHookFunctions,
	type INodeExecutionData,
	type INodeProperties,
	type IWebhookFunctions,
	type IWebhookResponseData,
	type NodeOperationError,
} from 'n8n-workflow';

import { once, type Ticket, type Work } from '../shared/once';
import { operationError } from '../shared/operationError';
import {
	RECORD_KEY_STEPS,
	isKeyExpiredError,
	recordFailureCauseOf,
	warnIfKeyExpiresSoon,
	warnIfStorageNearlyFull,
	type RecordFailureCause,
} from '../shared/recordApi';
import {
	SUPPORTED_N8N,
	answerFailedRun,
	answerWithoutRun,
	answerWriteBack,
	assertRunEndReadable,
	whenRunEnds,
	writeBackAnswer,
	type WriteBackStatus,
} from './answers';
import {
	askForKeptInMemoryReport,
	carryReportUrl,
	refuse,
	withoutReportUrl,
	type Refusal,
} from './reports';
import { pausingNodesAfter, pausingNodesError, pausingNodesText } from './pausingNodes';
import { KNOWN_WRITE_BACK_TYPES, simplifyWriteBack } from './simplify';

/**
 * The Write Back endpoint: the service sends a conversation (spec 2.11) and delivers it again
 * until it gets a 2xx answer. Each event runs the workflow once: the webhook call takes the
 * event's idempotency key (see ../shared/once) before any run starts, and the run records it
 * done before the service gets 200, or releases it when it fails.
 */

/** Value of the Events option that stands for every write back type other than the documented two. */
const OTHER_WRITE_BACK_TYPES = 'other';

const show = { show: { endpoint: ['writeBack'] } };

export const writeBackProperties: INodeProperties[] = [
	{
		displayName:
			'Paste the Production URL into the service as Write Back URL; with a Record API credential each event runs once',
		name: 'writeBackNotice',
		type: 'notice',
		default: '',
		displayOptions: show,
	},
	{
		displayName: 'Events',
		name: 'events',
		type: 'multiOptions',
		displayOptions: show,
		options: [
			{
				name: 'Conversation Resolved',
				value: 'CONVERSATION_RESOLVED',
				description: 'An agent resolved a conversation',
			},
			{
				name: 'Conversation Set to Pending',
				value: 'CONVERSATION_SET_TO_PENDING',
				description: 'An agent set a conversation to pending',
			},
			{
				name: 'Any Other Type',
				value: OTHER_WRITE_BACK_TYPES,
				description: 'Types the service may add later, passed on as sent',
			},
		],
		default: ['CONVERSATION_RESOLVED', 'CONVERSATION_SET_TO_PENDING', OTHER_WRITE_BACK_TYPES],
		description:
			'Write back types that run the workflow. A delivery of another type is answered 200 and runs nothing.',
	},
	{
		displayName: 'Respond',
		name: 'respond',
		type: 'options',
		noDataExpression: true,
		displayOptions: show,
		options: [
			{
				name: 'After the Workflow Succeeds',
				value: 'afterSuccess',
				description: '200 once the run succeeds, else it is delivered again',
			},
			{
				name: 'Immediately',
				value: 'immediately',
				description: '200 at once; a failed run is not delivered again',
			},
		],
		default: 'afterSuccess',
		description: 'When the service gets its answer to a write back delivery',
	},
	{
		displayName: 'Simplify',
		name: 'simplify',
		type: 'boolean',
		displayOptions: show,
		default: false,
		description:
			'Whether to flatten a resolved or pending conversation into one CRM row (conversation, channel, contact and agent fields, contact attributes as an object, the transcript, notes and topics as text) instead of passing the payload on as sent. Other types are always passed on as sent.',
	},
];

/** The idempotency key of a write back payload, or undefined when it carries none usable. */
export function idempotencyKeyOf(payload: IDataObject): string | undefined {
	const key = payload.idempotencyKey;
	if (typeof key === 'string' && key.trim() !== '') return key;
	if (typeof key === 'number' && Number.isFinite(key)) return String(key);
	return undefined;
}

/** The write back trigger's work in the record: its webhook id, kept through renames, imports and API updates. */
const workOf = (context: { getNode(): { webhookId?: string; id: string } }, key: string): Work => ({
	scope: writeBackScopeOf(context),
	key,
});

const writeBackScopeOf = (context: { getNode(): { webhookId?: string; id: string } }) =>
	`writeBack:${context.getNode().webhookId ?? context.getNode().id}`;

/** Whether the delivery's event type is one the trigger's Events option selects. */
function isSelectedWriteBack(context: IWebhookFunctions, body: IDataObject): boolean {
	const type = typeof body.type === 'string' ? body.type : '';
	const events = context.getNodeParameter('events', []) as string[];
	return KNOWN_WRITE_BACK_TYPES.includes(type)
		? events.includes(type)
		: events.includes(OTHER_WRITE_BACK_TYPES);
}

const answerStatus = (context: IWebhookFunctions, status: WriteBackStatus, key?: string) => {
	const { statusCode, body } = writeBackAnswer(status, key);
	return answerWithoutRun(context, statusCode, body);
};

/**
 * The webhook call of a write back, in whichever n8n process received it: takes the delivery's
 * key before any run starts. A key done before is answered `duplicate`, one another delivery is
 * running is answered `running` (409); neither starts a run. The editor's test URL keeps no
 * record, so that tests never mark production deliveries done.
 */
export async function receiveWriteBack(
	context: IWebhookFunctions,
	body: IDataObject,
): Promise<IWebhookResponseData> {
	const key = idempotencyKeyOf(body);
	if (!isSelectedWriteBack(context, body)) return answerStatus(context, 'ignored', key);

	let ticket: Ticket | undefined;
	if (key !== undefined && context.getMode() !== 'manual') {
		let claimed;
		try {
			claimed = await once.claim(context, workOf(context, key), 'writeBack');
		} catch (error) {
			// Without the record a run could not be kept to once: not run, the service delivers again.
			return refuse(
				context,
				'writeBack',
				recordRefusal(
					error as NodeOperationError,
					once.countDoneOnlyInMemory(writeBackScopeOf(context)),
				),
			);
		}
		if (claimed.state === 'done') return answerStatus(context, 'duplicate', key);
		if (claimed.state === 'running') return answerStatus(context, 'running', key);
		ticket = claimed.ticket;
	}

	const simplify = context.getNodeParameter('simplify', false) as boolean;
	const items = context.helpers.returnJsonArray(simplify ? simplifyWriteBack(body) : body);
	once.handToRun(items[0], ticket);
	carryReportUrl(context, items[0]);
	return { workflowData: [items] };
}

/**
 * The run of a write back, as the first node of the run, in whichever process runs it. A run that
 * succeeded records its key done before the service gets 200 (or, while n8n's API does not take
 * the row, counts it as done in this process and writes the row as soon as the API takes it), and
 * a run that fails releases the key (the service's redelivery runs again).
 */
export async function runWriteBack(
	context: IExecuteFunctions,
	input: INodeExecutionData[],
): Promise<INodeExecutionData[][]> {
	const key = input.length > 0 ? idempotencyKeyOf(input[0].json) : undefined;
	const items = withoutReportUrl(once.withoutTicket(input));
	let ticket: Ticket | undefined;
	if (key !== undefined && context.getMode() !== 'manual') {
		await warnIfKeyExpiresSoon(context);
		await warnIfStorageNearlyFull(context);
		const taken = await once.claimInRun(context, workOf(context, key), input[0]);
		if ('skip' in taken) {
			context.logger.info(
				`Contact Center Trigger: write back ${key} is ${taken.skip} in another delivery, so this run that n8n started again after a restart does nothing`,
			);
			return [[]];
		}
		ticket = taken.ticket;
	}
	const respond = context.getNodeParameter('respond', 0, 'afterSuccess') as string;
	if (respond === 'immediately') {
		if (ticket !== undefined) await recordBeforeAnswering(context, ticket);
		await answerWriteBack(context, 'processed', key);
		return [items];
	}
	await refuseRunsThatPause(context, ticket);
	const registered = whenRunEnds(context, async (outcome) => {
		if (outcome === 'failed') {
			if (ticket !== undefined) await releaseAfterFailedRun(context, ticket);
			await answerFailedRun(context);
			return;
		}
		if (outcome === 'unknown') {
			// Not seen with n8n 2.36 to 2.41. Releasing the key would run the workflow again for
			// every redelivery, each ending the same way: it runs at most once instead.
			context.logger.error(
				`Contact Center Trigger "${context.getNode().name}": n8n did not say how the run of write back ${key ?? '(no idempotency key)'} ended (execution ${context.getExecutionId()}), neither in memory nor in a saved execution, so it is counted as processed and answered 200: a redelivery is answered "duplicate" and does not run the workflow again, even if this run failed. Check execution ${context.getExecutionId()}; the trigger supports ${SUPPORTED_N8N}.`,
			);
		}
		// Done from now on, also while n8n's API does not take its row yet, so that no redelivery
		// runs it again.
		if (ticket !== undefined) await once.finish(context, ticket, '', 'keepTrying');
		await answerWriteBack(context, 'processed', key);
		const kept = once.countDoneOnlyInMemory(writeBackScopeOf(context));
		await askForKeptInMemoryReport(context, input[0], kept);
	});
	if (!registered) {
		// Without the hook nothing could answer or record the event once the run ends: it is
		// answered as with Respond "Immediately", so that it runs at most once.
		context.logger.error(
			`Contact Center Trigger "${context.getNode().name}": this n8n gives the run of write back ${key ?? '(no idempotency key)'} (execution ${context.getExecutionId()}) no execution-finish hook, so it is recorded as processed and answered 200 as it starts, as with Respond "Immediately": should the run fail, the event is not delivered again. The trigger supports ${SUPPORTED_N8N}.`,
		);
		if (ticket !== undefined) await recordBeforeAnswering(context, ticket);
		await answerWriteBack(context, 'processed', key);
	}
	return [items];
}

/**
 * A run answered after it succeeds must not pause (see ./pausingNodes). Activation refuses such a
 * workflow; should one run all the same (activated by an older version of the trigger), it fails
 * before any other node ran, its key released and the delivery answered 500, rather than answered
 * 200 before it is done. A test run records nothing: it runs, with a warning.
 */
async function refuseRunsThatPause(context: IExecuteFunctions, ticket: Ticket | undefined) {
	const pausing = pausingNodesAfter(context, context.getNode().name);
	if (pausing.length === 0) return;
	if (context.getMode() === 'manual') {
		const { message, description } = pausingNodesText(pausing);
		context.addExecutionHints({
			type: 'warning',
			location: 'outputPane',
			message: `${message}: a published workflow refuses to activate. ${description}`,
		});
		return;
	}
	if (ticket !== undefined) await releaseAfterFailedRun(context, ticket);
	await answerFailedRun(context);
	throw pausingNodesError(context.getNode(), pausing);
}

/** Releases a failed run's key; a release n8n's API does not take only delays the redelivery. */
async function releaseAfterFailedRun(context: IExecuteFunctions, ticket: Ticket): Promise<void> {
	await once.releaseQuietly(
		context,
		ticket,
		(reason) =>
			`Contact Center Trigger: write back ${ticket.work.key} could not be released after its failed run (${reason}); a redelivery within 15 minutes is answered 409`,
	);
}

/** n8n's own words for a full storage: "… 200MB used, limit is 200MB". */
const SIZE_LIMIT_FIGURES = /(\d+(?:\.\d+)?)\s*MB used, limit is (\d+(?:\.\d+)?)\s*MB/i;

/** A delivery refused because the record could not be used, in the user's words. */
function recordRefusal(error: NodeOperationError, kept: number): Refusal {
	const detail = error.message;
	const cause = recordFailureCauseOf(error);
	const figures = SIZE_LIMIT_FIGURES.exec(detail);
	const what: Record<RecordFailureCause, string> = {
		storageFull: `n8n's data table storage is full${figures ? ` (${figures[1]} MB of ${figures[2]} MB used)` : ''}, so the write back record cannot take new rows`,
		recordKey: `The record's n8n API key ${isKeyExpiredError(error) ? 'expired' : 'was refused by n8n'} (${detail})`,
		apiUnavailable: `n8n's API did not answer the write back record's calls (${detail})`,
		apiRateLimited: `n8n's API rate-limited the write back record's calls (${detail})`,
		recordUnusable: `The write back record could not be used (${detail})`,
	};
	const keptText =
		kept === 0
			? ''
			: ` Meanwhile ${kept} processed write back${kept === 1 ? ' is' : 's are'} kept as done only in this n8n process's memory until n8n takes ${kept === 1 ? 'its row' : 'their rows'}: should n8n restart before, a redelivery of one of them would run again.`;
	return {
		cause,
		status: 503,
		answer: `The write back record could not be read, so the delivery was not processed: ${detail}`,
		what: what[cause],
		fix: `${cause === 'recordKey' ? RECORD_KEY_STEPS : (error.description ?? '')}${keptText}`,
	};
}

/** Answering at once: a key not recorded is not answered 200 and not run. */
async function recordBeforeAnswering(context: IExecuteFunctions, ticket: Ticket): Promise<void> {
	try {
		await once.finish(context, ticket, '', 'throw');
	} catch (error) {
		throw operationError(
			context.getNode(),
			`The write back could not be recorded as processed, so it was not answered 200: ${(error as Error).message}`,
			{
				description:
					`The service delivers it again later. ${(error as NodeOperationError).description ?? ''}`.trim(),
			},
		);
	}
}

/**
 * Activation (and n8n's start) refuses a workflow whose run can pause when the delivery is answered
 * after the run succeeds (see ./pausingNodes), and checks the record, creating its data table, so that a broken one
 * fails there with a clear message instead of failing every call later, and loads the record
 * anew: rows deleted by hand count from now on.
 */
export async function activateWriteBack(context: IHookFunctions): Promise<void> {
	if (context.getNodeParameter('respond', 'afterSuccess') !== 'immediately') {
		assertRunEndReadable(context);
		// The editor's test URL records nothing: a test run warns instead (refuseRunsThatPause).
		if (context.getMode() !== 'manual') {
			const pausing = pausingNodesAfter(context, context.getNode().name);
			if (pausing.length > 0) throw pausingNodesError(context.getNode(), pausing);
		}
	}
	try {
		await once.activate(context, writeBackScopeOf(context));
	} catch (error) {
		const cause = error as NodeOperationError;
		throw operationError(
			context.getNode(),
			`The write back record cannot be used: ${cause.message}`,
			{ description: cause.description ?? undefined },
		);
	}
}

export function deactivateWriteBack(context: IHookFunctions): void {
	once.deactivate(writeBackScopeOf(context));
}
