import {
	DEFAULT_RECORD_WINDOWS,
	anyOf,
	filterOf,
	recordKeyOf,
	decideClaim,
	decideRead,
	ownClaimRows,
	rowsOf,
	type RecordRow,
} from '../../nodes/shared/once/rows';

const NOW = Date.UTC(2026, 10, 25, 12, 0, 0);
const row = (id: number, state: RecordRow['state'], ageMs = 0, detail = ''): RecordRow => ({
	id,
	scope: 'writeBack:hook',
	recordKey: 'key-1',
	state,
	stateAt: NOW - ageMs,
	detail,
});

describe('decideClaim', () => {
	test('the only running row is ours: claimed', () => {
		expect(decideClaim([row(7, 'running')], 7, NOW)).toEqual({ state: 'claimed' });
	});

	test('beside an older live claim: running; beside only younger ones: contended (read again)', () => {
		const rows = [row(5, 'running', 300), row(6, 'running', 200), row(9, 'running', 100)];
		expect(decideClaim(rows, 5, NOW)).toEqual({ state: 'contended', since: rows[1].stateAt });
		expect(decideClaim(rows, 6, NOW)).toEqual({ state: 'running', since: rows[0].stateAt });
		expect(decideClaim(rows, 9, NOW)).toEqual({ state: 'running', since: rows[0].stateAt });
	});

	// Two claims of one key, A's row with the lower id: each read sees the rows committed before it
	// began, and a claim reads only after its own insert committed (n8n answers it then).
	test.each([
		['A commits, A reads, B commits, B reads', ['cA', 'rA', 'cB', 'rB']],
		['A commits, B commits, A reads, B reads', ['cA', 'cB', 'rA', 'rB']],
		['A commits, B commits, B reads, A reads', ['cA', 'cB', 'rB', 'rA']],
		['B commits, A commits, A reads, B reads', ['cB', 'cA', 'rA', 'rB']],
		['B commits, A commits, B reads, A reads', ['cB', 'cA', 'rB', 'rA']],
		['B commits, B reads, A commits late, A reads', ['cB', 'rB', 'cA', 'rA']],
	])('at most one of two claims is taken, whatever the commit order: %s', (_order, events) => {
		const ids = { A: 3, B: 4 };
		const committed: RecordRow[] = [];
		const decided: string[] = [];
		for (const event of events) {
			const claimer = event[1] as 'A' | 'B';
			if (event[0] === 'c') committed.push(row(ids[claimer], 'running'));
			else decided.push(decideClaim([...committed], ids[claimer], NOW).state);
		}
		expect(decided.filter((state) => state === 'claimed').length).toBeLessThanOrEqual(1);
	});

	test('a done row within the retention wins over every claim, with its detail', () => {
		const done = row(2, 'done', 60 * 60 * 1000, 'msg-1');
		expect(decideClaim([done, row(8, 'running')], 8, NOW)).toEqual({
			state: 'done',
			at: done.stateAt,
			detail: done.detail,
		});
	});

	test("a done row counts through the service's last redelivery, 63 hours after the first", () => {
		const lastRedeliveryMs = (1 + 2 + 4 + 8 + 16 + 32) * 60 * 60 * 1000;
		const done = row(2, 'done', lastRedeliveryMs);
		expect(decideClaim([done, row(8, 'running')], 8, NOW)).toEqual({
			state: 'done',
			at: done.stateAt,
			detail: done.detail,
		});
	});

	test('a done row past the 72-hour retention no longer counts', () => {
		const old = row(2, 'done', DEFAULT_RECORD_WINDOWS.retentionMs + 1);
		expect(decideClaim([old, row(8, 'running')], 8, NOW).state).toBe('claimed');
	});

	test('a running row older than the claim window is taken as dead', () => {
		const stale = row(3, 'running', DEFAULT_RECORD_WINDOWS.claimMs + 1);
		expect(decideClaim([stale, row(8, 'running')], 8, NOW)).toEqual({
			state: 'claimed',
			lapsedClaimAt: stale.stateAt,
		});
		const live = row(3, 'running', DEFAULT_RECORD_WINDOWS.claimMs - 1000);
		expect(decideClaim([live, row(8, 'running')], 8, NOW).state).toBe('running');
	});

	test('our own row is missing (released meanwhile): lost, claim again', () => {
		expect(decideClaim([row(3, 'running')], 8, NOW)).toEqual({ state: 'lost' });
		expect(decideClaim([], 8, NOW)).toEqual({ state: 'lost' });
	});
});

