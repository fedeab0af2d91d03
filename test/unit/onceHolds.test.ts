import { DEFAULT_RECORD_WINDOWS } from '../../nodes/shared/once/rows';
import {
	claimHold as claimIn,
	releaseHold as releaseIn,
	type Hold,
} from '../../nodes/shared/once/holds';

const holds = new Map<string, Hold>();
const claimHold = (work: { scope: string; key: string }, now: number) => claimIn(holds, work, now);
const releaseHold = (hold: Hold | undefined) => releaseIn(holds, hold);

const work = (key: string) => ({ scope: 's', key });

describe('holds: the work this n8n process is handling now', () => {
	it('holds a key for one delivery at a time until released', () => {
		const h1 = claimHold(work('h1'), 0);
		expect(h1).toBeDefined();
		expect(claimHold(work('h1'), 1000)).toBeUndefined();
		expect(claimHold(work('h2'), 1000)).toBeDefined();
		releaseHold(h1);
		expect(claimHold(work('h1'), 2000)).toBeDefined();
	});

	it('lets a hold lapse after the claim window, like a claim row of a process that died', () => {
		expect(claimHold(work('h3'), 10_000)).toBeDefined();
		expect(claimHold(work('h3'), 10_000 + DEFAULT_RECORD_WINDOWS.claimMs - 1)).toBeUndefined();
		expect(claimHold(work('h3'), 10_000 + DEFAULT_RECORD_WINDOWS.claimMs + 1)).toBeDefined();
	});

	it('a lapsed hold released late leaves the hold of the call that took the work since', () => {
		const lapsed = claimHold(work('h4'), 2_000_000);
		const since = 2_000_000 + DEFAULT_RECORD_WINDOWS.claimMs + 1;
		expect(claimHold(work('h4'), since)).toBeDefined();
		releaseHold(lapsed);
		expect(claimHold(work('h4'), since + 1000)).toBeUndefined();
	});
});
