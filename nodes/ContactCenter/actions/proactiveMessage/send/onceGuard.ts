import { NodeOperationError, type IExecuteFunctions } from 'n8n-workflow';

import { once, type Claimed, type Found, type Ticket, type Work } from '../../../../shared/once';
import { warnIfKeyExpiresSoon, warnIfStorageNearlyFull } from '../../../../shared/recordApi';
import { withNotSent } from '../../../helpers/nodeErrors';
import { NOT_RECEIVED_STATUSES } from '../../../helpers/statusOverview';
import { SendFieldError } from './body';
import {
	DEFAULT_SEND_ONCE_HOURS,
	DEFAULT_SEND_ONCE_MODE,
	DEFAULT_SEND_ONCE_STORE,
	MAX_SEND_ONCE_HOURS,
	messageSendOnceKey,
	parseSentDetail,
	sentAgainKey,
	sendOnceScopeOf,
	sendOnceWindowMs,
	sentDetailText,
	type MessageIdentity,
	type SendAgainTo,
	type SendOnceMode,
	type SendOnceStore,
	type SentDetail,
} from './onceSettings';

/** Why this run does not send an item's message although nothing failed. */
export type SendOnceSkip =
	/** `statusNotRead`: why Send Again To could not read the status of the earlier message. */
	| { kind: 'alreadySent'; at: number; detail: string; statusNotRead?: string }
	/** Recorded as sent in n8n's store, which keeps no time or correlationId. */
	| { kind: 'sentEarlier' }
	/** Another run holds the key, or one stopped while it held it: the message may be out. */
	| { kind: 'running'; since?: number; stopped?: boolean };

export function sendOnceModeOf(context: IExecuteFunctions, i: number): SendOnceMode {
	return String(context.getNodeParameter('sendOnce', i, DEFAULT_SEND_ONCE_MODE)) as SendOnceMode;
}

/** Where this run's Send Once records (Record Sends In), read once per run. */
export function sendOnceStoreOf(context: IExecuteFunctions): SendOnceStore {
	const store = String(context.getNodeParameter('sendOnceStore', 0, DEFAULT_SEND_ONCE_STORE));
	return store === 'dataTable' ? 'dataTable' : 'n8n';
}

/**
 * The item's Send Once Key and Period, or undefined when Send Once is off for it; a wrong Send
 * Once field throws.
 */
export function sendOnceWorkOf(
	context: IExecuteFunctions,
	i: number,
	message: MessageIdentity,
): { key: string; retentionMs: number } | undefined {
	const mode = sendOnceModeOf(context, i);
	if (mode === 'off') return undefined;
	const retentionMs = sendOnceWindowMs(
		context.getNodeParameter('sendOncePeriodHours', i, undefined),
	);
	if (retentionMs === undefined) {
		throw new SendFieldError(
			`'Send Once Period (Hours)' must be a number of hours above 0 and at most ${MAX_SEND_ONCE_HOURS}`,
			`Enter how long a sent message blocks the same message, e.g. ${DEFAULT_SEND_ONCE_HOURS}`,
		);
	}
	const key = mode === 'customKey' ? customKeyOf(context, i) : messageSendOnceKey(message);
	return { key, retentionMs };
}

/**
 * Warns in the run when the record credential's key expires soon or n8n's data table storage is
 * nearly full; only when Send Once records in a data table.
 */
export async function warnAboutRecord(context: IExecuteFunctions): Promise<void> {
	if (sendOnceModeOf(context, 0) === 'off' || sendOnceStoreOf(context) !== 'dataTable') return;
	await warnIfKeyExpiresSoon(context, { readAfresh: true });
	await warnIfStorageNearlyFull(context);
}

/** A record call before the send: its failure says that the message was not sent. */
async function beforeSending<T>(recordCall: Promise<T>): Promise<T> {
	return await recordCall.catch((error: unknown) => {
		if (error instanceof NodeOperationError) error.description = withNotSent(error.description);
		throw error;
	});
}

/**
 * Send Once for one item's message, and the one place the Send operation uses the record. The key
 * is checked before the send, claimed right before the request (after the pacing wait) and kept
 * until the answer is recorded, so a crash leaves a claim only on a message that may really be
 * out; a refusal that sent nothing releases it.
 */
export class SendOnceGuard {
	/** The claim this run holds on the key, between the claim and the answer. */
	private ticket: Ticket | undefined;

	/** The record read and the claim taken ahead of the item's turn (see SendOnceAhead), until used. */
	private checkedAhead: Promise<Found> | undefined;
	private claimedAhead: Promise<Found<Claimed>> | undefined;
	/** The item's turn to claim came: nothing is claimed ahead any more. */
	private claiming = false;

	/** The status of the message an earlier run sent, once this run sends it again (Send Again To). */
	sentAgainAfter: string | undefined;

	/** The work the record calls are about: the message's key, or the key of its sending again. */
	private work: Work;

	private constructor(
		private readonly context: IExecuteFunctions,
		firstWork: Work,
		private readonly sendAgainTo: SendAgainTo,
		private readonly statusOf: (correlationId: string) => Promise<string>,
	) {
		this.work = firstWork;
		this.key = firstWork.key;
	}

	/** The message's Send Once Key: the same for every sending again of it. */
	readonly key: string;

