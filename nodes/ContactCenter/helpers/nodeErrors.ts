import { NodeApiError, NodeOperationError, type INode, type JsonObject } from 'n8n-workflow';

import { ServiceRequestError } from '../transport';
import { MetricParameterError } from './metrics';
import { SendFieldError } from '../actions/proactiveMessage/send/body';
import { mayHaveReachedService } from './serviceError';
import { TemplateFieldError } from './templateShorthand';

/** What the failing call was doing, so that the error can say what to fix. */
export type ErrorContext =
	| { operation: 'send' }
	| { operation: 'status'; correlationId: string }
	| { operation: 'metric'; metricName: string }
	| { operation: 'unknown' };

/** Field names the service uses in its messages, mapped to the fields of the node. */
const SEND_FIELD_LABELS: Record<string, string> = {
	medium: 'Medium',
	channel: 'Channel',
	contact: 'Contact',
	contactReference: 'Contact',
	text: 'Text',
	metadata: 'Metadata',
};

const quote = (messages: string[]) => messages.map((m) => `"${m}"`).join(', ');

export const NOT_SENT = 'The message was not sent.';
export const MAY_HAVE_BEEN_SENT =
	'The message may have been sent: check the messages export before sending again.';

/** Ends a description with the sentence saying that the message was not sent. */
export function withNotSent(description: string | null | undefined): string {
	const fix = (description ?? '').trim();
	if (fix === '') return NOT_SENT;
	return `${/[.!?]$/.test(fix) ? fix : `${fix}.`} ${NOT_SENT}`;
}

function sendFieldsNamedIn(messages: string[]): string[] {
	const labels = messages
		.map((message) => SEND_FIELD_LABELS[message.split(':')[0].trim()])
		.filter((label): label is string => label !== undefined);
	return [...new Set(labels)];
}

function describeFailure(
	{ failure, attempts, uncertainAttempts }: ServiceRequestError,
	context: ErrorContext,
): { message: string; description: string } {
	const said = failure.messages.length ? `: ${quote(failure.messages)}` : '';
	const tried = attempts > 1 ? ` (tried ${attempts} times)` : '';
	const outcome = uncertainAttempts > 0 ? MAY_HAVE_BEEN_SENT : NOT_SENT;
	const notSent = context.operation === 'send' ? ` ${outcome}` : '';
	switch (failure.kind) {
		case 'validation':
			if (context.operation === 'send') {
				const fields = sendFieldsNamedIn(failure.messages);
				return {
					message: `The service refused the message${said}`,
					description: `${fields.length ? `Check ${fields.map((f) => `'${f}'`).join(' and ')}.` : 'Check Medium (MESSAGEBIRD, TWILIO or WHATSAPP), Channel, Contact and the message.'}${notSent}`,
				};
			}
			if (context.operation === 'metric') {
				return {
					message: `The service refused the parameters of ${context.metricName}${said}`,
					description:
						'Check From (at most 14 days back), To (after From), Medium, Group By Interval (at most 60 intervals) and Timezone',
				};
			}
			return {
				message: `The service refused the request${said}`,
				description: "Check 'Correlation ID': use the correlationId that Send returned",
			};
		case 'notFound':
			return context.operation === 'status'
				? {
						message: `The service found nothing for correlation ID '${context.correlationId}'${said}`,
						description:
							'Use the correlationId that Send returned, with a credential of the same organization that sent the message',
					}
				: {
						message: `The service answered 'not found'${said}`,
						description:
							"Check the credential's Base URL: it must be the base address of your regional deployment, without a path",
					};
		case 'rateLimited':
			return {
				message: `The service's send rate limit was reached${tried}${said}`,
				description: `The service accepts a limited number of messages per period for your organization. Set 'Rate Limit Messages' and 'Rate Limit Period (Seconds)' to the limit of your account, raise 'Rate Limit Wait (Minutes)' when other senders share the limit, or send this item again later.${notSent}`,
			};
		case 'unauthorized':
			return {
				message: `The service refused the credentials${said}`,
				description:
					"Open the 'Contact Center OAuth2 API' credential and check Base URL (the US and EU deployments differ), Client ID and Client Secret (Settings -> Integration & APIs -> Rest API Keys)." +
					notSent,
			};
		case 'serverError':
			return {
				message: `The service failed with HTTP ${failure.status}${tried}${said}`,
				description: `This is a problem on the service's side: try again later.${notSent}`,
			};
		// The system error code goes into the description: n8n replaces a message naming one.
		case 'networkError':
			return {
				message: `${mayHaveReachedService(failure) ? 'The connection to the service failed before its answer arrived' : 'The service could not be reached'}${tried}`,
				description: `${failure.messages.join('; ')}. Check the credential's Base URL and the network between n8n and the service.${notSent}`,
			};
		case 'unexpectedResponse':
			return {
				message: `The service answered with an unexpected HTTP ${failure.status}${said}`,
				description:
					'Check the Base URL of the credential: it may point at something other than the service',
			};
	}
}

/** Turns any error raised while handling one item into the NodeApiError/NodeOperationError n8n shows. */
export function toNodeError(
	node: INode,
	error: unknown,
	itemIndex: number,
	context: ErrorContext,
): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	if (error instanceof ServiceRequestError) {
		const { message, description } = describeFailure(error, context);
		return new NodeApiError(
			node,
			{
				kind: error.failure.kind,
				messages: error.failure.messages,
				...(error.failure.status !== undefined ? { status: error.failure.status } : {}),
			} as JsonObject,
			{
				message,
				description,
				itemIndex,
				...(error.failure.status !== undefined ? { httpCode: String(error.failure.status) } : {}),
			},
		);
	}
	if (
		error instanceof MetricParameterError ||
		error instanceof TemplateFieldError ||
		error instanceof SendFieldError
	) {
		return new NodeOperationError(node, error.message, { description: error.fix, itemIndex });
	}
	return new NodeOperationError(node, error as Error, { itemIndex });
}