describe('the latest done row', () => {
	test('picks the latest done row within the retention', () => {
		const rows = [row(1, 'done', 5000, 'a'), row(2, 'done', 1000, 'b'), row(3, 'running')];
		expect(decideRead(rows, NOW)).toEqual({ state: 'done', at: NOW - 1000, detail: 'b' });
		expect(decideRead([row(3, 'running')], NOW)).toEqual({ state: 'running', since: NOW });
	});
});

describe('rowsOf', () => {
	test('reads a page of the public API or a bare array, skipping what is not a row', () => {
		const page = {
			data: [
				{ id: 1, scope: 's', recordKey: 'k', state: 'running', stateAt: NOW, detail: null },
				{ id: 'x', state: 'running', stateAt: NOW },
				{ id: 2, state: 'other', stateAt: NOW },
				null,
				{ id: '3', scope: 's', recordKey: 'k', state: 'done', stateAt: String(NOW), detail: 'd' },
			],
			nextCursor: null,
		};
		expect(rowsOf(page)).toEqual([
			{ id: 1, scope: 's', recordKey: 'k', state: 'running', stateAt: NOW, detail: '' },
			{ id: 3, scope: 's', recordKey: 'k', state: 'done', stateAt: NOW, detail: 'd' },
		]);
		expect(rowsOf([])).toEqual([]);
		expect(rowsOf('nonsense')).toEqual([]);
		expect(rowsOf(undefined)).toEqual([]);
	});
});

describe('filters', () => {
	test('one piece of work is one record key: scope and key together', () => {
		expect(recordKeyOf('writeBack:hook', 'key-1')).toBe('writeBack:hook|key-1');
		expect(
			filterOf([
				['recordKey', 'eq', 's|k'],
				['detail', 'eq', 'claim:1'],
			]),
		).toEqual({
			type: 'and',
			filters: [
				{ columnName: 'recordKey', condition: 'eq', value: 's|k' },
				{ columnName: 'detail', condition: 'eq', value: 'claim:1' },
			],
		});
	});

	test('a batch reads or deletes any of its keys or ids', () => {
		expect(anyOf('recordKey', ['a|1', 'a|2'])).toEqual({
			type: 'or',
			filters: [
				{ columnName: 'recordKey', condition: 'eq', value: 'a|1' },
				{ columnName: 'recordKey', condition: 'eq', value: 'a|2' },
			],
		});
		expect(anyOf('id', [4, 9]).filters.map((f) => f.value)).toEqual([4, 9]);
	});
});

describe('a read without a claim row of its own', () => {
	test('done within the retention wins; else the oldest live claim holds the key; else free', () => {
		expect(decideRead([row(3, 'running'), row(2, 'done', 1000, 'd')], NOW)).toEqual({
			state: 'done',
			at: NOW - 1000,
			detail: 'd',
		});
		expect(decideRead([row(5, 'running', 1000), row(4, 'running', 2000)], NOW)).toEqual({
			state: 'running',
			since: NOW - 2000,
		});
		expect(decideRead([], NOW)).toEqual({ state: 'free' });
	});

	test('a claim older than the claim window (its process died) and an expired done row leave the key free', () => {
		const stale = row(1, 'running', DEFAULT_RECORD_WINDOWS.claimMs + 1);
		const expired = row(2, 'done', DEFAULT_RECORD_WINDOWS.retentionMs + 1);
		expect(decideRead([stale, expired], NOW)).toEqual({ state: 'free' });
	});
});

describe('ownClaimRows', () => {
	const withDetail = (id: number, detail: string): RecordRow => ({ ...row(id, 'running'), detail });

	test('the inserted row is the claim when no other row has its token', () => {
		const rows = [withDetail(3, 'claim:b'), withDetail(5, 'claim:a')];
		expect(ownClaimRows(rows, 5, 'claim:a')).toEqual({ ownId: 5, otherOwnIds: [], rows });
	});

	test('a row an earlier, lost insert added is the claim; the inserted one is to be deleted', () => {
		const rows = [withDetail(2, 'claim:b'), withDetail(4, 'claim:a'), withDetail(6, 'claim:a')];
		const own = ownClaimRows(rows, 6, 'claim:a');
		expect(own).toEqual({ ownId: 4, otherOwnIds: [6], rows: [rows[0], rows[1]] });
		expect(decideClaim(own.rows, own.ownId, NOW)).toEqual({
			state: 'running',
			since: rows[0].stateAt,
		});
	});

	test('an inserted row the read did not see yet stays the claim (decided as lost)', () => {
		const own = ownClaimRows([withDetail(2, 'claim:b')], 9, 'claim:a');
		expect(own).toEqual({ ownId: 9, otherOwnIds: [], rows: [withDetail(2, 'claim:b')] });
		expect(decideClaim(own.rows, own.ownId, NOW)).toEqual({ state: 'lost' });
	});
});
