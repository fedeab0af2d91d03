import {
	DEFAULT_RECORD_WINDOWS,
	MAX_RECORD_RETENTION_MS,
	type RecordRow,
} from '../../nodes/shared/once/rows';
import { SWEEP_EVERY_MS, ScopeIndex } from '../../nodes/shared/once/scopeIndex';

const NOW = Date.UTC(2026, 10, 25, 12);
const KEY = 'writeBack:hook|key-1';
const row = (
	id: number,
	state: RecordRow['state'],
	stateAt: number,
	recordKey = KEY,
): RecordRow => ({
	id,
	scope: 'writeBack:hook',
	recordKey,
	state,
	stateAt,
	detail: '',
});

function loadedIndex(rows: RecordRow[] = []): ScopeIndex {
	const index = new ScopeIndex('writeBack:hook', NOW);
	index.addRead(rows);
	index.finishLoading();
	return index;
}

describe('ScopeIndex', () => {
	test('answers nothing until every page is loaded, then what a read of the rows would', () => {
		const index = new ScopeIndex('writeBack:hook', NOW);
		index.addRead([row(1, 'done', NOW - 1000)]);
		expect(index.decide(KEY, NOW)).toBeUndefined();
		index.finishLoading();
		expect(index.decide(KEY, NOW)).toEqual({ state: 'done', at: NOW - 1000, detail: '' });
		expect(index.decide('writeBack:hook|other', NOW)).toEqual({ state: 'free' });
		expect(index.doneKeys).toBe(1);
	});

	test('a done row counts for the retention and no longer', () => {
		const index = loadedIndex([row(1, 'done', NOW - DEFAULT_RECORD_WINDOWS.retentionMs + 1)]);
		expect(index.decide(KEY, NOW)?.state).toBe('done');
		expect(index.decide(KEY, NOW + 2)).toEqual({ state: 'free' });
	});

	test('a live running row (e.g. from before a restart) holds the key for the claim window', () => {
		const index = loadedIndex([row(4, 'running', NOW - 60_000)]);
		expect(index.decide(KEY, NOW)).toEqual({ state: 'running', since: NOW - 60_000 });
		expect(index.decide(KEY, NOW - 60_000 + DEFAULT_RECORD_WINDOWS.claimMs + 1)).toEqual({
			state: 'free',
		});
	});

	test("this process's inserts, updates and deletes count at once", () => {
		const index = loadedIndex();
		index.inserted(row(7, 'running', NOW));
		expect(index.decide(KEY, NOW)?.state).toBe('running');
		index.deleted([7]);
		expect(index.decide(KEY, NOW)).toEqual({ state: 'free' });
		index.inserted(row(8, 'running', NOW));
		index.updated([row(8, 'done', NOW + 5)]);
		expect(index.decide(KEY, NOW + 5)).toEqual({ state: 'done', at: NOW + 5, detail: '' });
	});

	test('the latest done row of a key wins, whatever order the rows come in', () => {
		const index = loadedIndex([row(2, 'done', NOW - 10)]);
		index.addRead([row(1, 'done', NOW - 500)]);
		expect(index.decide(KEY, NOW)).toEqual({ state: 'done', at: NOW - 10, detail: '' });
	});

	test('a page read before this process changed a row does not bring the old row back', () => {
		const index = new ScopeIndex('writeBack:hook', NOW);
		index.inserted(row(3, 'running', NOW));
		index.updated([row(3, 'done', NOW + 1)]);
		index.inserted(row(5, 'running', NOW, 'writeBack:hook|key-5'));
		index.deleted([5]);
		// The page was read before both changes.
		index.addRead([row(3, 'running', NOW), row(5, 'running', NOW, 'writeBack:hook|key-5')]);
		index.finishLoading();
		expect(index.decide(KEY, NOW + 1)?.state).toBe('done');
		expect(index.decide('writeBack:hook|key-5', NOW + 1)).toEqual({ state: 'free' });
	});

	test('a running row read while loading and turned done after it is done', () => {
		const index = new ScopeIndex('writeBack:hook', NOW);
		index.addRead([row(6, 'running', NOW)]);
		index.updated([row(6, 'done', NOW + 1)]);
		index.finishLoading();
		expect(index.decide(KEY, NOW + 1)?.state).toBe('done');
	});

	test('rows added by others since the last read come with the next read after readThroughId', () => {
		const index = loadedIndex([row(1, 'done', NOW - 10, 'writeBack:hook|old')]);
		expect(index.readThroughId).toBe(1);
		expect(index.decide(KEY, NOW)).toEqual({ state: 'free' });
		index.addRead([row(12, 'done', NOW)]);
		expect(index.readThroughId).toBe(12);
		expect(index.decide(KEY, NOW)?.state).toBe('done');
	});

	test('rows of another scope are not kept', () => {
		const index = loadedIndex();
		index.inserted({ ...row(2, 'done', NOW), scope: 'send:wf' });
		expect(index.doneKeys).toBe(0);
	});

	test("an index whose scope gets no work keeps no more than 10,000 ids of other scopes' rows this process writes", () => {
		const index = loadedIndex();
		const other = (id: number): RecordRow => ({
			...row(id, 'running', NOW, `send:wf|m${id}`),
			scope: 'send:wf',
		});
		// A campaign beside an idle trigger: each message's claim inserted, then turned done, gaps
		// between them (rows of another process).
		for (let id = 2; id < 60_000; id += 2) {
			index.inserted(other(id));
			index.updated([{ ...other(id), state: 'done' }]);
			index.deleted([id]);
		}
		const held = index as unknown as { insertedAhead: Set<number>; changedAhead: Set<number> };
		expect(held.insertedAhead.size).toBeLessThanOrEqual(10_000);
		expect(held.changedAhead.size).toBe(0);
		expect(index.decide(KEY, NOW)).toEqual({ state: 'free' });
	});

	test('rows past the longest retention are dropped as the record prunes them', () => {
		const index = loadedIndex([
			row(1, 'done', NOW - MAX_RECORD_RETENTION_MS + 1000),
			row(2, 'done', NOW, 'writeBack:hook|fresh'),
		]);
		expect(index.doneKeys).toBe(2);
		index.decide(KEY, NOW + SWEEP_EVERY_MS);
		expect(index.doneKeys).toBe(1);
		expect(index.decide('writeBack:hook|fresh', NOW + SWEEP_EVERY_MS)?.state).toBe('done');
	});

	test("a key's rows read again replace what the index held: a done row deleted by hand makes the key free", () => {
		const index = loadedIndex([row(1, 'done', NOW - 10), row(2, 'running', NOW - 5)]);
		const readStart = index.readStarts();
		index.replaceKey(KEY, [], readStart);
		expect(index.decide(KEY, NOW)).toEqual({ state: 'free' });
		expect(index.doneKeys).toBe(0);
	});

	test('a read of a key does not drop what this process wrote while the read was in flight', () => {
		const index = loadedIndex();
		const readStart = index.readStarts();
		index.inserted(row(3, 'done', NOW));
		index.inserted(row(4, 'running', NOW, 'writeBack:hook|key-4'));
		index.replaceKey(KEY, [], readStart);
		index.replaceKey('writeBack:hook|key-4', [], readStart);
		expect(index.decide(KEY, NOW)?.state).toBe('done');
		expect(index.decide('writeBack:hook|key-4', NOW)?.state).toBe('running');
	});

	test("a read of a key adds the rows it found and leaves other keys' rows alone", () => {
		const index = loadedIndex([row(1, 'done', NOW - 10, 'writeBack:hook|other')]);
		index.replaceKey(
			KEY,
			[row(9, 'done', NOW - 1), row(5, 'done', NOW, 'writeBack:hook|x')],
			index.readStarts(),
		);
		expect(index.decide(KEY, NOW)?.state).toBe('done');
		expect(index.decide('writeBack:hook|other', NOW)?.state).toBe('done');
		expect(index.decide('writeBack:hook|x', NOW)).toEqual({ state: 'free' });
	});

	test('rows this process inserted right after the last read count as read; a row of anyone else between them stops that', () => {
		const index = loadedIndex([row(10, 'done', NOW - 10, 'writeBack:hook|old')]);
		index.inserted(row(11, 'done', NOW));
		index.inserted({ ...row(12, 'done', NOW, 'send:wf|m'), scope: 'send:wf' });
		index.inserted(row(13, 'done', NOW, 'writeBack:hook|k13'));
		expect(index.readThroughId).toBe(13);
		index.inserted(row(15, 'done', NOW, 'writeBack:hook|k15'));
		expect(index.readThroughId).toBe(13);
		index.addRead([
			row(14, 'done', NOW, 'writeBack:hook|by-hand'),
			row(15, 'done', NOW, 'writeBack:hook|k15'),
		]);
		expect(index.readThroughId).toBe(15);
		expect(index.decide('writeBack:hook|by-hand', NOW)?.state).toBe('done');
	});
});