	/** The item's guard, or undefined when Send Once is off for it; a wrong Send Once field throws. */
	static of(
		context: IExecuteFunctions,
		i: number,
		message: MessageIdentity,
		statusOf: (correlationId: string) => Promise<string>,
	): SendOnceGuard | undefined {
		const work = sendOnceWorkOf(context, i, message);
		if (work === undefined) return undefined;
		const { key, retentionMs } = work;
		const sendAgainTo = String(context.getNodeParameter('sendAgainTo', i, 'nobody')) as SendAgainTo;
		return new SendOnceGuard(
			context,
			{ scope: sendOnceScopeOf(context.getWorkflow().id), key, retentionMs },
			sendAgainTo,
			statusOf,
		);
	}

	/** Reads the record of the message ahead of its turn; says whether the key is free. */
	async checkAhead(): Promise<boolean> {
		this.checkedAhead = once.check(this.context, this.work);
		return await this.checkedAhead.then(
			(found) => found.state === 'free',
			// Safe to ignore: earlierSend awaits checkedAhead again and reports its failure as the item's.
			() => false,
		);
	}

	/** Claims the key ahead of the message's turn. */
	async claimAhead(): Promise<void> {
		if (this.claiming) return;
		this.claimedAhead = once.claim(this.context, this.work, 'send');
		// Waits for it to settle: a failure is the item's, which awaits claimedAhead again at its turn and reports it.
		await Promise.allSettled([this.claimedAhead]);
	}

	/** Gives up a claim taken ahead that the item never used (the run stopped before its turn). */
	async releaseUnused(): Promise<void> {
		// A claim that failed took nothing to release; its failure was the item's to report.
		const [claim] = await Promise.allSettled([this.claimedAhead]);
		this.claimedAhead = undefined;
		if (claim.status === 'fulfilled' && claim.value?.state === 'claimed')
			await once.releaseQuietly(this.context, claim.value.ticket, this.notReleased);
	}

	/**
	 * Before the send: the record's earlier send of this message, if it has one. With Send Again To
	 * failed, an earlier message whose status is FAILED or DELIVERING_FAILED is no reason not to
	 * send: the message is sent again under a key of its own (sentAgainKey), checked in turn.
	 */
	async earlierSend(): Promise<SendOnceSkip | undefined> {
		const checked = this.checkedAhead ?? once.check(this.context, this.work);
		this.checkedAhead = undefined;
		let earlier = await beforeSending(checked);
		while (earlier.state === 'done') {
			if (this.sendAgainTo !== 'failed') {
				return { kind: 'alreadySent', at: earlier.at, detail: earlier.detail };
			}
			const { correlationId } = parseSentDetail(earlier.detail, earlier.at);
			const read = await this.statusOf(correlationId).then(
				(status) => ({ status, error: undefined }),
				(error: Error) => ({ status: undefined, error: error.message }),
			);
			if (correlationId === '' || read.status === undefined) {
				const statusNotRead = correlationId === '' ? 'no correlationId recorded' : read.error;
				return { kind: 'alreadySent', at: earlier.at, detail: earlier.detail, statusNotRead };
			}
			if (!NOT_RECEIVED_STATUSES.includes(read.status)) {
				return { kind: 'alreadySent', at: earlier.at, detail: earlier.detail };
			}
			this.sentAgainAfter = read.status;
			this.work = { ...this.work, key: sentAgainKey(this.key, correlationId) };
			earlier = await beforeSending(once.check(this.context, this.work));
		}
		return undefined;
	}

	/** Right before a request: claims the key unless this run holds it; a reason not to send, or undefined. */
	async claim(): Promise<SendOnceSkip | undefined> {
		if (this.ticket !== undefined) return undefined;
		this.claiming = true;
		const ahead = this.claimedAhead;
		this.claimedAhead = undefined;
		const claimed = await beforeSending(ahead ?? once.claim(this.context, this.work, 'send'));
		if (claimed.state === 'done')
			return { kind: 'alreadySent', at: claimed.at, detail: claimed.detail };
		if (claimed.state === 'running') return { kind: 'running', since: claimed.since };
		if (claimed.lapsedClaimAt !== undefined) {
			await once.releaseQuietly(this.context, claimed.ticket, this.notReleased);
			return { kind: 'running', since: claimed.lapsedClaimAt, stopped: true };
		}
		this.ticket = claimed.ticket;
		return undefined;
	}

	/** After a failed request: a claim stays on a message that may be out, so that no later run sends it again. */
	async afterFailure(uncertainAttempts: number): Promise<void> {
		if (this.ticket === undefined || uncertainAttempts > 0) return;
		await once.releaseQuietly(this.context, this.ticket, this.notReleased);
		this.ticket = undefined;
	}

	/**
	 * After the service accepted the message. Until its row is in, the message counts as sent in
	 * this process; the claim holds it for the other processes, so that no run sends it again.
	 */
	async markSent(detail: SentDetail): Promise<void> {
		// A send goes out only once its claim is taken.
		if (this.ticket === undefined) return;
		await once.finish(this.context, this.ticket, sentDetailText(detail), 'keepTrying');
	}

	/** The warning when a release fails (see once.releaseQuietly). */
	private readonly notReleased = (reason: string) =>
		`Contact Center: send once key ${this.key} could not be released: ${reason}`;
}

function customKeyOf(context: IExecuteFunctions, i: number): string {
	const key = String(context.getNodeParameter('sendOnceKey', i, '')).trim();
	if (key === '') {
		throw new SendFieldError(
			"'Send Once Key' is empty",
			"Enter a key that names the message, e.g. {{ $json.contact }}-{{ $today.toISODate() }}, or set 'Send Once' to 'Same Message Once' or 'Off'",
		);
	}
	return key;
}
