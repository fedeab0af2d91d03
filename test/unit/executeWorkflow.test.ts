import { executeWorkflow, n8nCli } from '../../scripts/lib/n8n-runtime';
import { instanceWhoseCliEnds } from './fakeN8nCli';

const execute = async (ending: string) =>
	await executeWorkflow(instanceWhoseCliEnds(ending), 'wf1');

describe('a workflow executed with the n8n CLI', () => {
	it('counts a run n8n printed as finished, also when n8n then died while exiting', async () => {
		const clean = await execute('finished');
		expect(clean).toMatchObject({ ok: true, code: 0, crashedOnExit: null });
		expect(clean.output('Start')).toEqual([{ ok: 1 }]);

		const crashed = await execute('finishedThenCrash');
		expect(crashed).toMatchObject({ ok: true, crashedOnExit: 'SIGSEGV' });
		expect(crashed.output('Start')).toEqual([{ ok: 1 }]);
	});

	it('fails a run n8n did not finish, or that failed, however n8n ended', async () => {
		for (const ending of ['crashMidRun', 'failedThenCrash', 'failed']) {
			const result = await execute(ending);
			expect({ ending, ok: result.ok, crashedOnExit: result.crashedOnExit }).toEqual({
				ending,
				ok: false,
				crashedOnExit: null,
			});
		}
	});
});

describe('an import with the n8n CLI', () => {
	it('counts an import n8n printed as done, also when n8n then died while exiting; not one it did not finish', async () => {
		const imported = await n8nCli(instanceWhoseCliEnds('importedThenCrash'), ['import:workflow']);
		expect(imported).toMatchObject({ signal: 'SIGSEGV' });
		await expect(
			n8nCli(instanceWhoseCliEnds('crashMidImport'), ['import:workflow']),
		).rejects.toThrow(/import:workflow exited with SIGSEGV/);
	});
});
