import { resetTriggerState } from '../../nodes/ContactCenterTrigger/processState';
import { REPORT_INTERVAL_MS, countRefusal } from '../../nodes/ContactCenterTrigger/reports';
import { storageWarning } from '../../nodes/shared/recordApi/storage';

beforeEach(() => resetTriggerState());

describe('countRefusal: at most one report per cause per trigger node per 5 minutes', () => {
	test('the first refusal is reported at once; those within 5 minutes are counted into the next report', () => {
		const t0 = 1_000_000;
		expect(countRefusal('wf node', 'signatureMismatch', t0)).toEqual({ refused: 1, since: t0 });
		for (let i = 1; i <= 59; i++)
			expect(countRefusal('wf node', 'signatureMismatch', t0 + i * 1000)).toBeUndefined();
		expect(
			countRefusal('wf node', 'signatureMismatch', t0 + REPORT_INTERVAL_MS - 1),
		).toBeUndefined();
		expect(countRefusal('wf node', 'signatureMismatch', t0 + REPORT_INTERVAL_MS)).toEqual({
			refused: 61,
			// The first refusal this report counts: the one at t0 was reported on its own.
			since: t0 + 1000,
		});
		expect(
			countRefusal('wf node', 'signatureMismatch', t0 + REPORT_INTERVAL_MS + 1),
		).toBeUndefined();
	});

	test('10,000 refusals within 10 minutes make 2 reports; other causes and other nodes are reported apart', () => {
		const t0 = 5_000_000;
		let reports = 0;
		for (let i = 0; i < 10_000; i++)
			if (countRefusal('wf a', 'signatureMissing', t0 + i * 60) !== undefined) reports++;
		expect(reports).toBe(2);
		expect(countRefusal('wf a', 'storageFull', t0)).toEqual({ refused: 1, since: t0 });
		expect(countRefusal('wf b', 'signatureMissing', t0)).toEqual({ refused: 1, since: t0 });
	});
});

describe("storageWarning: n8n's warning level", () => {
	const MB = 1024 * 1024;
	test('none below 80 % of the limit; from 80 % on, the used and the maximum size and the fix', () => {
		expect(storageWarning(159.9 * MB, 200 * MB)).toBeUndefined();
		const warning = storageWarning(160 * MB, 200 * MB);
		expect(warning).toMatch(/160\.0 MB of its 200\.0 MB limit used \(80 %\)/);
		expect(warning).toMatch(/N8N_DATA_TABLES_MAX_SIZE_BYTES/);
		expect(warning).toMatch(/Storage Limit \(MB\)/);
	});
});
