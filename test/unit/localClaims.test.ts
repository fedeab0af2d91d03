import {
	claimLocally,
	endLocalClaim,
	markReceivedHere,
	wasReceivedHere,
} from '../../nodes/ContactCenterTrigger/v2/localClaims';
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
