/**
 * The rows of the durable record ("was this already done?") and the pure decisions over them.
 * Each row is one attempt at a piece of work, written as its own insert into an n8n data table:
 * `running` while a process holds it, `done` once the work succeeded. Nothing is ever rewritten as
 * a whole, so writes of several n8n processes at the same moment cannot lose each other.
 */

export const RECORD_COLUMNS = [
	{ name: 'scope', type: 'string' },
	/** `<scope>|<key>`: see recordKeyOf. */
	{ name: 'recordKey', type: 'string' },
	{ name: 'state', type: 'string' },
	{ name: 'stateAt', type: 'number' },
	{ name: 'detail', type: 'string' },
] as const;

type RecordState = 'running' | 'done';

export interface RecordRow {
	id: number;
	scope: string;
	recordKey: string;
	state: RecordState;
	/** When the row got its state (ms since the epoch). */
	stateAt: number;
	/** What the work left to tell later (e.g. a message id), as text. */
	detail: string;
}

export interface RecordWindows {
	/** How long a `done` row answers "already done". */
	retentionMs: number;
	/** How long a `running` row holds its key; older ones are taken to have died with their process. */
	claimMs: number;
}

/** Rows older than this are removed; no user of the record may ask for a longer retention. */
export const MAX_RECORD_RETENTION_MS = 72 * 60 * 60 * 1000;

export const DEFAULT_RECORD_WINDOWS: RecordWindows = {
	// The service's write back retries span 63 hours (1 + 2 + 4 + 8 + 16 + 32); a margin for clock skew.
	retentionMs: MAX_RECORD_RETENTION_MS,
	claimMs: 15 * 60 * 1000,
};

/** What the record says of a key: done (when, and what its work left to tell), held, or free. */
export type CheckResult =
	| { state: 'done'; at: number; detail: string }
	/** `since`: when the claim that holds the key was taken. */
	| { state: 'running'; since: number }
	| { state: 'free' };

type ClaimDecision =
	/** `lapsedClaimAt`: when the latest claim older than the claim window was taken (its process died). */
	| { state: 'claimed'; lapsedClaimAt?: number }
	| Exclude<CheckResult, { state: 'free' }>
	/** Our own row is gone (deleted meanwhile, e.g. by hand): claim again. */
	| { state: 'lost' };

/** Rows as the API returned them; anything not shaped like a row is left out. */
export function rowsOf(value: unknown): RecordRow[] {
	const list = Array.isArray(value)
		? value
		: Array.isArray((value as { data?: unknown } | null)?.data)
			? (value as { data: unknown[] }).data
			: [];
	return list.flatMap((entry) => {
		const row = entry as Partial<Record<keyof RecordRow, unknown>> | null;
		if (row === null || typeof row !== 'object') return [];
		const id = Number(row.id);
		const stateAt = Number(row.stateAt);
		if (!Number.isFinite(id) || !Number.isFinite(stateAt)) return [];
		if (row.state !== 'running' && row.state !== 'done') return [];
		return [
			{
				id,
				scope: String(row.scope ?? ''),
				recordKey: String(row.recordKey ?? ''),
				state: row.state,
				stateAt,
				detail: typeof row.detail === 'string' ? row.detail : '',
			},
		];
	});
}

/**
 * Decides a claim from every row of its key, read after our own row (`ownId`) was inserted: a
 * `done` row within the retention wins over everything; else the oldest live `running` row (the
 * database's row ids give one order that every process sees) holds the key.
 */
export function decideClaim(
	rows: RecordRow[],
	ownId: number,
	now: number,
	windows: RecordWindows = DEFAULT_RECORD_WINDOWS,
): ClaimDecision {
	const done = latestDone(rows, now, windows);
	if (done) return { state: 'done', at: done.stateAt, detail: done.detail };
	const isLive = (row: RecordRow) => row.id === ownId || row.stateAt >= now - windows.claimMs;
	const running = rows.filter((row) => row.state === 'running');
	const live = running.filter(isLive).sort((a, b) => a.id - b.id);
	if (!live.some((row) => row.id === ownId)) return { state: 'lost' };
	if (live[0].id !== ownId) return { state: 'running', since: live[0].stateAt };
	const lapsed = running
		.filter((row) => !isLive(row) && row.stateAt >= now - windows.retentionMs)
		.map((row) => row.stateAt);
	return lapsed.length > 0
		? { state: 'claimed', lapsedClaimAt: Math.max(...lapsed) }
		: { state: 'claimed' };
}

