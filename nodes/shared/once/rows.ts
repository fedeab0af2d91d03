// The record's rows and the pure decisions over them. Each row is one attempt at a piece of work,
// inserted on its own (`running` while a process holds it, `done` once the work succeeded) and
// never rewritten as a whole, so concurrent writes of several processes cannot lose each other.

export const RECORD_COLUMNS = [
	{ name: 'scope', type: 'string' },
	{ name: 'recordKey', type: 'string' },
	{ name: 'state', type: 'string' },
	{ name: 'stateAt', type: 'number' },
	{ name: 'detail', type: 'string' },
] as const;

export interface RecordRow {
	id: number;
	scope: string;
	/** `<scope>|<key>`: see recordKeyOf. */
	recordKey: string;
	state: 'running' | 'done';
	stateAt: number;
	/** What the work left to tell later (e.g. a message id). */
	detail: string;
}

export interface RecordWindows {
	/** How long a `done` row answers "already done". */
	retentionMs: number;
	/** How long a `running` row holds its key; older ones died with their process. */
	claimMs: number;
}

/** Rows older than this are removed; no user of the record may ask for a longer retention. */
export const MAX_RECORD_RETENTION_MS = 72 * 60 * 60 * 1000;

export const DEFAULT_RECORD_WINDOWS: RecordWindows = {
	// The service's write back retries span 63 hours (1 + 2 + 4 + 8 + 16 + 32); a margin for clock skew.
	retentionMs: MAX_RECORD_RETENTION_MS,
	claimMs: 15 * 60 * 1000,
};

type Done = { state: 'done'; at: number; detail: string };
type Free = { state: 'free' };
/**
 * The one answer about a key: `done` (when, and what the work left), `running` (a live claim holds
 * it, taken at `since`) or `Open`: `free` for a check; for a claim, `claimed` and what it took.
 */
export type Found<Open = Free> = Open | Done | { state: 'running'; since?: number };

type ClaimDecision = Found<
	/** `lapsedClaimAt`: when the latest claim past the claim window was taken (its process died). */
	| { state: 'claimed'; lapsedClaimAt?: number }
	/** Our own row is gone (deleted meanwhile, e.g. by hand): claim again. */
	| { state: 'lost' }
	/** Only younger live claims beside ours, each probably about to give up: read again. */
	| { state: 'contended'; since: number }
>;

/** Rows as the API returned them; anything not shaped like a row is left out. */
export function rowsOf(value: unknown): RecordRow[] {
	const data = (value as { data?: unknown } | null)?.data;
	const list: unknown[] = Array.isArray(value) ? value : Array.isArray(data) ? data : [];
	return list.flatMap((entry) => {
		if (entry === null || typeof entry !== 'object') return [];
		const { id, scope, recordKey, state, stateAt, detail } = entry as Record<string, unknown>;
		const row = { id: Number(id), stateAt: Number(stateAt), state };
		if (!Number.isFinite(row.id) || !Number.isFinite(row.stateAt)) return [];
		if (state !== 'running' && state !== 'done') return [];
		const text = { scope: String(scope ?? ''), recordKey: String(recordKey ?? '') };
		return [{ ...row, ...text, state, detail: typeof detail === 'string' ? detail : '' }];
	});
}

/** The key's `running` rows within the claim window, oldest id first; older ones died with their process. */
const liveClaims = (rows: RecordRow[], now: number, windows: RecordWindows) =>
	rows
		.filter((row) => row.state === 'running' && row.stateAt >= now - windows.claimMs)
		.sort((a, b) => a.id - b.id);

/**
 * What a key's rows say to a caller without a row of its own: the latest `done` row within the
 * retention wins; else the oldest live `running` row (row ids give one order every process sees).
 */
export function decideRead(
	rows: RecordRow[],
	now: number,
	windows: RecordWindows = DEFAULT_RECORD_WINDOWS,
): Found {
	const [done] = rows
		.filter((row) => row.state === 'done' && row.stateAt >= now - windows.retentionMs)
		.sort((a, b) => b.stateAt - a.stateAt);
	if (done) return { state: 'done', at: done.stateAt, detail: done.detail };
	const [oldest] = liveClaims(rows, now, windows);
	return oldest !== undefined ? { state: 'running', since: oldest.stateAt } : { state: 'free' };
}

