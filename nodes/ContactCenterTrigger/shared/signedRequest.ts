import {
	NodeOperationError,
	type IDataObject,
	type IHookFunctions,
	type IWebhookFunctions,
	type IWebhookResponseData,
} from 'n8n-workflow';

import { parseJsonObjectBody } from '../helpers/body';
import {
	getRawBody,
	writeJsonResponse,
	type MinimalResponse,
	type RawBodyRequest,
} from '../helpers/request';
import {
	decodeSigningSecret,
	describeSignatureFailure,
	readHeader,
	SIGNATURE_HEADER,
	verifySignature,
} from '../helpers/signature';
import { credentialProblemDescription, SIGNING_SECRET_CREDENTIAL } from './description';

export type SignedBody =
	| { ok: true; body: IDataObject }
	/** The call was answered (401 or 400) and must start no run. */
	| { ok: false; response: IWebhookResponseData };

type SigningKey = { ok: true; key: Buffer } | { ok: false; message: string };

async function signingKeyOf(context: IWebhookFunctions | IHookFunctions): Promise<SigningKey> {
	const credentials = await context.getCredentials(SIGNING_SECRET_CREDENTIAL);
	const secret = decodeSigningSecret(credentials.secret);
	if (secret.ok) return secret;
	return {
		ok: false,
		message: `The "Contact Center Signing Secret API" credential cannot be used: ${secret.detail}`,
	};
}

/**
 * Reads the raw body, checks its signature over the exact bytes, and only then parses it: an
 * unsigned or tampered call gets 401 and a signed body that is not a JSON object gets 400,
 * neither of them reaching a parser or starting a run.
 */
export async function readSignedBody(context: IWebhookFunctions): Promise<SignedBody> {
	const signingKey = await signingKeyOf(context);
	const req = context.getRequestObject() as unknown as RawBodyRequest;
	const res = context.getResponseObject() as unknown as MinimalResponse;
	if (!signingKey.ok) {
		// No call can be verified, so none may run the workflow: answered here, without a run.
		context.logger.error(`${signingKey.message}. ${credentialProblemDescription}`);
		writeJsonResponse(res, 500, {
			message: `${signingKey.message}. The n8n workflow's owner must fix the credential; the call was not processed.`,
		});
		return { ok: false, response: { noWebhookResponse: true } };
	}
	const key = signingKey.key;
	const rawBody = await getRawBody(req);
	if (rawBody === undefined) {
		throw new NodeOperationError(
			context.getNode(),
			'n8n did not hand the raw request body to the trigger',
			{
				description:
					'The signature can only be checked over the exact body bytes. Make sure nothing in front of n8n (a proxy or a custom body parser) consumes or rewrites the body.',
			},
		);
	}

	const signature = verifySignature(rawBody, readHeader(req.headers, SIGNATURE_HEADER), key);
	if (!signature.valid) {
		context.logger.debug(`Contact Center Trigger refused a call: ${signature.reason} signature`);
		writeJsonResponse(res, 401, { message: describeSignatureFailure(signature.reason) });
		return { ok: false, response: { noWebhookResponse: true } };
	}

	const parsed = parseJsonObjectBody(rawBody);
	if (!parsed.ok) {
		writeJsonResponse(res, 400, { message: parsed.detail });
		return { ok: false, response: { noWebhookResponse: true } };
	}
	return { ok: true, body: parsed.value };
}

/**
 * The service has no API to register URLs: the user pastes the URL into its settings, so nothing
 * is checked, created or deleted remotely. Activation still checks the signing secret, so that a
 * broken one fails there with a clear message instead of failing every call later.
 */
export const webhookMethods = {
	default: {
		async checkExists(this: IHookFunctions): Promise<boolean> {
			const signingKey = await signingKeyOf(this);
			if (!signingKey.ok) {
				throw new NodeOperationError(this.getNode(), signingKey.message, {
					description: credentialProblemDescription,
				});
			}
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
