import {
	NodeOperationError,
	type IDataObject,
	type IHookFunctions,
	type IWebhookFunctions,
} from 'n8n-workflow';

import { credentialNotSelected } from '../shared/credentialSelection';
import { parseJsonObjectBody } from './body';
import type { Refusal } from './reports';
import { triggerState } from './processState';
import { getRawBody, type RawBodyRequest } from './request';
import {
	decodeSigningSecret,
	describeSignatureFailure,
	readHeader,
	SIGNATURE_HEADER,
	verifySignature,
	type SignatureFailure,
} from './signature';
import { credentialProblemDescription, SIGNING_SECRET_CREDENTIAL } from './description';

export type SignedBody =
	/** `rawBody` and the `key` it was verified with: for the trigger's own report calls (see reports.ts). */
	| { ok: true; body: IDataObject; rawBody: Buffer; key: Buffer }
	/** The call must be answered with this refusal and start no run of the workflow's nodes. */
	| { ok: false; refusal: Refusal };

type SigningKey = { ok: true; key: Buffer } | { ok: false; message: string };

/** The node's signing secret credential by its own name: a user may have several of the type. */
const signingCredentialOf = (context: IWebhookFunctions | IHookFunctions) => {
	const name = context.getNode().credentials?.[SIGNING_SECRET_CREDENTIAL]?.name;
	return name
		? `"${name}" credential (Contact Center Signing Secret API)`
		: `"Contact Center Signing Secret API" credential`;
};

export async function signingKeyOf(context: IWebhookFunctions | IHookFunctions): Promise<SigningKey> {
	if (!context.getNode().credentials?.[SIGNING_SECRET_CREDENTIAL]) {
		return {
			ok: false,
			message: credentialNotSelected('Contact Center Signing Secret API'),
		};
	}
	const credentials = await context.getCredentials(SIGNING_SECRET_CREDENTIAL);
	const secret = decodeSigningSecret(credentials.secret);
	if (secret.ok) return secret;
	return {
		ok: false,
		message: `The ${signingCredentialOf(context)} cannot be used: ${secret.detail}`,
	};
}

/** How long a decoded signing key is reused without reading the credential again. */
const SIGNING_KEY_REUSE_MS = 60_000;

/*
 * Decoded signing keys are kept by credential id (triggerState.signingKeys). Reading a credential
 * in a webhook call costs n8n an expression isolate (its CredentialsHelper resolves credential
 * defaults in a throw-away workflow), a third of a call's cost on n8n's default engine. Only a
 * cache: a signature that does not match a reused key is checked again with the credential read
 * afresh, so a new secret counts at once; a removed or replaced one is still accepted for up to a
 * minute.
 */

async function freshSigningKey(context: IWebhookFunctions, credentialId: string | undefined) {
	const signingKey = await signingKeyOf(context);
	if (credentialId === undefined) return signingKey;
	const { signingKeys } = triggerState;
	if (signingKey.ok) signingKeys.set(credentialId, { key: signingKey.key, readAt: Date.now() });
	else signingKeys.delete(credentialId);
	return signingKey;
}

/**
 * Reads the raw body, checks its signature over the exact bytes, and only then parses it: an
 * unsigned or tampered call gets 401 and a signed body that is not a JSON object gets 400,
 * neither of them reaching a parser or starting a run.
 */
export async function readSignedBody(context: IWebhookFunctions): Promise<SignedBody> {
	const credentialId = context.getNode().credentials?.[SIGNING_SECRET_CREDENTIAL]?.id ?? undefined;
	const cached =
		credentialId === undefined ? undefined : triggerState.signingKeys.get(credentialId);
	const reused = cached !== undefined && Date.now() - cached.readAt < SIGNING_KEY_REUSE_MS;
	const signingKey: SigningKey = reused
		? { ok: true, key: cached.key }
		: await freshSigningKey(context, credentialId);
	const req = context.getRequestObject() as unknown as RawBodyRequest;
	if (!signingKey.ok) {
		// No call can be verified, so none may run the workflow: answered here, without a run.
		return {
			ok: false,
			refusal: {
				cause: 'signingCredential',
				status: 500,
				answer: `${signingKey.message}. The n8n workflow's owner must fix the credential; the call was not processed.`,
				what: signingKey.message,
				fix: credentialProblemDescription,
			},
		};
	}
	let key = signingKey.key;
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

	const header = readHeader(req.headers, SIGNATURE_HEADER);
	let signature = verifySignature(rawBody, header, key);
	if (!signature.valid && signature.reason === 'mismatch' && reused) {
		const current = await freshSigningKey(context, credentialId);
		if (current.ok) {
			key = current.key;
			signature = verifySignature(rawBody, header, key);
		}
	}
	if (!signature.valid)
		return { ok: false, refusal: signatureRefusal(signature.reason, signingCredentialOf(context)) };

	const parsed = parseJsonObjectBody(rawBody);
	if (!parsed.ok) {
		return {
			ok: false,
			refusal: {
				cause: 'notJsonObject',
				status: 400,
				answer: parsed.detail,
				what: `Signed calls whose body was not a JSON object (${parsed.detail})`,
				fix: 'The service sends a JSON object to all three URLs: these come from something else that has the secret key, or were cut on their way (a proxy in front of n8n with a body size limit).',
			},
		};
	}
	return { ok: true, body: parsed.value, rawBody, key };
}

function signatureRefusal(reason: SignatureFailure, credential: string): Refusal {
	const answer = describeSignatureFailure(reason);
	if (reason === 'mismatch') {
		return {
			cause: 'signatureMismatch',
			status: 401,
			answer,
			what: `The signature did not match the secret key in the ${credential}`,
			fix: "The service signs with the secret key it showed when this URL was last saved under Settings -> Integration & APIs -> CRM, and saving the URL again makes a new key: paste the service's current secret key into the credential.",
		};
	}
	return {
		cause: 'signatureMissing',
		status: 401,
		answer,
		what: `Calls without a valid signature (${answer})`,
		fix: 'The service signs every call, so these do not come from it, or something in front of n8n (a proxy) removed the X-Service-Signature header. None of them ran the workflow; if you expect no such calls there is nothing to fix.',
	};
}

/** At activation: a signing secret that cannot verify any call fails the activation with the fix. */
export async function checkSigningSecret(context: IHookFunctions): Promise<void> {
	const signingKey = await signingKeyOf(context);
	if (!signingKey.ok) {
		throw new NodeOperationError(context.getNode(), signingKey.message, {
			description: credentialProblemDescription,
		});
	}
}
