import { NodeOperationError, type IExecuteFunctions } from 'n8n-workflow';

import { state } from './state';

/**
 * Send Once without a credential: the marks of a Send node's messages in n8n's own deduplication
 * store (`helpers.checkProcessedAndRecord`, the Remove Duplicates node's store), scope `node`.
 *
 * That store only answers "was this value seen?", and records what it had not seen in the same
 * call. So a message is claimed by recording its claim mark, right before its send (Send claims
 * one message a call, up to five at fast rates), and the sent marks of the messages accepted since the
 * last claim go in the same call. A crash therefore leaves only the claims of the messages being
 * sent without their sent mark, which the next run reports as "may have been sent".
 *
 * The Send Once Period: each mark is recorded for the period it falls in and the next one, so a
 * message counts as sent for at least the period and at most twice the period.
 *
 * What it cannot do: n8n's store reads and writes its whole row without a lock, so two runs of the
 * same node at the same moment in two processes (queue mode workers) can both claim a message.
 * Within one process the calls of every run are put in one line (state.n8nStoreLines).
 */

/** The store keeps the last MAX_ENTRIES marks of a node: four per message. */
export const MARKS_PER_MESSAGE = 4;
export const MAX_MESSAGES = 10_000;
const MAX_ENTRIES = MAX_MESSAGES * MARKS_PER_MESSAGE;
const OPTIONS = { mode: 'entries' as const, maxEntries: MAX_ENTRIES };

export type N8nClaim = 'claimed' | 'sent' | 'maybeSent';

/** One message: its Send Once Key and its Send Once Period. */
export interface N8nWork {
	key: string;
	periodMs: number;
}

type Mark = 'claim' | 'sent';

export class N8nSendStore {
	/** Sent marks not written yet: they go with the next call. */
	private unwrittenSent: string[] = [];

	constructor(private readonly context: IExecuteFunctions) {}

	/**
	 * Claims the messages' keys (distinct keys) in one call, or says why each is not to be sent: a
	 * key claimed before is then checked for its sent mark, all in a second call.
	 */
	async claim(works: N8nWork[]): Promise<N8nClaim[]> {
		this.assertUsable();
		const claimMarks = works.map((work) => marksOf('claim', work));
		const found = await this.record([...this.unwrittenSent, ...claimMarks.flat()], () => {
			this.unwrittenSent = [];
		});
		const claimedBefore = new Set(found.processed);
		const taken = works.filter((_, k) => claimedBefore.has(claimMarks[k][0]));
		if (taken.length === 0) return works.map(() => 'claimed');
		const sentMarks = taken.map((work) => marksOf('sent', work));
		const sent = await this.record(sentMarks.flat());
		const sentBefore = new Set(sent.processed);
		// Claimed by a run that never recorded its send: the sent marks just recorded go again.
		const notSent = sentMarks.filter((marks) => !sentBefore.has(marks[0])).flat();
		await this.remove(notSent.filter((mark) => sent.new.includes(mark)));
		const outcomeOf = new Map(
			taken.map((work, k) => [work, sentBefore.has(sentMarks[k][0]) ? 'sent' : 'maybeSent']),
		);
		return works.map((work) => (outcomeOf.get(work) as N8nClaim | undefined) ?? 'claimed');
	}

	/** The service accepted the message: its sent marks go with the next call (or close). */
	sent(work: N8nWork): void {
		this.unwrittenSent.push(...marksOf('sent', work));
	}

	/** The sends failed or will not happen now, and sent nothing: the keys are free again. */
	async release(works: N8nWork[]): Promise<void> {
		await this.remove(works.flatMap((work) => marksOf('claim', work)));
	}

	/** Throws unless n8n gives this run its store. */
	private assertUsable(): void {
		const { id } = this.context.getWorkflow();
		if (id === undefined || id === '') {
			throw new NodeOperationError(
				this.context.getNode(),
				'Send Once cannot record: the workflow has no ID',
				{ description: 'Save the workflow, then run it again. Or set Send Once to Off.' },
			);
		}
		if (typeof this.context.helpers.checkProcessedAndRecord !== 'function') {
			throw new NodeOperationError(
				this.context.getNode(),
				'Send Once cannot record: n8n gives this node no deduplication store where it runs',
				{ description: 'Set Record Sends In to Data Table, or Send Once to Off.' },
			);
		}
	}

	/** Writes the sent marks still unwritten. */
	async close(): Promise<void> {
		if (this.unwrittenSent.length === 0) return;
		await this.record(this.unwrittenSent, () => {
			this.unwrittenSent = [];
		});
	}

	/** How many messages the node's store holds now. */
	async countMessages(): Promise<number> {
		const count = await this.inLine(
			async () => await this.context.helpers.getProcessedDataCount('node', OPTIONS),
		);
		return Math.ceil(count / MARKS_PER_MESSAGE);
	}

	private async record(values: string[], written?: () => void) {
		const found = await this.inLine(
			async () => await this.context.helpers.checkProcessedAndRecord(values, 'node', OPTIONS),
		);
		written?.();
		return { new: found.new.map(String), processed: found.processed.map(String) };
	}

	private async remove(values: string[]) {
		if (values.length === 0) return;
		await this.inLine(
			async () => await this.context.helpers.removeProcessed(values, 'node', OPTIONS),
		);
	}

	/** Runs the call after every earlier call of this process on the same node's store. */
	private async inLine<T>(call: () => Promise<T>): Promise<T> {
		const line = `${this.context.getWorkflow().id}|${this.context.getNode().id}`;
		const before = state.n8nStoreLines.get(line) ?? Promise.resolve();
		const result = before.then(call);
		const settled = result.then(
			() => undefined,
			// Safe to ignore: the caller awaits `result` and gets the failure.
			() => undefined,
		);
		state.n8nStoreLines.set(line, settled);
		void settled.then(() => {
			if (state.n8nStoreLines.get(line) === settled) state.n8nStoreLines.delete(line);
		});
		return await result;
	}
}

/** A mark for the period now and the next one. */
function marksOf(mark: Mark, { key, periodMs }: N8nWork): [string, string] {
	const period = Math.floor(Date.now() / periodMs);
	const of = (p: number) => `${mark}|${periodMs}|${p}|${key}`;
	return [of(period), of(period + 1)];
}
