import {
	countFailedAttempt,
	NO_FAILED_ATTEMPTS,
	sendPaced,
	type RetryPolicy,
} from '../../nodes/ContactCenter/actions/proactiveMessage/send/pacedSend';
import {
	MAX_SEND_RETRIES,
	SendPacer,
} from '../../nodes/ContactCenter/actions/proactiveMessage/send/pacing';
import type { ServiceFailure } from '../../nodes/ContactCenter/helpers/serviceError';
import { ServiceRequestError } from '../../nodes/ContactCenter/transport';

const policy: RetryPolicy = {
	limit: { messages: 60, periodMs: 60_000 },
	intervalMs: 1000,
	retryAmbiguousFailures: true,
	maxRateLimitWaitMs: 60 * 60_000,
};

const rateLimited: ServiceFailure = { kind: 'rateLimited', status: 429, messages: ['Too many'] };
const serverError: ServiceFailure = { kind: 'serverError', status: 502, messages: ['Bad gateway'] };
const refused: ServiceFailure = { kind: 'networkError', networkCode: 'ECONNREFUSED', messages: [] };
const invalid: ServiceFailure = { kind: 'validation', status: 400, messages: ['Bad contact'] };

describe('countFailedAttempt', () => {
	it('waits for room after a rate-limit refusal, doubling from one interval, and counts the wait', () => {
		const first = countFailedAttempt(rateLimited, NO_FAILED_ATTEMPTS, policy);
		expect(first).toEqual({
			attempts: { uncertain: 0, retries: 0, refusals: 1, waitedForRoomMs: 1000 },
			uncertain: false,
			delayMs: 1000,
		});
		const second = countFailedAttempt(rateLimited, first.attempts, policy);
		expect(second.delayMs).toBe(2000);
		expect(second.attempts.waitedForRoomMs).toBe(3000);
	});

	it('follows the Retry-After of a refusal and gives up once the wait would pass its limit', () => {
		const withRetryAfter = { ...rateLimited, retryAfterMs: 30_000 };
		const nearTheLimit = {
			...NO_FAILED_ATTEMPTS,
			waitedForRoomMs: policy.maxRateLimitWaitMs - 10_000,
		};
		expect(countFailedAttempt(withRetryAfter, NO_FAILED_ATTEMPTS, policy).delayMs).toBe(30_000);
		const last = countFailedAttempt(withRetryAfter, nearTheLimit, policy);
		expect(last.delayMs).toBeUndefined();
		expect(last.attempts.waitedForRoomMs).toBe(nearTheLimit.waitedForRoomMs);
	});

	it('counts a 5xx as uncertain and retries it while ambiguous failures are retried', () => {
		const retried = countFailedAttempt(serverError, NO_FAILED_ATTEMPTS, policy);
		expect(retried).toEqual({
			attempts: { uncertain: 1, retries: 1, refusals: 0, waitedForRoomMs: 0 },
			uncertain: true,
			delayMs: 1000,
		});
		const notRetried = countFailedAttempt(serverError, NO_FAILED_ATTEMPTS, {
			...policy,
			retryAmbiguousFailures: false,
		});
		expect(notRetried.uncertain).toBe(true);
		expect(notRetried.attempts.uncertain).toBe(1);
		expect(notRetried.delayMs).toBeUndefined();
	});

	it('retries a connection that was never made even when ambiguous failures are not retried', () => {
		const result = countFailedAttempt(refused, NO_FAILED_ATTEMPTS, {
			...policy,
			retryAmbiguousFailures: false,
		});
		expect(result.uncertain).toBe(false);
		expect(result.delayMs).toBe(1000);
	});

	it(`stops after ${MAX_SEND_RETRIES} retries`, () => {
		const used = { ...NO_FAILED_ATTEMPTS, retries: MAX_SEND_RETRIES };
		expect(countFailedAttempt(refused, used, policy).delayMs).toBeUndefined();
	});

	it('never retries a refusal of the message itself or an error that is not the service answer', () => {
		expect(countFailedAttempt(invalid, NO_FAILED_ATTEMPTS, policy).delayMs).toBeUndefined();
		expect(countFailedAttempt(undefined, NO_FAILED_ATTEMPTS, policy)).toEqual({
			attempts: NO_FAILED_ATTEMPTS,
			uncertain: false,
			delayMs: undefined,
		});
	});
});

describe('sendPaced', () => {
	// A pace so fast that the waits take no time, and a back-off of microseconds.
	const fastPolicy: RetryPolicy = {
		...policy,
		limit: { messages: 1000, periodMs: 1 },
		intervalMs: 0.001,
	};
	const pacer = () => new SendPacer(fastPolicy.limit);

	/** A request that fails with the given failures, in turn, and then answers. */
	function requestFailing(...failures: ServiceFailure[]) {
		const calls = { count: 0 };
		const request = async () => {
			const failure = failures[calls.count++];
			if (failure) throw new ServiceRequestError(failure);
			return { correlationId: 'c-1' };
		};
		return { request, calls };
	}

	it('asks before every request and reports each failure with the uncertain attempts so far', async () => {
		const { request, calls } = requestFailing(serverError, refused);
		const asked: number[] = [];
		const failures: number[] = [];
		const result = await sendPaced(request, pacer(), fastPolicy, {
			beforeRequest: async () => {
				asked.push(calls.count);
				return undefined;
			},
			afterFailure: async (uncertain) => {
				failures.push(uncertain);
			},
		});
		expect(result).toMatchObject({
			kind: 'accepted',
			response: { correlationId: 'c-1' },
			attempts: 3,
			uncertainAttempts: 1,
		});
		expect(asked).toEqual([0, 1, 2]);
		expect(failures).toEqual([1, 1]);
	});

	it('sends nothing when the caller gives a reason not to', async () => {
		const { request, calls } = requestFailing();
		const result = await sendPaced(request, pacer(), fastPolicy, {
			beforeRequest: async () => 'held elsewhere',
			afterFailure: async () => {},
		});
		expect(result).toEqual({ kind: 'skipped', skip: 'held elsewhere' });
		expect(calls.count).toBe(0);
	});

	it('throws the last failure with its attempts once no retry is left', async () => {
		const { request } = requestFailing(serverError, invalid);
		const thrown = await sendPaced(request, pacer(), fastPolicy, {
			beforeRequest: async () => undefined,
			afterFailure: async () => {},
		}).catch((error: unknown) => error);
		expect(thrown).toBeInstanceOf(ServiceRequestError);
		expect(thrown).toMatchObject({ failure: invalid, attempts: 2, uncertainAttempts: 1 });
	});
});
