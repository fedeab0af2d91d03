import type { IExecuteFunctions, IWebhookFunctions } from 'n8n-workflow';

import { CLAIM_WINDOW_MS, type RunOutcome } from '../helpers/writeBackLedger';

/** What this process keeps per trigger node (workflow and node id), in both phases of a call. */
export const nodeKeyOf = (context: IExecuteFunctions | IWebhookFunctions) =>
	`${context.getWorkflow().id ?? ''}:${context.getNode().id}`;

/**
 * Claims of write back deliveries whose webhook call and run both happen in this n8n process (see
 * ../helpers/receivedHere.ts for when that is). A queue-mode worker claims in n8n's processed_data
 * instead (runPhase.ts). Nothing here has to outlive the process: a run dies with its process, and
 * a delivery answered 2xx is in the ledger in n8n's database.
 */
interface LocalClaim {
	running: boolean;
	since: number;
}

/** Per trigger node, the deliveries running or succeeded within the claim window, oldest first. */
const claimsByNode = new Map<string, Map<string, LocalClaim>>();

const MAX_LOCAL_CLAIMS = 10000;

export type LocalClaimResult = 'claimed' | 'running' | 'succeeded';

function claimsOf(nodeKey: string, now: number): Map<string, LocalClaim> {
	const claims = claimsByNode.get(nodeKey) ?? new Map<string, LocalClaim>();
	claimsByNode.set(nodeKey, claims);
	for (const [fingerprint, claim] of claims) {
		if (claim.since > now - CLAIM_WINDOW_MS && claims.size <= MAX_LOCAL_CLAIMS) break;
		claims.delete(fingerprint);
	}
	return claims;
}

/**
 * Claims a delivery for this run. Like a claim in processed_data, it lapses after the claim window,
 * so that a run that never ends blocks redeliveries for no longer than in queue mode.
 */
export function claimLocally(nodeKey: string, fingerprint: string, now: number): LocalClaimResult {
	const claims = claimsOf(nodeKey, now);
	const claim = claims.get(fingerprint);
	if (claim !== undefined) return claim.running ? 'running' : 'succeeded';
	claims.set(fingerprint, { running: true, since: now });
	return 'claimed';
}

/**
 * Ends a claim with its run: a succeeded delivery stays known for the claim window (until then
 * its record in the ledger may still be on its way to the database); any other is released, so
 * that the service's redelivery runs.
 */
export function endLocalClaim(
	nodeKey: string,
	fingerprint: string,
	outcome: RunOutcome,
	now: number,
): void {
	const claims = claimsOf(nodeKey, now);
	claims.delete(fingerprint);
	if (outcome === 'succeeded') claims.set(fingerprint, { running: false, since: now });
}