/**
 * A claim's rows among its key's rows: the one it inserted and any other row with its token (an
 * insert sent again after its answer was lost adds one). The oldest is the claim's own row, as
 * it is the one the database ordered first; the others are to be deleted and are left out of the
 * rows a decision is made from.
 */
export function ownClaimRows(
	rows: RecordRow[],
	insertedId: number,
	token: string,
): { ownId: number; otherOwnIds: number[]; rows: RecordRow[] } {
	const isOwn = (row: RecordRow) => row.id === insertedId || row.detail === token;
	const ownIds = [insertedId, ...rows.filter(isOwn).map((row) => row.id)];
	const ownId = Math.min(...ownIds);
	const otherOwnIds = [...new Set(ownIds)].filter((id) => id !== ownId);
	return {
		ownId,
		otherOwnIds,
		rows: rows.filter((row) => !isOwn(row) || row.id === ownId),
	};
}

/**
 * What the rows of a key say to a caller that holds no row of its own: done within the
 * retention, held by a live claim (the oldest one's time), or free.
 */
export function decideRead(
	rows: RecordRow[],
	now: number,
	windows: RecordWindows = DEFAULT_RECORD_WINDOWS,
): CheckResult {
	const done = latestDone(rows, now, windows);
	if (done) return { state: 'done', at: done.stateAt, detail: done.detail };
	const live = rows
		.filter((row) => row.state === 'running' && row.stateAt >= now - windows.claimMs)
		.sort((a, b) => a.id - b.id);
	return live.length > 0 ? { state: 'running', since: live[0].stateAt } : { state: 'free' };
}

/** The latest `done` row within the retention, if any. */
export function latestDone(
	rows: RecordRow[],
	now: number,
	windows: RecordWindows = DEFAULT_RECORD_WINDOWS,
): RecordRow | undefined {
	return rows
		.filter((row) => row.state === 'done' && row.stateAt >= now - windows.retentionMs)
		.sort((a, b) => b.stateAt - a.stateAt)[0];
}

type Condition = 'eq' | 'lt' | 'gt' | 'gte';

/** A data table filter of n8n's public API. */
export interface RecordFilter {
	type: 'and' | 'or';
	filters: Array<{ columnName: string; condition: Condition; value: unknown }>;
}

/** A data table filter (n8n public API): every condition must hold. */
export function filterOf(
	conditions: Array<[column: string, condition: Condition, value: unknown]>,
) {
	return {
		type: 'and' as const,
		filters: conditions.map(([columnName, condition, value]) => ({ columnName, condition, value })),
	};
}

/**
 * The record key of a piece of work (the `recordKey` column): its scope and its key together, so that one equality (or a list
 * of them) finds exactly one piece of work's rows.
 */
export const recordKeyOf = (scope: string, key: string) => `${scope}|${key}`;

/** Rows of any of these record keys (one request for a batch of deliveries). */
export const anyKeyFilter = (recordKeys: string[]): RecordFilter => ({
	type: 'or' as const,
	filters: recordKeys.map((value) => ({
		columnName: 'recordKey',
		condition: 'eq' as const,
		value,
	})),
});

/** Rows with any of these ids. */
export const anyIdFilter = (ids: number[]): RecordFilter => ({
	type: 'or' as const,
	filters: ids.map((value) => ({ columnName: 'id', condition: 'eq' as const, value })),
});

/**
 * A piece of work: `scope` separates the users of the record, `key` names the work in it.
 * `retentionMs`: how long its `done` row answers "already done" (the record's longest by default).
 */
export interface Work {
	scope: string;
	key: string;
	retentionMs?: number;
}

export const windowsOf = (work: Work): RecordWindows =>
	work.retentionMs === undefined
		? DEFAULT_RECORD_WINDOWS
		: { ...DEFAULT_RECORD_WINDOWS, retentionMs: work.retentionMs };