/**
 * Decides a claim from its key's rows, read after its own row (`ownId`) was inserted. n8n answers
 * an insert once it committed, so this read, and every read any claimer begins from now on, sees
 * our row. The claim is taken only if the read sees no other live claim (nor a `done` row): of two
 * claims that both saw none, the one that read first missed the other's row, so read before that
 * row committed, and so before the other's read, which then saw the first's row. Whatever order
 * the inserts commit in, at most one claim is taken. Beside an older live claim (probably the
 * holder) ours gives up; beside only younger ones it reads again, as they give up (see record.ts).
 */
export function decideClaim(
	rows: RecordRow[],
	ownId: number,
	now: number,
	windows: RecordWindows = DEFAULT_RECORD_WINDOWS,
): ClaimDecision {
	const others = rows.filter((row) => row.id !== ownId);
	const before = decideRead(others, now, windows);
	if (before.state === 'done') return before;
	if (!rows.some((row) => row.id === ownId && row.state === 'running')) return { state: 'lost' };
	const [oldest] = liveClaims(others, now, windows);
	if (oldest !== undefined) {
		const since = oldest.stateAt;
		return oldest.id < ownId ? { state: 'running', since } : { state: 'contended', since };
	}
	const lapsed = others
		.filter((row) => row.state === 'running')
		.map((row) => row.stateAt)
		.filter((at) => at < now - windows.claimMs && at >= now - windows.retentionMs);
	return lapsed.length > 0
		? { state: 'claimed', lapsedClaimAt: Math.max(...lapsed) }
		: { state: 'claimed' };
}

/**
 * A claim's rows among its key's rows: the one it inserted and any other with its token (an insert
 * sent again after its answer was lost adds one). The oldest is its own row; the others are to be
 * deleted and are left out of the rows a decision is made from.
 */
export function ownClaimRows(rows: RecordRow[], insertedId: number, token: string) {
	const isOwn = (row: RecordRow) => row.id === insertedId || row.detail === token;
	const ownIds = [insertedId, ...rows.filter(isOwn).map((row) => row.id)];
	const ownId = Math.min(...ownIds);
	return {
		ownId,
		otherOwnIds: [...new Set(ownIds)].filter((id) => id !== ownId),
		rows: rows.filter((row) => !isOwn(row) || row.id === ownId),
	};
}

type Condition = 'eq' | 'lt' | 'gt' | 'gte';
type Rule = [column: string, condition: Condition, value: unknown];

/** A data table filter of n8n's public API: every condition holds (`and`) or any one (`or`). */
export interface RecordFilter {
	type: 'and' | 'or';
	filters: Array<{ columnName: string; condition: Condition; value: unknown }>;
}

export const filterOf = (rules: Rule[], type: RecordFilter['type'] = 'and'): RecordFilter => ({
	type,
	filters: rules.map(([columnName, condition, value]) => ({ columnName, condition, value })),
});

/** Rows whose `column` is any of `values` (one request for a batch). */
export const anyOf = (column: 'recordKey' | 'id', values: unknown[]) =>
	filterOf(
		values.map((value): Rule => [column, 'eq', value]),
		'or',
	);

export const recordKeyOf = (scope: string, key: string) => `${scope}|${key}`;

/**
 * A piece of work: `scope` separates the users of the record, `key` names the work in it.
 * `retentionMs`: how long its `done` row answers "already done" (the longest by default).
 */
export type Work = { scope: string; key: string; retentionMs?: number };

/** Work done: its claim's row if any, and what it left to tell (e.g. a message id). */
export type Finished = { work: Work; claimId?: number; detail: string };

export const windowsOf = (work: Work): RecordWindows =>
	work.retentionMs === undefined
		? DEFAULT_RECORD_WINDOWS
		: { ...DEFAULT_RECORD_WINDOWS, retentionMs: work.retentionMs };
