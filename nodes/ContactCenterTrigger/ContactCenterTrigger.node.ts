import {
	NodeConnectionTypes,
	NodeOperationError,
	type ICredentialsDecrypted,
	type ICredentialTestFunctions,
	type IDataObject,
	type IHookFunctions,
	type INodeCredentialTestResult,
	type INodeType,
	type INodeTypeDescription,
	type IWebhookFunctions,
	type IWebhookResponseData,
} from 'n8n-workflow';

import { parseJsonObjectBody } from './helpers/body';
import { DEDUP_STATIC_KEY, idempotencyKeyOf, idempotencyKeyStoreOf } from './helpers/dedup';
import {
	getRawBody,
	writeJsonResponse,
	type MinimalResponse,
	type RawBodyRequest,
} from './helpers/request';
import {
	decodeSigningSecret,
	describeSignatureFailure,
	readHeader,
	SIGNATURE_HEADER,
	verifySignature,
} from './helpers/signature';
import { KNOWN_WRITE_BACK_TYPES, simplifyWriteBack } from './helpers/simplify';

export const SIGNING_SECRET_CREDENTIAL = 'contactCenterSigningSecretApi';

/** Value of the Events option that stands for every write back type other than the documented two. */
export const OTHER_WRITE_BACK_TYPES = 'other';

type Endpoint = 'lookup' | 'writeBack' | 'notification';

const credentialProblemDescription =
	'Open the "Contact Center Signing Secret API" credential and paste the secret key exactly as the service shows it under Settings -> Integration & APIs -> CRM: an even number of hex digits (0-9, a-f). Until then every call is refused, so no unverified call runs the workflow.';

