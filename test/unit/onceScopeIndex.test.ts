import { MAX_RECORD_RETENTION_MS, type RecordRow } from '../../nodes/shared/once/rows';
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
	index.loaded = true;
	return index;
}

describe('ScopeIndex', () => {
	test('knows no key to be free until every page is loaded', () => {
		const index = new ScopeIndex('writeBack:hook', NOW);
		index.addRead([row(1, 'done', NOW - 1000)]);
		expect(index.hasNoRows('writeBack:hook|other', NOW)).toBe(false);
		index.loaded = true;
		expect(index.hasNoRows('writeBack:hook|other', NOW)).toBe(true);
		expect(index.hasNoRows(KEY, NOW)).toBe(false);
		expect(index.keys).toBe(1);
	});

	test('a key with any row, done or running, is not free: it is read from the record', () => {
		const index = loadedIndex([row(4, 'running', NOW - 60_000, 'writeBack:hook|running')]);
		index.addRead([row(5, 'done', NOW - 10)]);
		expect(index.hasNoRows('writeBack:hook|running', NOW)).toBe(false);
		expect(index.hasNoRows(KEY, NOW)).toBe(false);
	});

	test("this process's inserts count at once, also while the index loads", () => {
		const index = new ScopeIndex('writeBack:hook', NOW);
		index.add([row(7, 'done', NOW)]);
		index.addRead([row(3, 'done', NOW - 10, 'writeBack:hook|old')]);
		index.loaded = true;
		expect(index.hasNoRows(KEY, NOW)).toBe(false);
		expect(index.hasNoRows('writeBack:hook|old', NOW)).toBe(false);
	});

	test('an insert does not move readThroughId: rows others added below it come with the next read', () => {
		const index = loadedIndex([row(1, 'done', NOW - 10, 'writeBack:hook|old')]);
		index.add([row(20, 'done', NOW, 'writeBack:hook|mine')]);
		expect(index.readThroughId).toBe(1);
		index.addRead([row(12, 'done', NOW)]);
		expect(index.readThroughId).toBe(12);
		expect(index.hasNoRows(KEY, NOW)).toBe(false);
	});

	test('rows of another scope are not kept, read or inserted', () => {
		const index = loadedIndex([{ ...row(1, 'done', NOW), scope: 'send:wf' }]);
		index.add([{ ...row(2, 'done', NOW), scope: 'send:wf' }]);
		expect(index.keys).toBe(0);
		expect(index.hasNoRows(KEY, NOW)).toBe(true);
	});

	test('keys whose rows are all past the longest retention are forgotten as the record prunes them', () => {
		const index = loadedIndex([
			row(1, 'done', NOW - MAX_RECORD_RETENTION_MS + 1000),
			row(2, 'running', NOW - MAX_RECORD_RETENTION_MS - 1000, 'writeBack:hook|renewed'),
			row(3, 'done', NOW, 'writeBack:hook|renewed'),
		]);
		expect(index.keys).toBe(2);
		expect(index.hasNoRows(KEY, NOW + SWEEP_EVERY_MS - 1)).toBe(false);
		expect(index.hasNoRows(KEY, NOW + SWEEP_EVERY_MS)).toBe(true);
		expect(index.hasNoRows('writeBack:hook|renewed', NOW + SWEEP_EVERY_MS)).toBe(false);
		expect(index.keys).toBe(1);
	});
});
