import {
	MAX_RETRY_AFTER_MS,
	MAX_SEND_RETRIES,
	resolveRateLimit,
	rateLimitDelayMs,
	retryDelayMs,
	sendIntervalMs,
	SendPacer,
} from '../../nodes/ContactCenter/actions/proactiveMessage/send/pacing';

describe('send pacing', () => {
	it('spaces N messages per W seconds W / N apart', () => {
		expect(sendIntervalMs({ messages: 60, periodMs: 60_000 })).toBe(1000);
		expect(sendIntervalMs({ messages: 10, periodMs: 5000 })).toBe(500);
	});

	it('reads the limit as N messages per W seconds, 60 per 60 by default', () => {
		expect(resolveRateLimit({})).toEqual({ messages: 60, periodMs: 60_000 });
		expect(resolveRateLimit({ rateLimitMessages: 10, rateLimitPeriodSeconds: 5 })).toEqual({
			messages: 10,
			periodMs: 5000,
		});
		expect(resolveRateLimit({ rateLimitMessages: 30 })).toEqual({ messages: 30, periodMs: 60_000 });
	});

	it('hands out evenly spaced slots; after a slow send it makes up 100 ms at most', () => {
		let now = 0;
		const pacer = new SendPacer({ messages: 600, periodMs: 60_000 }, () => now);
		expect(pacer.reserveSlot()).toBe(0);
		expect(pacer.reserveSlot()).toBe(100);
		now = 500; // the sends took longer than their slots
		expect(pacer.reserveSlot()).toBe(0);
		// One slot of 100 ms made up, then evenly spaced again: no burst after a long stall.
		expect(pacer.reserveSlot()).toBe(0);
		expect(pacer.reserveSlot()).toBe(100);
	});

	it('keeps the rate when sends start a little late now and then', () => {
		let now = 0;
		// 50 per second; every fourth send starts 15 ms after its slot (a store call, a pause).
		const pacer = new SendPacer({ messages: 50, periodMs: 1000 }, () => now);
		const sentAt: number[] = [];
		for (let i = 0; i < 200; i++) {
			now += pacer.reserveSlot();
			sentAt.push(now);
			pacer.recordAccepted();
			now += i % 4 === 3 ? 35 : 5;
		}
		const share = (sentAt.length - 1) / (((sentAt[199] - sentAt[0]) / 1000) * 50);
		expect(share).toBeGreaterThan(0.99);
		for (let i = 50; i < sentAt.length; i++)
			expect(sentAt[i] - sentAt[i - 50]).toBeGreaterThanOrEqual(1000);
	});

	it('never lets more than the quota through in one window counted from the answers', () => {
		let now = 0;
		// 3 per 300 ms; the service takes 50 ms to answer each send.
		const pacer = new SendPacer({ messages: 3, periodMs: 300 }, () => now);
		const sentAt: number[] = [];
		for (let i = 0; i < 7; i++) {
			now += pacer.reserveSlot();
			sentAt.push(now);
			now += 50;
			pacer.recordAccepted();
		}
		expect(sentAt).toEqual([0, 100, 200, 350, 450, 550, 700]);
		for (let i = 3; i < sentAt.length; i++)
			expect(sentAt[i] - sentAt[i - 3]).toBeGreaterThanOrEqual(300);
	});

	it('postpones the next slot after a refusal', () => {
		let now = 0;
		const pacer = new SendPacer({ messages: 600, periodMs: 60_000 }, () => now);
		pacer.reserveSlot();
		pacer.postpone(1000);
		expect(pacer.reserveSlot()).toBe(1000);
		now = 1000;
		expect(pacer.reserveSlot()).toBe(100);
	});

	it('backs off over more than one full rate window before giving up', () => {
		const delays = Array.from({ length: MAX_SEND_RETRIES + 1 }, (_, i) =>
			retryDelayMs(i + 1, 1000),
		);
		expect(delays.slice(0, MAX_SEND_RETRIES)).toEqual([1000, 2000, 4000, 8000, 16000, 32000]);
		expect(delays[MAX_SEND_RETRIES]).toBeUndefined();
		const total = (delays.slice(0, MAX_SEND_RETRIES) as number[]).reduce((a, b) => a + b, 0);
		expect(total).toBeGreaterThan(60 * 1000);
	});

	it('honours Retry-After, within a bound', () => {
		expect(retryDelayMs(1, 1000, 7000)).toBe(7000);
		expect(retryDelayMs(1, 1000, MAX_RETRY_AFTER_MS + 1)).toBeUndefined();
	});
});

describe('rateLimitDelayMs', () => {
	const limit = { messages: 60, periodMs: 60_000 };

	it('follows Retry-After however long, while the total wait stays within the bound', () => {
		expect(rateLimitDelayMs(1, limit, 0, 3_600_000, 300_000)).toBe(300_000);
		expect(rateLimitDelayMs(9, limit, 3_000_000, 3_600_000, 500_000)).toBe(500_000);
		expect(rateLimitDelayMs(9, limit, 3_200_000, 3_600_000, 500_000)).toBeUndefined();
	});

	it('without Retry-After doubles from one send interval up to one rate period, never giving up early', () => {
		const delays = [1, 2, 3, 7, 8, 20].map((n) => rateLimitDelayMs(n, limit, 0, 3_600_000));
		expect(delays).toEqual([1000, 2000, 4000, 60_000, 60_000, 60_000]);
	});

	it('a bound of 0 fails the first refusal', () => {
		expect(rateLimitDelayMs(1, limit, 0, 0, 1000)).toBeUndefined();
	});
});