export class ContactCenterTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Contact Center Trigger',
		name: 'contactCenterTrigger',
		icon: {
			light: 'file:../../icons/contactCenter.svg',
			dark: 'file:../../icons/contactCenter.dark.svg',
		},
		group: ['trigger'],
		version: 1,
		subtitle:
			'={{ {"lookup": "Lookup", "writeBack": "Write Back", "notification": "Notification"}[$parameter["endpoint"]] }}',
		description:
			"Answers the service's signed CRM calls: contact lookups, conversation write backs and error notifications",
		defaults: {
			name: 'Contact Center Trigger',
		},
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{
				name: 'contactCenterSigningSecretApi',
				required: true,
				testedBy: 'contactCenterSigningSecretTest',
			},
		],
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				path: '={{ $parameter["endpoint"] === "writeBack" ? "write-back" : $parameter["endpoint"] }}',
				// Lookup: wait for the Contact Center node's "Respond to Lookup" (sendResponse).
				// Write back: answer at once, or when the run finishes (a failed run answers 500).
				// Notification: answer at once.
				responseMode:
					'={{ $parameter["endpoint"] === "lookup" ? "responseNode" : ($parameter["endpoint"] === "writeBack" && $parameter["responseTiming"] === "whenFinished" ? "lastNode" : "onReceived") }}',
				// Lookup: the answer when the run ends without a "Respond to Lookup" (e.g. nobody found).
				responseCode:
					'={{ $parameter["endpoint"] === "notification" ? 204 : ($parameter["endpoint"] === "lookup" ? ($parameter["ifNoResponse"] === "serverError" ? 500 : 404) : 200) }}',
				responseData: 'noData',
			},
		],
		properties: [
			{
				displayName: 'Endpoint',
				name: 'endpoint',
				type: 'options',
				noDataExpression: true,
				options: [
					{
						name: 'Lookup',
						value: 'lookup',
						description:
							'The service asks for the attributes of a contact (Lookup button in the conversation view)',
					},
					{
						name: 'Write Back',
						value: 'writeBack',
						description: 'The service sends a conversation when it is resolved or set to pending',
					},
					{
						name: 'Notification',
						value: 'notification',
						description: 'The service reports an error, e.g. while importing lookup data',
					},
				],
				default: 'lookup',
				description:
					'Which of the CRM integration URLs this trigger serves. Each gives its own URL: use one trigger per URL you configure in the service.',
			},
			{
				displayName:
					'Paste this node\'s Production URL (see "Webhook URLs" above) into the service as the Lookup URL under Settings -> Integration & APIs -> CRM, put the secret key the service then shows into the signing secret credential, and activate the workflow. Answer each lookup with the Contact Center node\'s "Respond to Lookup" operation.',
				name: 'lookupNotice',
				type: 'notice',
				default: '',
				displayOptions: { show: { endpoint: ['lookup'] } },
			},
			{
				displayName:
					'Paste this node\'s Production URL (see "Webhook URLs" above) into the service as the Write Back URL under Settings -> Integration & APIs -> CRM, put the secret key the service then shows into the signing secret credential, and activate the workflow',
				name: 'writeBackNotice',
				type: 'notice',
				default: '',
				displayOptions: { show: { endpoint: ['writeBack'] } },
			},
			{
				displayName:
					'Paste this node\'s Production URL (see "Webhook URLs" above) into the service as the Notification URL under Settings -> Integration & APIs -> CRM and activate the workflow. Every notification is answered 204 (no content).',
				name: 'notificationNotice',
				type: 'notice',
				default: '',
				displayOptions: { show: { endpoint: ['notification'] } },
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
						description:
							'The service shows that no lookup was found for the contact and keeps its attributes',
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
			{
				displayName: 'Events',
				name: 'events',
				type: 'multiOptions',
				displayOptions: { show: { endpoint: ['writeBack'] } },
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
						description: 'Write back types the service may add later; they are passed on as sent',
					},
				],
				default: ['CONVERSATION_RESOLVED', 'CONVERSATION_SET_TO_PENDING', OTHER_WRITE_BACK_TYPES],
				description:
					'Write back types that run the workflow. A delivery of another type is answered 200 and runs nothing.',
			},
			{
				displayName: 'Respond',
				name: 'responseTiming',
				type: 'options',
				noDataExpression: true,
				displayOptions: { show: { endpoint: ['writeBack'] } },
				options: [
					{
						name: 'Immediately',
						value: 'immediately',
						description:
							'Answer 200 as soon as the run has started. The event counts as delivered even if the run fails later.',
					},
					{
						name: 'When the Workflow Finishes',
						value: 'whenFinished',
						description:
							'Answer 200 when the run succeeded and 500 when it failed, so that the service delivers the event again later (after 1, 2, 4, 8, 16 and 32 hours)',
					},
				],
				default: 'immediately',
				description: 'When the service gets its answer to a write back delivery',
			},
			{
				displayName: 'Simplify',
				name: 'simplify',
				type: 'boolean',
				displayOptions: { show: { endpoint: ['writeBack'] } },
				default: false,
				description:
					'Whether to flatten a resolved or pending conversation into one CRM row (conversation, channel, contact and agent fields, contact attributes as an object, the transcript, notes and topics as text) instead of passing the payload on as sent. Other types are always passed on as sent.',
			},
			{
				// n8n's webhook handler (parseRequestBody in packages/cli/src/webhooks/webhook-helpers.ts)
				// leaves the request body unread for a version 1 webhook node whose `options.binaryData` is
				// true. The trigger then reads the raw bytes itself, checks the signature over them and
				// only then parses them, so an unsigned body never reaches a parser and a signed non-JSON
				// body is answered 400 by the trigger. Should n8n parse the body anyway, the trigger still
				// checks the signature over `rawBody`, which n8n keeps.
				displayName: 'Raw Body',
				name: 'options',
				type: 'hidden',
				default: { binaryData: true },
			},
		],
	};

	methods = {
		credentialTest: {
			/**
			 * The service has no API that could confirm a signing secret, so the test checks what can
			 * be checked without one: that the secret decodes from hexadecimal into a key.
			 */
			async contactCenterSigningSecretTest(
				this: ICredentialTestFunctions,
				credential: ICredentialsDecrypted,
			): Promise<INodeCredentialTestResult> {
				const decoded = decodeSigningSecret(credential.data?.secret);
				if (!decoded.ok) {
					return {
						status: 'Error',
						message: `Contact Center Signing Secret API: ${decoded.detail}. Paste the key exactly as the service shows it.`,
					};
				}
				return {
					status: 'OK',
					message: `The secret is valid hexadecimal (${decoded.key.length}-byte key). Whether it is the right one shows on the first signed call.`,
				};
			},
		},
	};

	/**
	 * The service has no API to register URLs: the user pastes the URL into its settings. So there
	 * is nothing to check, create or delete remotely.
	 */
	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				return true;
			},
			async create(this: IHookFunctions): Promise<boolean> {
				return true;
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				return true;
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const endpoint = this.getNodeParameter('endpoint', 'lookup') as Endpoint;
		const credentials = await this.getCredentials(SIGNING_SECRET_CREDENTIAL);
		const secret = decodeSigningSecret(credentials.secret);
		if (!secret.ok) {
			throw new NodeOperationError(
				this.getNode(),
				`The "Contact Center Signing Secret API" credential cannot be used: ${secret.detail}`,
				{ description: credentialProblemDescription },
			);
		}

		const req = this.getRequestObject() as unknown as RawBodyRequest;
		const res = this.getResponseObject() as unknown as MinimalResponse;
		const rawBody = await getRawBody(req);
		if (rawBody === undefined) {
			throw new NodeOperationError(
				this.getNode(),
				'n8n did not hand the raw request body to the trigger',
				{
					description:
						'The signature can only be checked over the exact body bytes. Make sure nothing in front of n8n (a proxy or a custom body parser) consumes or rewrites the body.',
				},
			);
		}

		const signature = verifySignature(
			rawBody,
			readHeader(req.headers, SIGNATURE_HEADER),
			secret.key,
		);
		if (!signature.valid) {
			this.logger.debug(`Contact Center Trigger refused a call: ${signature.reason} signature`);
			writeJsonResponse(res, 401, { message: describeSignatureFailure(signature.reason) });
			return { noWebhookResponse: true };
		}

		const parsed = parseJsonObjectBody(rawBody);
		if (!parsed.ok) {
			writeJsonResponse(res, 400, { message: parsed.detail });
			return { noWebhookResponse: true };
		}
		const body = parsed.value;

		if (endpoint === 'writeBack') return handleWriteBack(this, body);
		// Lookup (2.9) and notification (2.12) bodies are passed on as sent, whatever their fields.
		return { workflowData: [this.helpers.returnJsonArray(body)] };
	}
}

