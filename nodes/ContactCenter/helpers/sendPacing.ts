/**
 * Pacing and retries for proactive sends. The service accepts a fixed number of messages per minute
 * per organization and refuses the rest (spec 8), so sends are spread evenly and a refusal is retried.
 */
export const DEFAULT_MESSAGES_PER_MINUTE = 60;

/** Sends are spaced 1 % wider than the limit, so that jitter in network latency never lets two sends fall into one slot. */
export const PACING_MARGIN = 1.01;

/**
 * Back-off doubles from one send interval: 1 + 2 + 4 + 8 + 16 + 32 = 63 intervals, more than the
 * 60 intervals of one full rate window, so a retried message outlasts a window filled by others.
 */
export const MAX_SEND_RETRIES = 6;

/** A Retry-After longer than this is not waited for: the item fails and says so. */
export const MAX_RETRY_AFTER_MS = 120_000;

export function sendIntervalMs(messagesPerMinute: number): number {
	return (60_000 / messagesPerMinute) * PACING_MARGIN;
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

/** Hands out evenly spaced send slots, counted from the first send so that delays do not accumulate. */
export class SendPacer {
	private nextSlotAt: number | undefined;

	constructor(
		private readonly intervalMs: number,
		private readonly now: () => number = Date.now,
	) {}

	/** Milliseconds to wait before the next send; reserves that slot. */
	reserveSlot(): number {
		const now = this.now();
		const slot = Math.max(now, this.nextSlotAt ?? now);
		this.nextSlotAt = slot + this.intervalMs;
		return slot - now;
	}

	/** After a refusal, the next slot starts no earlier than `delayMs` from now. */
	postpone(delayMs: number): void {
		this.nextSlotAt = Math.max(this.nextSlotAt ?? 0, this.now() + delayMs);
	}
}
