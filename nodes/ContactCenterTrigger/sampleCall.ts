import { randomUUID } from 'crypto';
import { sleep, type IDataObject, type IHookFunctions, type INodeProperties } from 'n8n-workflow';

import type { Endpoint } from './description';
import { computeSignature, SIGNATURE_HEADER } from './signature';
import { signingKeyOf } from './signedRequest';

/**
 * Test Event: Signed Sample Call lets a user try the trigger from the editor alone. When a test
 * run starts listening (Execute step), the trigger calls its own Test URL with a sample call of
 * its endpoint, signed with the credential's secret as the service signs: the call goes through
 * the same signature check as the service's, and runs the workflow in the editor.
 */
export const testEventProperties: INodeProperties[] = [
	{
		displayName: 'Test Event',
		name: 'testEvent',
		type: 'options',
		noDataExpression: true,
		default: 'service',
		description:
			"What a test run (Execute step) waits for. Published, the workflow takes only the service's signed calls.",
		options: [
			{
				name: "The Service's Call",
				value: 'service',
				description: 'A signed call to the Test URL, as the service makes',
			},
			{
				name: 'Signed Sample Call',
				value: 'sample',
				description: 'A sample call signed with the credential, sent by n8n',
			},
		],
	},
	{
		displayName:
			'Execute step: n8n calls the Test URL with a sample call signed with this credential',
		name: 'sampleCallNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { testEvent: ['sample'] } },
	},
];

/** Sample bodies of the service's calls (spec 2.9, 2.11, 2.12). */
export function sampleBody(endpoint: Endpoint, now: Date): IDataObject {
	if (endpoint === 'lookup') return { email: 'ada@example.com' };
	if (endpoint === 'notification') {
		return {
			timestamp: now.toISOString(),
			version: 1,
			eventType: 'DATA_IMPORT_ERROR',
			messages: ['Sample notification: attribute tier exceeds the maximum length of 32'],
		};
	}
	const idempotencyKey = `sample-${randomUUID()}`;
	return {
		type: 'CONVERSATION_RESOLVED',
		version: 1,
		idempotencyKey,
		data: {
			medium: { id: 'whatsapp' },
			channel: { id: 'sample-channel', name: 'Support WhatsApp' },
			contactProfile: {
				id: 'sample-contact',
				mediumContactProfileId: 'wa-31612345678',
				primaryIdentifier: '+31612345678',
				secondaryIdentifier: 'Ada',
			},
			conversation: {
				id: `sample-conversation-${idempotencyKey.slice(7, 15)}`,
				createdAt: new Date(now.getTime() - 15 * 60_000).toISOString(),
				previousStatus: 'new',
				currentStatus: 'resolved',
			},
			statusUpdatedAt: now.toISOString(),
			statusUpdatedReason: 'agentResolved',
			agent: {
				id: 'sample-agent',
				firstName: 'Alan',
				lastName: 'Turing',
				email: 'alan@example.com',
			},
			contactAttributes: [
				{ attribute: 'email', value: 'ada@example.com', source: 'CRM_CONFIRMED' },
			],
			messages: [
				{ id: 'm1', direction: 'INBOUND', text: 'Where is my order?' },
				{ id: 'm2', direction: 'OUTBOUND', text: 'It ships today.' },
			],
			notes: [],
			topics: [{ id: 't1', name: 'Order status' }],
		},
	};
}

/** How long after the test run starts listening the sample call is made: n8n stores the Test URL first. */
const SAMPLE_CALL_DELAY_MS = 1500;

/**
 * At the start of a test run (n8n registering the Test URL, activation mode `manual`) with Test
 * Event: Signed Sample Call: makes the signed sample call in the background. Its answer goes to
 * n8n's log; a call that cannot reach the Test URL is a warning there, naming the cause.
 */
export async function startSampleCall(context: IHookFunctions, endpoint: Endpoint): Promise<void> {
	if (context.getNodeParameter('testEvent', 'service') !== 'sample') return;
	if (context.getActivationMode() !== 'manual') return;
	const signingKey = await signingKeyOf(context);
	if (!signingKey.ok) {
		context.logger.warn(
			`Contact Center Trigger: no signed sample ${endpoint} call was made: ${signingKey.message}`,
		);
		return;
	}
	const url = context.getNodeWebhookUrl('default');
	if (url === undefined) {
		context.logger.warn(
			`Contact Center Trigger: no signed sample ${endpoint} call was made: n8n gave this test run no Test URL; call the trigger's Test URL as the service would instead`,
		);
		return;
	}
	const rawBody = JSON.stringify(sampleBody(endpoint, new Date()));
	const signature = computeSignature(signingKey.key, Buffer.from(rawBody));
	void sleep(SAMPLE_CALL_DELAY_MS)
		.then(
			async () =>
				await context.helpers.httpRequest({
					method: 'POST',
					url,
					body: rawBody,
					json: false,
					headers: { 'content-type': 'application/json', [SIGNATURE_HEADER]: signature },
					returnFullResponse: true,
					ignoreHttpStatusErrors: true,
					timeout: 120_000,
				}),
		)
		.then(
			(answer: { statusCode?: number; body?: unknown }) =>
				context.logger.info(
					`Contact Center Trigger: the signed sample ${endpoint} call to ${url} was answered ${answer.statusCode}: ${String(answer.body ?? '').slice(0, 500)}`,
				),
			(error: Error) =>
				context.logger.warn(
					`Contact Center Trigger: the signed sample ${endpoint} call could not reach the Test URL ${url} (${error.message}): n8n cannot call its own webhook URL from where it runs; call the Test URL as the service would instead`,
				),
		);
}
