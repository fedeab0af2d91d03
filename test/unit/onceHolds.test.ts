import { DEFAULT_RECORD_WINDOWS } from '../../nodes/shared/once/rows';
import { holdHere, releaseHold } from '../../nodes/shared/once/strategies';

const work = (key: string) => ({ scope: 's', key });

describe('holds: the work this n8n process is handling now', () => {
	it('holds a key for one delivery at a time until released', () => {
		const h1 = holdHere(work('h1'), 0);
		expect(h1).toBeDefined();
		expect(holdHere(work('h1'), 1000)).toBeUndefined();
		expect(holdHere(work('h2'), 1000)).toBeDefined();
		releaseHold(h1);
		expect(holdHere(work('h1'), 2000)).toBeDefined();
	});

	it('lets a hold lapse after the claim window, like a claim row of a process that died', () => {
		expect(holdHere(work('h3'), 10_000)).toBeDefined();
		expect(holdHere(work('h3'), 10_000 + DEFAULT_RECORD_WINDOWS.claimMs - 1)).toBeUndefined();
		expect(holdHere(work('h3'), 10_000 + DEFAULT_RECORD_WINDOWS.claimMs + 1)).toBeDefined();
	});

	it('a lapsed hold released late leaves the hold of the call that took the work since', () => {
		const lapsed = holdHere(work('h4'), 2_000_000);
		const since = 2_000_000 + DEFAULT_RECORD_WINDOWS.claimMs + 1;
		expect(holdHere(work('h4'), since)).toBeDefined();
		releaseHold(lapsed);
		expect(holdHere(work('h4'), since + 1000)).toBeUndefined();
	});
});
