import { sleep } from 'n8n-workflow';

import type { SendOnceGuard } from './onceGuard';

/** How many sends' record calls go out together at most: those due within this time of each other. */
const GATHER_MS = 200;
const MAX_GATHERED = 20;
/** What a check and a claim are taken to need before one was measured. */
const FIRST_CALL_MS = 100;
/** Added to the slowest recent check and claim, for the claim to be in before its send's slot. */
const LEAD_MARGIN_MS = 20;
const MAX_LEAD_MS = 3000;
/** How many recent checks and claims the leads are taken from. */
const MEASURED = 8;
/** How often the schedule looks again while it has nothing due. */
const IDLE_MS = 50;
/**
 * Sends further apart than this leave room for a claim between one message's answer and the next
 * message's slot: each message claims its key after its own slot, as late as can be, and only
 * its check is read ahead. Closer sends (above about 6 per second) claim ahead.
 */
const CLAIM_AT_SLOT_FROM_MS = 150;

/**
 * Send Once's record calls off the sends' path. The check and the claim of the next messages
 * start while the messages before them wait for their slots, timed to be done just before their
 * own slot and gathered (the messages due within GATHER_MS of each other check and claim in one
 * call each); a message's finish is written while the next ones are sent. At rates where a
 * claim fits between two sends (CLAIM_AT_SLOT_FROM_MS), only the checks go ahead. A crash
 * therefore leaves a claim on the message being sent, and at higher rates on those whose slot was
 * due within the record's own delay: each says "may have been sent" to the next run, none is sent
 * twice. A message whose key an earlier item of the run has waits for that item's finish and
 * checks then, as if it were alone.
 */
export class SendOnceAhead {
	private readonly guards = new Map<number, SendOnceGuard>();
	private readonly firstItemOfKey = new Map<string, number>();
	private readonly finishOfKey = new Map<string, Promise<void>>();
	private readonly pending: Array<Promise<void>> = [];
	/** The finishes (done rows) not written yet. */
	private readonly finishesInFlight = new Set<Promise<void>>();
	/** The latest slot a send reserved, and its item: the slots of the items after it follow at the interval. */
	private lastSlot: { item: number; at: number } | undefined;
	private plannedUpTo = -1;
	private readonly checkTimes: number[] = [];
	private readonly claimTimes: number[] = [];
	private loop: Promise<void> | undefined;
	private closed = false;

	constructor(
		private readonly itemCount: number,
		private readonly intervalMs: number,
		/** The item's guard (read once), or undefined when Send Once is off for it or its fields are wrong. */
		private readonly guardOf: (item: number) => SendOnceGuard | undefined,
	) {}

	/** Waits until the item's message may read the record: after the finish of an earlier item with its key. */
	async turnOf(item: number, guard: SendOnceGuard): Promise<void> {
		this.noteKey(item, guard);
		await this.finishOfKey.get(guard.key);
	}

	/** A send reserved its slot: schedules the record calls of the items after it. */
	slotReserved(item: number, at: number): void {
		this.lastSlot = { item, at };
		this.startDue();
		this.loop ??= this.keepScheduling();
	}

	/** The item's finish, written while the run goes on; the next item with its key waits for it. */
	finishing(guard: SendOnceGuard, finish: Promise<void>): void {
		// Only its end orders the next item: a finish that keeps trying never throws (its row waits
		// for n8n's API instead, and says so in n8n's log).
		const done = Promise.allSettled([finish]).then(() => undefined);
		this.finishOfKey.set(guard.key, done);
		this.pending.push(done);
		this.finishesInFlight.add(done);
		void done.then(() => this.finishesInFlight.delete(done));
	}

	/**
	 * Right before a message claims its key at its own slot: at rates where a claim fits between two
	 * sends, the done rows of the messages before it are written first, so that a crash leaves at
	 * most one claim (this message's).
	 */
	async beforeClaimAtSlot(): Promise<void> {
		if (this.intervalMs >= CLAIM_AT_SLOT_FROM_MS) await Promise.all([...this.finishesInFlight]);
	}

