/**
 * Pacing and retries for proactive sends. The service accepts a fixed number of messages per minute
 * per organization and refuses the rest (spec 8), so sends are spread evenly and a refusal is retried.
 */
export const DEFAULT_RATE_LIMIT_MESSAGES = 60;
export const DEFAULT_RATE_LIMIT_PERIOD_SECONDS = 60;

/** The service's limit as it states it: `messages` per `periodMs`. */
export interface RateLimit {
	messages: number;
	periodMs: number;
}

/** The rate options of the Send operation. */
export interface RateLimitOptions {
	rateLimitMessages?: number;
	rateLimitPeriodSeconds?: number;
}

/** The limit to pace at: N messages per W seconds, the service's standard 60 per 60 by default. */
export function resolveRateLimit(options: RateLimitOptions): RateLimit {
	return {
		messages: options.rateLimitMessages ?? DEFAULT_RATE_LIMIT_MESSAGES,
		periodMs: (options.rateLimitPeriodSeconds ?? DEFAULT_RATE_LIMIT_PERIOD_SECONDS) * 1000,
	};
}

/**
 * Back-off doubles from one send interval: 1 + 2 + 4 + 8 + 16 + 32 = 63 intervals, more than the
 * 60 intervals of one full rate window, so a retried message outlasts a window filled by others.
 */
export const MAX_SEND_RETRIES = 6;

/** A Retry-After longer than this is not waited for: the item fails and says so. */
export const MAX_RETRY_AFTER_MS = 120_000;

export const DEFAULT_RATE_LIMIT_WAIT_MINUTES = 60;

/**
 * Delay before sending again after a rate-limit refusal, or undefined once the message has waited
 * `maxWaitMs` in all. A refusal means the message was not sent, so waiting is always safe: the
 * service's Retry-After is followed however long it is, otherwise the wait doubles from one send
 * interval up to one rate period (`refusals` counts this message's refusals so far, 1-based).
 */
export function rateLimitDelayMs(
	refusals: number,
	limit: RateLimit,
	waitedMs: number,
	maxWaitMs: number,
	retryAfterMs?: number,
): number | undefined {
	const backOff = Math.min(sendIntervalMs(limit) * 2 ** (refusals - 1), limit.periodMs);
	const delay = retryAfterMs ?? backOff;
	return waitedMs + delay > maxWaitMs ? undefined : delay;
}

export function sendIntervalMs({ messages, periodMs }: RateLimit): number {
	return periodMs / messages;
}

/** Delay before retry number `retry` (1-based); undefined when no retry is left. */
export function retryDelayMs(
	retry: number,
	intervalMs: number,
	retryAfterMs?: number,
): number | undefined {
	if (retry > MAX_SEND_RETRIES) return undefined;
	if (retryAfterMs !== undefined) {
		return retryAfterMs > MAX_RETRY_AFTER_MS ? undefined : retryAfterMs;
	}
	return intervalMs * 2 ** (retry - 1);
}

/**
 * A send that starts late (the one before it took longer than its interval) is made up by the next
 * sends, by up to this much: short stalls do not lower the rate, and a long one is not followed by
 * a burst.
 */
const MAX_CATCH_UP_MS = 100;

/**
 * Hands out send slots: evenly spaced at the configured rate (a late start made up by up to
 * MAX_CATCH_UP_MS), and never more than the window's quota within one window. The window is counted from the moments the service *answered* earlier
 * sends: the service counted each of them no later than that, so a send that waits a full window
 * after the answer cannot be refused for it, whatever the network latency.
 */
export class SendPacer {
	readonly intervalMs: number;
	private readonly quota: number;
	private nextSlotAt: number | undefined;
	private readonly acceptedAt: number[] = [];

	private readonly windowMs: number;

	constructor(
		limit: RateLimit,
		private readonly now: () => number = Date.now,
	) {
		this.intervalMs = sendIntervalMs(limit);
		this.windowMs = limit.periodMs;
		this.quota = Math.max(1, Math.floor(limit.messages));
	}

	/** Milliseconds to wait before the next send; reserves that slot. */
	reserveSlot(): number {
		const now = this.now();
		const evenSlot = Math.max(now, this.nextSlotAt ?? now);
		const windowFreesAt =
			this.acceptedAt.length >= this.quota
				? this.acceptedAt[this.acceptedAt.length - this.quota] + this.windowMs
				: now;
		const slot = Math.max(evenSlot, windowFreesAt);
		this.nextSlotAt = Math.max(this.nextSlotAt ?? slot, slot - MAX_CATCH_UP_MS) + this.intervalMs;
		return slot - now;
	}

	/** Records a send the service accepted, or may have (it counts against the window). */
	recordAccepted(): void {
		this.acceptedAt.push(this.now());
		if (this.acceptedAt.length > this.quota) this.acceptedAt.shift();
	}

	/** After a refusal, the next slot starts no earlier than `delayMs` from now. */
	postpone(delayMs: number): void {
		this.nextSlotAt = Math.max(this.nextSlotAt ?? 0, this.now() + delayMs);
	}
}
