import type { IDataObject } from 'n8n-workflow';

export const MESSAGE_STATUSES = [
	'PROCESSING',
	'FAILED',
	'SENT',
	'DELIVERED',
	'DELIVERING_FAILED',
] as const;

export interface StatusOverview extends IDataObject {
	correlationId: string;
	total: number;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
	typeof value === 'object' && value !== null && !Array.isArray(value);

function toCount(value: unknown): number | undefined {
	const count = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	return typeof count === 'number' && Number.isFinite(count) ? count : undefined;
}

/**
 * One flat row per correlation id: `total` and one column per status, always numbers. The declared
 * schema types `total` as a string while the sample shows a number, so both are read; a status the
 * spec does not list gets a column of its own rather than being dropped.
 */
export function normalizeStatusOverview(
	body: unknown,
	requestedCorrelationId: string,
): StatusOverview {
	const overview = isRecord(body) ? body : {};
	const statuses = isRecord(overview.statuses) ? overview.statuses : {};
	const counts: Record<string, number> = Object.fromEntries(MESSAGE_STATUSES.map((s) => [s, 0]));
	for (const [status, value] of Object.entries(statuses)) {
		counts[status] = toCount(value) ?? 0;
	}
	const sumOfStatuses = Object.values(counts).reduce((sum, count) => sum + count, 0);
	return {
		correlationId:
			typeof overview.correlationId === 'string' && overview.correlationId !== ''
				? overview.correlationId
				: requestedCorrelationId,
		total: toCount(overview.total) ?? sumOfStatuses,
		...counts,
	};
}

export interface FailedMessage extends IDataObject {
	correlationId: string;
	status: string;
	contact: string;
	reason: string;
}

/**
 * The details of one status (documented for FAILED) as an array; a wrapper object holding one is
 * accepted too. An entry without a status has the status that was asked for.
 */
export function normalizeFailedMessages(
	body: unknown,
	correlationId: string,
	askedStatus = 'FAILED',
): FailedMessage[] {
	const list = Array.isArray(body)
		? body
		: isRecord(body)
			? (Object.values(body).find(Array.isArray) ?? [])
			: [];
	return list.map((entry: unknown) => {
		const detail = isRecord(entry) ? entry : {};
		const text = (value: unknown) => (value === undefined || value === null ? '' : String(value));
		return {
			correlationId,
			status: text(detail.status) || askedStatus,
			contact: text(detail.contact),
			reason: text(detail.reason),
		};
	});
}

/** Statuses a message does not leave: the service has nothing more to report about it. */
export const FINAL_STATUSES: readonly string[] = ['DELIVERED', 'FAILED', 'DELIVERING_FAILED'];

/** Statuses of messages that did not reach the contact: not sent (FAILED), sent but not delivered. */
export const NOT_RECEIVED_STATUSES: readonly string[] = ['FAILED', 'DELIVERING_FAILED'];

/**
 * One send is one message, so its status is the one status its overview counts. A status still on
 * its way (PROCESSING, SENT, or one the spec does not list) wins over a final one; UNKNOWN when
 * the overview counts no message.
 */
export function currentStatusOf(overview: StatusOverview): string {
	const counted = Object.keys(overview).filter(
		(key) => key !== 'correlationId' && key !== 'total' && Number(overview[key]) > 0,
	);
	return counted.find((status) => !FINAL_STATUSES.includes(status)) ?? counted[0] ?? 'UNKNOWN';
}

/** Whether the contact got the message, by its status: a column a sheet filters on. */
export type Received = 'yes' | 'no' | 'unconfirmed';

/**
 * DELIVERED is yes; FAILED and DELIVERING_FAILED are no; every other status is unconfirmed: SENT
 * (the service sent it and has no delivery confirmation, maybe never will), PROCESSING (queued),
 * or a status the spec does not list.
 */
export function receivedOf(status: string): Received {
	if (status === 'DELIVERED') return 'yes';
	return NOT_RECEIVED_STATUSES.includes(status) ? 'no' : 'unconfirmed';
}

/**
 * Get Status's row of one send: its contact and status (the first columns of Get Failed's rows
 * too), whether the contact got it, then its correlationId. An overview that counts more than one message (a correlationId that did not come
 * from one Send item) has its counts per status as well, in `statusCounts`.
 */
export function statusRow(overview: StatusOverview, contact: string): IDataObject {
	const status = currentStatusOf(overview);
	const { correlationId, total, ...counts } = overview;
	return {
		contact,
		status,
		received: receivedOf(status),
		correlationId,
		...(total > 1
			? {
					statusCounts: Object.fromEntries(
						Object.entries(counts).filter(([, count]) => Number(count) > 0),
					),
				}
			: {}),
	};
}
