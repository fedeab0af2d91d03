import type {
	IExecuteFunctions,
	IExecuteResponsePromiseData,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

import { LOOKUP_ANSWERED_FLAG, buildLookupHttpResponse } from '../shared/lookupResponse';
import { SUPPORTED_N8N, answerFailedRun, jsonResponse, whenRunEnds } from './answers';

/** The Lookup endpoint: the service asks for a contact's attributes (spec 2.9). */

export const lookupProperties: INodeProperties[] = [
	{
		displayName:
			'Paste the Production URL into the service as Lookup URL; answer with the Contact Center node\'s "Respond to Lookup"',
		name: 'lookupNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { endpoint: ['lookup'] } },
	},
	{
		displayName: 'If No Response Is Sent',
		name: 'ifNoResponse',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { endpoint: ['lookup'] } },
		options: [
			{
				name: 'Answer 404 (No Lookup Found)',
				value: 'notFound',
				description: 'Shown as "no lookup found"; attributes unchanged',
			},
			{
				name: 'Answer 500 (Error)',
				value: 'serverError',
				description: 'The service treats the lookup as failed',
			},
		],
		default: 'notFound',
		description:
			'How the lookup is answered when the run ends without reaching a "Respond to Lookup" operation, for example because a search returned no item and the branch stopped. A failed run is always answered 500.',
	},
];

/** Whether a node after the trigger answers the lookup: an enabled Contact Center "Respond to Lookup". */
function respondFollows(context: IExecuteFunctions): boolean {
	const actionType = context.getNode().type.replace(/Trigger$/, '');
	return context
		.getChildNodes(context.getNode().name, { includeNodeParameters: true })
		.some(
			(node) =>
				node.type === actionType &&
				node.disabled !== true &&
				node.parameters?.resource === 'crmLookup' &&
				node.parameters?.operation === 'respond',
		);
}

/**
 * A test run (the editor's "Listen for test event"): says under the trigger's output what the
 * caller is answered, since n8n's "Node executed successfully" does not. A test of the trigger
 * alone ends at the trigger, so even a "Respond to Lookup" after it does not run then.
 */
function hintTestAnswer(context: IExecuteFunctions, ifNoResponse: string): void {
	const fallback = ifNoResponse === 'serverError' ? '500 (error)' : '404 (no lookup found)';
	context.addExecutionHints(
		respondFollows(context)
			? {
					type: 'info',
					location: 'outputPane',
					message: `The caller gets the answer of "Respond to Lookup" once this run reaches it; a run that ends before (as a test of this trigger alone does) answers ${fallback}.`,
				}
			: {
					type: 'warning',
					location: 'outputPane',
					message: `The caller was answered ${fallback}: no "Respond to Lookup" follows this trigger. Add a Contact Center node "Respond to Lookup" after it to answer with attributes.`,
				},
	);
}

/**
 * The run of a lookup: when it ends without a "Respond to Lookup" answer, the trigger answers 404
 * (or 500) itself, so the answer is the same in one n8n process and in queue mode.
 */
export function runLookup(
	context: IExecuteFunctions,
	items: INodeExecutionData[],
): INodeExecutionData[][] {
	const flow = context.getContext('flow');
	const ifNoResponse = context.getNodeParameter('ifNoResponse', 0, 'notFound') as string;
	if (context.getMode() === 'manual') hintTestAnswer(context, ifNoResponse);
	const registered = whenRunEnds(
		context,
		async (outcome) => {
			if (outcome === 'failed') return await answerFailedRun(context);
			const response =
				ifNoResponse === 'serverError'
					? jsonResponse(500, { message: 'The lookup workflow ended without an answer' })
					: buildLookupHttpResponse(undefined);
			await context.sendResponse(response as IExecuteResponsePromiseData);
		},
		() => flow[LOOKUP_ANSWERED_FLAG] === true,
	);
	if (!registered) {
		context.logger.error(
			`Contact Center Trigger "${context.getNode().name}": this n8n gives the lookup run (execution ${context.getExecutionId()}) no execution-finish hook, so a run that ends without Respond to Lookup, or fails, is answered by n8n itself, not ${ifNoResponse === 'serverError' ? '500' : '404'}. The trigger supports ${SUPPORTED_N8N}.`,
		);
	}
	return [items];
}
