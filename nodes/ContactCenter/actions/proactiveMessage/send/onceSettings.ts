import { createHash } from 'crypto';

/**
 * Send Once: which messages count as "the same message" and what the record keeps of a send.
 * The record itself is `nodes/shared/once`; these are the pure parts, unit tested.
 */
export type SendOnceMode = 'message' | 'customKey' | 'off';

/** On for a new node, recording in n8n's own store, so that it needs no second credential. */
export const DEFAULT_SEND_ONCE_MODE: SendOnceMode = 'message';

/**
 * Where Send Once records: `n8n`, n8n's own deduplication store (no credential); `dataTable`, a
 * data table through a Contact Center Record API credential.
 */
export type SendOnceStore = 'n8n' | 'dataTable';
export const DEFAULT_SEND_ONCE_STORE: SendOnceStore = 'n8n';

/** Which messages an earlier run sent are sent again all the same (Send Again To). */
export type SendAgainTo = 'nobody' | 'failed';

export const DEFAULT_SEND_ONCE_HOURS = 12;
export const MAX_SEND_ONCE_HOURS = 72;

/** The fields of a send request that make a message what it is. */
export interface MessageIdentity {
	medium: string;
	channel: string;
	contact: string;
	text: string;
	metadata?: Record<string, unknown>;
}

/** Keys of every Send node of one workflow share a scope: a Retry and a rerun land in it. */
export const sendOnceScopeOf = (workflowId: string | undefined) =>
	`send:${workflowId === undefined || workflowId === '' ? 'unsaved' : workflowId}`;

/**
 * The default key: the message itself. The contact stays readable (the record's rows can be
 * searched by it); text and metadata go in as a hash, so a key is short and holds no message text.
 */
export function messageSendOnceKey(message: MessageIdentity): string {
	const metadata = Object.keys(message.metadata ?? {})
		.sort()
		.map((key) => [key, String(message.metadata?.[key])]);
	const digest = createHash('sha256')
		.update(JSON.stringify([message.medium, message.channel, message.text, metadata]))
		.digest('hex')
		.slice(0, 32);
	return `${message.contact}|${message.medium}|${digest}`;
}

/**
 * The key of a message sent again because the one an earlier run sent (`correlationId`) failed:
 * its own key, so that a rerun or Retry of the run that sends it again finds it and sends it once.
 * It hangs on the first key, whatever the number of times it was sent again.
 */
export const sentAgainKey = (key: string, correlationId: string) =>
	`${key}|again after ${correlationId}`;

/** What the record keeps of an accepted send. */
export interface SentDetail {
	correlationId: string;
	/** ISO time the service accepted the message. */
	sentAt: string;
}

export const sentDetailText = (detail: SentDetail) => JSON.stringify(detail);

/** Reads a send's detail back; anything else (an older or foreign row) gives empty fields. */
export function parseSentDetail(text: string, fallbackAt: number): SentDetail {
	let parsed: unknown;
	try {
		parsed = JSON.parse(text);
	} catch {
		// Safe to ignore: a detail that is not JSON (an older or foreign row) reads as empty fields.
		parsed = undefined;
	}
	const value = (parsed ?? {}) as Partial<Record<keyof SentDetail, unknown>>;
	return {
		correlationId: typeof value.correlationId === 'string' ? value.correlationId : '',
		sentAt:
			typeof value.sentAt === 'string' && value.sentAt !== ''
				? value.sentAt
				: new Date(fallbackAt).toISOString(),
	};
}

/** The Send Once Period option in ms; undefined when it is not a number of hours the record keeps. */
export function sendOnceWindowMs(hours: unknown): number | undefined {
	const value = Number(hours ?? DEFAULT_SEND_ONCE_HOURS);
	if (!Number.isFinite(value) || value <= 0 || value > MAX_SEND_ONCE_HOURS) return undefined;
	return value * 60 * 60 * 1000;
}
