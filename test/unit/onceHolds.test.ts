import { DEFAULT_RECORD_WINDOWS } from '../../nodes/shared/once/rows';
import { holdHere, releaseHold } from '../../nodes/shared/once/strategies';

const work = (key: string) => ({ scope: 's', key });

describe('holds: the work this n8n process is handling now', () => {
	it('holds a key for one delivery at a time until released', () => {
		expect(holdHere(work('h1'), 0)).toBe(true);
		expect(holdHere(work('h1'), 1000)).toBe(false);
		expect(holdHere(work('h2'), 1000)).toBe(true);
		releaseHold(work('h1'));
		expect(holdHere(work('h1'), 2000)).toBe(true);
	});

	it('lets a hold lapse after the claim window, like a claim row of a process that died', () => {
		expect(holdHere(work('h3'), 10_000)).toBe(true);
		expect(holdHere(work('h3'), 10_000 + DEFAULT_RECORD_WINDOWS.claimMs - 1)).toBe(false);
		expect(holdHere(work('h3'), 10_000 + DEFAULT_RECORD_WINDOWS.claimMs + 1)).toBe(true);
	});
});