function handleWriteBack(context: IWebhookFunctions, body: IDataObject): IWebhookResponseData {
	const now = Date.now();
	const keys = idempotencyKeyStoreOf(context.getWorkflow().id ?? '', context.getNode().id, now);
	const staticData = context.getWorkflowStaticData('node');
	keys.merge(staticData[DEDUP_STATIC_KEY]);
	keys.prune(now);
	// Written on every write back delivery, whatever its outcome: n8n may save it only on calls
	// that start no run (see helpers/dedup.ts), and then it must hold every key.
	const saveKeys = () => {
		staticData[DEDUP_STATIC_KEY] = keys.toPersisted();
	};

	const type = typeof body.type === 'string' ? body.type : '';
	const events = context.getNodeParameter('events', []) as string[];
	const selected = KNOWN_WRITE_BACK_TYPES.includes(type)
		? events.includes(type)
		: events.includes(OTHER_WRITE_BACK_TYPES);
	if (!selected) {
		saveKeys();
		return {
			webhookResponse: { received: true, ignored: `Write back type "${type}" is not selected` },
		};
	}

	const key = idempotencyKeyOf(body);
	if (key !== undefined) {
		if (keys.lookup(key, now) === 'done') {
			keys.touch(key, now);
			saveKeys();
			return { webhookResponse: { received: true, duplicate: true, idempotencyKey: key } };
		}
		const timing = context.getNodeParameter('responseTiming', 'immediately') as string;
		keys.record(key, timing === 'whenFinished' ? 'pending' : 'done', now);
	}
	saveKeys();

	const simplify = context.getNodeParameter('simplify', false) as boolean;
	const json = simplify ? simplifyWriteBack(body) : body;
	return { workflowData: [context.helpers.returnJsonArray(json)] };
}
