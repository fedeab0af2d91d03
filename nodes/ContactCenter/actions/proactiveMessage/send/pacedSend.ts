import { sleep } from 'n8n-workflow';

import { ServiceRequestError } from '../../../transport';
import { rateLimitDelayMs, retryDelayMs, type RateLimit, type SendPacer } from './pacing';
import {
	isRetryable,
	mayHaveReachedService,
	type ServiceFailure,
} from '../../../helpers/serviceError';

/** How the messages of one run of Send are retried. */
export interface RetryPolicy {
	limit: RateLimit;
	/** The pacer's interval between two sends: the back-off of the first retry. */
	intervalMs: number;
	retryAmbiguousFailures: boolean;
	/** How long one message may wait in all for room in the rate limit. */
	maxRateLimitWaitMs: number;
}

/** One message's failed attempts so far. */
export interface FailedAttempts {
	/** Attempts the service may have carried out all the same. */
	uncertain: number;
	/** Retries after a failure other than a rate-limit refusal. */
	retries: number;
	/** Rate-limit refusals. */
	refusals: number;
	/** Time waited in all for room in the rate limit. */
	waitedForRoomMs: number;
}

export const NO_FAILED_ATTEMPTS: FailedAttempts = {
	uncertain: 0,
	retries: 0,
	refusals: 0,
	waitedForRoomMs: 0,
};

/**
 * Counts one failed attempt and says how long to wait before the next one, or undefined when the
 * message is not sent again. A rate-limit refusal sent nothing, so it waits for room up to the
 * policy's limit; another retryable failure is retried a few times, unless it may have reached the
 * service and ambiguous failures are not retried. `failure` is undefined for an error that is not
 * the service's (or the network's) answer: it is never retried.
 */
export function countFailedAttempt(
	failure: ServiceFailure | undefined,
	attempts: FailedAttempts,
	policy: RetryPolicy,
): { attempts: FailedAttempts; uncertain: boolean; delayMs: number | undefined } {
	const uncertain = failure !== undefined && mayHaveReachedService(failure);
	const counted = { ...attempts, uncertain: attempts.uncertain + (uncertain ? 1 : 0) };
	if (failure?.kind === 'rateLimited') {
		counted.refusals++;
		const delayMs = rateLimitDelayMs(
			counted.refusals,
			policy.limit,
			counted.waitedForRoomMs,
			policy.maxRateLimitWaitMs,
			failure.retryAfterMs,
		);
		if (delayMs !== undefined) counted.waitedForRoomMs += delayMs;
		return { attempts: counted, uncertain, delayMs };
	}
	if (failure && isRetryable(failure) && (policy.retryAmbiguousFailures || !uncertain)) {
		counted.retries++;
		const delayMs = retryDelayMs(counted.retries, policy.intervalMs, failure.retryAfterMs);
		return { attempts: counted, uncertain, delayMs };
	}
	return { attempts: counted, uncertain, delayMs: undefined };
}

/** What the loop asks of its caller around each request. */
export interface AttemptHooks<Skip> {
	/** When a request's slot is reserved, with the moment it comes (epoch milliseconds). */
	slotReserved?: (at: number) => void;
	/** Right before a request, after the pacing wait: a reason not to send, or undefined to send. */
	beforeRequest: () => Promise<Skip | undefined>;
	/** After a failed request, with the number of attempts so far that may have reached the service. */
	afterFailure: (uncertainAttempts: number) => Promise<void>;
}

export type PacedSendResult<Skip> =
	| {
			kind: 'accepted';
			response: unknown;
			attempts: number;
			uncertainAttempts: number;
			/** When the service's answer arrived, in epoch milliseconds. */
			at: number;
	  }
	| { kind: 'skipped'; skip: Skip };

/**
 * Sends one request in the slots `pacer` hands out, retrying as countFailedAttempt says. A request
 * that fails for good throws a ServiceRequestError that counts its attempts and uncertain attempts.
 */
export async function sendPaced<Skip>(
	request: () => Promise<unknown>,
	pacer: SendPacer,
	policy: RetryPolicy,
	hooks: AttemptHooks<Skip>,
): Promise<PacedSendResult<Skip>> {
	let failed = NO_FAILED_ATTEMPTS;
	for (let attempt = 1; ; attempt++) {
		const waitMs = pacer.reserveSlot();
		hooks.slotReserved?.(Date.now() + waitMs);
		await sleep(waitMs);
		const skip = await hooks.beforeRequest();
		if (skip !== undefined) return { kind: 'skipped', skip };
		const outcome = await request().then(
			(response) => ({ response, error: undefined }),
			(error: unknown) => ({ response: undefined, error }),
		);
		if (outcome.error === undefined) {
			pacer.recordAccepted();
			const { response } = outcome;
			return {
				kind: 'accepted',
				response,
				attempts: attempt,
				uncertainAttempts: failed.uncertain,
				at: Date.now(),
			};
		}
		const { error } = outcome;
		const failure = error instanceof ServiceRequestError ? error.failure : undefined;
		const next = countFailedAttempt(failure, failed, policy);
		failed = next.attempts;
		// The service may have counted it against its limit.
		if (next.uncertain) pacer.recordAccepted();
		await hooks.afterFailure(failed.uncertain);
		if (next.delayMs === undefined) {
			if (!(error instanceof ServiceRequestError)) throw error;
			throw new ServiceRequestError(error.failure, attempt, failed.uncertain);
		}
		pacer.postpone(next.delayMs);
	}
}
