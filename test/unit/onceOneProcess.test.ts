import { claimLocally, endLocalClaim } from '../../nodes/ContactCenterTrigger/v2/localClaims';
import {
	markReceivedHere,
	productionRunWasReceivedHere,
	productionRunsStayInThisProcess,
	wasReceivedHere,
} from '../../nodes/ContactCenterTrigger/helpers/receivedHere';
import { holdHere, releaseHold } from '../../nodes/ContactCenterTrigger/v3/localHolds';
import { DEFAULT_RECORD_WINDOWS } from '../../nodes/shared/record/rows';
import { CLAIM_WINDOW_MS } from '../../nodes/ContactCenterTrigger/helpers/writeBackLedger';

let node = 0;
let nodeKey: string;
beforeEach(() => {
	nodeKey = `workflow:node-${++node}`;
});

describe('claims of deliveries received and run by this process', () => {
	it('knows only the item its own webhook call made, not a copy (what a queue-mode worker gets)', () => {
		const item = { idempotencyKey: 'k1' };
		markReceivedHere(item);
		expect(wasReceivedHere(item)).toBe(true);
		expect(wasReceivedHere(JSON.parse(JSON.stringify(item)) as object)).toBe(false);
	});

	it('lets one run claim a delivery; a duplicate meanwhile finds it running', () => {
		expect(claimLocally(nodeKey, 'fp1', 0)).toBe('claimed');
		expect(claimLocally(nodeKey, 'fp1', 1000)).toBe('running');
		expect(claimLocally(nodeKey, 'fp2', 1000)).toBe('claimed');
		expect(claimLocally('another:node', 'fp1', 1000)).toBe('claimed');
	});

	it('remembers a succeeded delivery for the claim window, then forgets it', () => {
		claimLocally(nodeKey, 'fp1', 0);
		endLocalClaim(nodeKey, 'fp1', 'succeeded', 5000);
		expect(claimLocally(nodeKey, 'fp1', 5000 + CLAIM_WINDOW_MS - 1)).toBe('succeeded');
		expect(claimLocally(nodeKey, 'fp1', 5000 + CLAIM_WINDOW_MS)).toBe('claimed');
	});

	it.each(['failed', 'unknown'] as const)(
		'releases a delivery whose run ended %s, so that the redelivery runs',
		(outcome) => {
			claimLocally(nodeKey, 'fp1', 0);
			endLocalClaim(nodeKey, 'fp1', outcome, 10);
			expect(claimLocally(nodeKey, 'fp1', 20)).toBe('claimed');
		},
	);

	it('lets a run that never ended block redeliveries for the claim window only', () => {
		claimLocally(nodeKey, 'fp1', 0);
		expect(claimLocally(nodeKey, 'fp1', CLAIM_WINDOW_MS - 1)).toBe('running');
		expect(claimLocally(nodeKey, 'fp1', CLAIM_WINDOW_MS)).toBe('claimed');
	});

	it('keeps at most 10 000 claims per node, dropping the oldest', () => {
		for (let index = 0; index <= 10000; index++) claimLocally(nodeKey, `fp${index}`, index);
		expect(claimLocally(nodeKey, 'fp0', 10001)).toBe('claimed');
		expect(claimLocally(nodeKey, 'fp10000', 10001)).toBe('running');
	});
});

describe('where production runs stay (one n8n process) and holds of this process (trigger version 3)', () => {
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
