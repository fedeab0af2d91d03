import { holdHere, releaseHold } from '../../nodes/shared/once/holds';
import {
	markReceivedHere,
	productionRunWasReceivedHere,
	productionRunsStayInThisProcess,
} from '../../nodes/shared/once/receivedHere';
import { DEFAULT_RECORD_WINDOWS } from '../../nodes/shared/once/rows';

describe('where production runs stay (one n8n process) and holds of this process', () => {
	it('knows only the item its own webhook call made, not a copy (what a queue-mode worker gets)', () => {
		const item = { idempotencyKey: 'k1' };
		markReceivedHere(item);
		expect(productionRunWasReceivedHere(JSON.parse(JSON.stringify(item)) as object)).toBe(false);
		expect(productionRunsStayInThisProcess()).toBe(false);
	});

	it('learns that runs stay here only from a run whose input is the item its own call made', () => {
		const copy = JSON.parse(JSON.stringify({ idempotencyKey: 'k9' })) as object;
		expect(productionRunWasReceivedHere(copy)).toBe(false);
		expect(productionRunsStayInThisProcess()).toBe(false);
		const item = { idempotencyKey: 'k9' };
		markReceivedHere(item);
		expect(productionRunWasReceivedHere(item)).toBe(true);
		expect(productionRunsStayInThisProcess()).toBe(true);
	});

	it('holds a key for one delivery at a time until released', () => {
		expect(holdHere('s|h1', 0)).toBe(true);
		expect(holdHere('s|h1', 1000)).toBe(false);
		expect(holdHere('s|h2', 1000)).toBe(true);
		releaseHold('s|h1');
		expect(holdHere('s|h1', 2000)).toBe(true);
	});

	it('lets a hold lapse after the claim window, like a claim row of a process that died', () => {
		expect(holdHere('s|h3', 10_000)).toBe(true);
		expect(holdHere('s|h3', 10_000 + DEFAULT_RECORD_WINDOWS.claimMs - 1)).toBe(false);
		expect(holdHere('s|h3', 10_000 + DEFAULT_RECORD_WINDOWS.claimMs + 1)).toBe(true);
	});
});
