import { fmt, pct, type Figure } from './results';

/** What both Send Once benchmarks compare: Send Once Off against Same Message Once. */
export type SendOnceMode = 'off' | 'message';

export interface SendOnceRound {
	mode: SendOnceMode;
	/** Accepted sends over the campaign, as a share of the limit. */
	share: number;
	makespanMs: number;
	/** Contacts the service accepted a message for more than once, and never. */
	twice: number;
	lost: number;
}

/** Rate and share of the limit, makespans and their ratio, contacts messaged twice or never. */
export function sideBySideFigures(rounds: SendOnceRound[], limitPerSecond: number): Figure[] {
	const of = (mode: SendOnceMode) => rounds.filter((round) => round.mode === mode);
	const rate = (r: SendOnceRound) => `${fmt(r.share * limitPerSecond, 1)}/s (${pct(r.share)})`;
	const ratios = of('message').map((on, i) => on.makespanMs / of('off')[i].makespanMs);
	return [
		{
			name: 'Send Once off: accepted sends per second, share of the limit',
			value: of('off').map(rate).join(', '),
		},
		{
			name: 'Same Message Once: accepted sends per second, share of the limit',
			value: of('message').map(rate).join(', '),
			target: '≥ 95 % of the limit',
			met: of('message').every((r) => r.share >= 0.95),
		},
		{
			name: 'Makespan, Send Once off / Same Message Once',
			value: of('off')
				.map(
					(off, i) =>
						`${fmt(off.makespanMs / 1000, 1)} s / ${fmt(of('message')[i].makespanMs / 1000, 1)} s`,
				)
				.join(', '),
		},
		{
			name: 'Makespan ratio, Same Message Once / off',
			value: ratios.map((ratio) => fmt(ratio, 2)).join(', '),
			target: '≤ 1.10',
			met: ratios.length > 0 && Math.max(...ratios) <= 1.1,
		},
		{
			name: 'Contacts messaged twice / never',
			value: rounds.map((r) => `${r.twice} / ${r.lost}`).join(', '),
			target: '0 / 0',
			met: rounds.every((r) => r.twice === 0 && r.lost === 0),
		},
	];
}