	/** At the end of the run: waits for the record calls in flight and releases the claims no send used. */
	async close(): Promise<void> {
		this.closed = true;
		await this.loop;
		await Promise.all(this.pending);
		await Promise.all([...this.guards.values()].map(async (guard) => await guard.releaseUnused()));
	}

	/** How long before a send's slot its claim starts: the slowest recent claim, and a margin. */
	private get claimLeadMs(): number {
		return leadOf(this.claimTimes);
	}

	/** How long before its claim a send's check starts. */
	private get checkLeadMs(): number {
		return leadOf(this.checkTimes);
	}

	/** When the item's send is due, as the latest slot and the interval say. */
	private slotOf(item: number, lastSlot: { item: number; at: number }): number {
		return lastSlot.at + (item - lastSlot.item) * this.intervalMs;
	}

	private noteKey(item: number, guard: SendOnceGuard) {
		if (!this.firstItemOfKey.has(guard.key)) this.firstItemOfKey.set(guard.key, item);
	}

	private async keepScheduling(): Promise<void> {
		while (!this.closed) await sleep(Math.min(this.startDue(), IDLE_MS));
	}

	/** Starts the record calls of every group of items now due; milliseconds until the next one is. */
	private startDue(): number {
		for (;;) {
			if (this.closed || this.lastSlot === undefined) return IDLE_MS;
			const first = Math.max(this.plannedUpTo + 1, this.lastSlot.item + 1);
			if (first >= this.itemCount) return IDLE_MS;
			const startAt = this.slotOf(first, this.lastSlot) - this.claimLeadMs - this.checkLeadMs;
			const untilStart = startAt - Date.now();
			if (untilStart > 0) return untilStart;
			const size = Math.min(MAX_GATHERED, Math.max(1, Math.floor(GATHER_MS / this.intervalMs)));
			const last = Math.min(this.itemCount, first + size) - 1;
			this.plannedUpTo = last;
			this.pending.push(this.checkAndClaim(first, last));
		}
	}

	/**
	 * Checks the items' keys in one read, then claims the free ones in one insert, as late as their
	 * first slot allows: a claim is what a crash leaves behind.
	 */
	private async checkAndClaim(first: number, last: number): Promise<void> {
		const guards: SendOnceGuard[] = [];
		for (let item = first; item <= last; item++) {
			const guard = this.guardOf(item);
			if (guard === undefined) continue;
			this.noteKey(item, guard);
			if (this.firstItemOfKey.get(guard.key) !== item) continue;
			this.guards.set(item, guard);
			guards.push(guard);
		}
		if (guards.length === 0) return;
		const checkStarted = Date.now();
		const free = await Promise.all(guards.map(async (guard) => await guard.checkAhead()));
		measure(this.checkTimes, Date.now() - checkStarted);
		const toClaim = guards.filter((_, k) => free[k]);
		if (toClaim.length === 0 || this.intervalMs >= CLAIM_AT_SLOT_FROM_MS) return;
		if (this.lastSlot !== undefined) {
			await sleep(Math.max(0, this.slotOf(first, this.lastSlot) - this.claimLeadMs - Date.now()));
		}
		if (this.closed) return;
		const claimStarted = Date.now();
		await Promise.all(toClaim.map(async (guard) => await guard.claimAhead()));
		measure(this.claimTimes, Date.now() - claimStarted);
	}
}

const leadOf = (times: number[]) =>
	times.length === 0
		? FIRST_CALL_MS + LEAD_MARGIN_MS
		: Math.min(MAX_LEAD_MS, Math.max(...times) + LEAD_MARGIN_MS);

function measure(times: number[], ms: number) {
	times.push(ms);
	if (times.length > MEASURED) times.shift();
}
