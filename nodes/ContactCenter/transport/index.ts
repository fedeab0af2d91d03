import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
} from 'n8n-workflow';

import {
	classifyFailure,
	failureInSuccessfulResponse,
	type ServiceFailure,
} from '../helpers/serviceError';

export const CREDENTIAL_TYPE = 'contactCenterOAuth2Api';

export class ServiceRequestError extends Error {
	constructor(
		readonly failure: ServiceFailure,
		/** How many times the request was sent, when it was retried. */
		readonly attempts = 1,
		/** How many of those attempts may have been carried out by the service all the same. */
		readonly uncertainAttempts = 0,
	) {
		super(failure.messages.join('; ') || `HTTP ${failure.status ?? 'error'}`);
	}
}

interface ThrownHttpError {
	message?: string;
	code?: string;
	response?: { status?: number; data?: unknown; headers?: Record<string, unknown> };
	cause?: ThrownHttpError;
}

/**
 * The one request function of the node. n8n's OAuth2 machinery adds the bearer token, reuses it
 * for its lifetime and, on a 401, fetches a new one and replays the request.
 */
export async function contactCenterApiRequest(
	this: IExecuteFunctions,
	method: IHttpRequestMethods,
	path: string,
	options: { body?: IDataObject; qs?: IDataObject; timeoutMs?: number } = {},
): Promise<unknown> {
	const credentials = await this.getCredentials(CREDENTIAL_TYPE);
	const baseUrl = String(credentials.baseUrl ?? '').replace(/\/+$/, '');
	const request: IHttpRequestOptions = {
		method,
		url: `${baseUrl}${path}`,
		json: true,
		returnFullResponse: true,
		...(options.body ? { body: options.body } : {}),
		...(options.qs ? { qs: options.qs } : {}),
		...(options.timeoutMs !== undefined ? { timeout: options.timeoutMs } : {}),
	};
	const outcome = await this.helpers.httpRequestWithAuthentication
		.call(this, CREDENTIAL_TYPE, request)
		.then(
			(response: { statusCode: number; body: unknown }) => ({
				body: response.body,
				failure: failureInSuccessfulResponse(response.statusCode, response.body),
			}),
			(error: ThrownHttpError) => ({ body: undefined, failure: failureOfThrownError(error) }),
		);
	if (outcome.failure) throw new ServiceRequestError(outcome.failure);
	return outcome.body;
}

function failureOfThrownError(thrown: ThrownHttpError): ServiceFailure {
	// n8n-core wraps request errors in a NodeApiError whose cause is the original error.
	const candidates = [thrown, thrown.cause].filter((e): e is ThrownHttpError => e !== undefined);
	const withResponse = candidates.find((e) => e.response?.status !== undefined);
	if (withResponse?.response) {
		return classifyFailure({
			status: withResponse.response.status,
			body: withResponse.response.data,
			headers: withResponse.response.headers,
		});
	}
	// A failed client-credentials grant has no response of its own: n8n-core reports it in words.
	const tokenFailure = candidates.find((e) => /OAuth2 access token/i.test(e.message ?? ''));
	if (tokenFailure) return { kind: 'unauthorized', messages: [tokenFailure.message ?? ''] };
	const original = thrown.cause ?? thrown;
	return classifyFailure({ networkCode: original.code, networkMessage: original.message });
}
