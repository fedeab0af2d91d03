/** A stand-in for `n8n execute --rawOutput` and `n8n import:…` that ends the way n8n's CLI was seen to end. */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const finishedRun = {
	data: { resultData: { runData: { Start: [{ data: { main: [[{ json: { ok: 1 } }]] } }] } } },
	status: 'success',
	finished: true,
};
const failedRun = {
	data: { resultData: { runData: {}, error: { message: 'The node failed' } } },
	status: 'error',
	finished: false,
};
const print = (run) =>
	`process.stdout.write(${JSON.stringify(`${JSON.stringify(run, null, 2)}\n`)});`;
const segfault = "process.kill(process.pid, 'SIGSEGV');";

/** What the fake CLI prints and how it ends, by name. */
const ENDINGS = {
	finished: `${print(finishedRun)} process.exit(0);`,
	finishedThenCrash: `${print(finishedRun)} ${segfault}`,
	crashMidRun: `process.stdout.write('{\\n  "data": {\\n'); ${segfault}`,
	failedThenCrash: `${print(failedRun)} ${segfault}`,
	failed: `${print(failedRun)} process.exit(1);`,
	importedThenCrash: `process.stdout.write('Successfully imported 1 workflow.\\n'); ${segfault}`,
	crashMidImport: `process.stdout.write('Importing 1 workflows...\\n'); ${segfault}`,
};

/** An instance for scripts/lib/n8n-runtime.js whose `n8n` ends as ENDINGS[ending] says. */
function instanceWhoseCliEnds(ending) {
	const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'fake-n8n-'));
	const bin = path.join(folder, 'n8n.js');
	fs.writeFileSync(bin, ENDINGS[ending]);
	return {
		runtime: { nodeBin: process.execPath, n8nBin: bin },
		userFolder: folder,
		cliEnv: { PATH: process.env.PATH },
	};
}

module.exports = { instanceWhoseCliEnds };
