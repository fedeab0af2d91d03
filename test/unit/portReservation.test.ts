import { getFreePort, reservePort } from '../../scripts/lib/n8n-runtime';
import { otherProcessReserving, reservationBeingWritten, reservationLeft } from './portHolder';

describe('ports picked for local n8n processes', () => {
	it('are never handed to two processes of the project at once, and come back (no file left) when the holder ends', async () => {
		const other = (await otherProcessReserving(40)) as {
			ports: number[];
			end: () => Promise<void>;
		};
		try {
			expect(new Set(other.ports).size).toBe(40);
			for (const port of other.ports) expect(reservePort(port)).toBe(false);

			const mine: number[] = [];
			for (let i = 0; i < 40; i++) mine.push(await getFreePort());
			expect(mine.filter((port) => other.ports.includes(port))).toEqual([]);
			expect(new Set(mine).size).toBe(40);
			for (const port of mine) expect(reservePort(port)).toBe(false);
		} finally {
			await other.end();
		}
		expect(other.ports.filter(reservationLeft)).toEqual([]);
		expect(reservePort(other.ports[0])).toBe(true);
	});

	it('are not taken over while another process is still writing its reservation', async () => {
		const port = await getFreePort();
		const { release } = reservationBeingWritten(port);
		expect(reservePort(port)).toBe(false);
		release();
		expect(reservePort(port)).toBe(true);
	});
});
