/**
 * Pacing and retries for proactive sends. The service accepts a fixed number of messages per minute
 * per organization and refuses the rest (spec 8), so sends are spread evenly and a refusal is retried.
 */
export const DEFAULT_MESSAGES_PER_MINUTE = 60;
export const DEFAULT_RATE_WINDOW_MS = 60_000;

/**
 * Back-off doubles from one send interval: 1 + 2 + 4 + 8 + 16 + 32 = 63 intervals, more than the
 * 60 intervals of one full rate window, so a retried message outlasts a window filled by others.
 */
export const MAX_SEND_RETRIES = 6;

/** A Retry-After longer than this is not waited for: the item fails and says so. */
export const MAX_RETRY_AFTER_MS = 120_000;

export function sendIntervalMs(messagesPerMinute: number): number {
	return 60_000 / messagesPerMinute;
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
 * Hands out send slots: evenly spaced at the configured rate, and never more than the window's
 * quota within one window. The window is counted from the moments the service *answered* earlier
 * sends: the service counted each of them no later than that, so a send that waits a full window
 * after the answer cannot be refused for it, whatever the network latency.
 */
export class SendPacer {
	readonly intervalMs: number;
	private readonly quota: number;
	private nextSlotAt: number | undefined;
	private readonly acceptedAt: number[] = [];

	constructor(
		messagesPerMinute: number,
		private readonly windowMs = DEFAULT_RATE_WINDOW_MS,
		private readonly now: () => number = Date.now,
	) {
		this.intervalMs = sendIntervalMs(messagesPerMinute);
		this.quota = Math.max(1, Math.floor((messagesPerMinute * windowMs) / 60_000));
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
		this.nextSlotAt = slot + this.intervalMs;
		return slot - now;
	}

	/** Records that the service accepted a send (it counts against the window). */
	recordAccepted(): void {
		this.acceptedAt.push(this.now());
		if (this.acceptedAt.length > this.quota) this.acceptedAt.shift();
	}

	/** After a refusal, the next slot starts no earlier than `delayMs` from now. */
	postpone(delayMs: number): void {
		this.nextSlotAt = Math.max(this.nextSlotAt ?? 0, this.now() + delayMs);
	}
}
