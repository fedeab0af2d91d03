/** Another process of the project that reserves ports for local n8n processes and keeps them. */
const { spawn } = require('node:child_process');
const { once } = require('node:events');
const fs = require('node:fs');

const RUNTIME_MODULE = require.resolve('../../scripts/lib/n8n-runtime');
const { reservationFileOf } = require(RUNTIME_MODULE);

/** Starts a process that reserves `count` ports; resolves with them and `end()`, which stops it. */
async function otherProcessReserving(count) {
	const program = `const rt = require(${JSON.stringify(RUNTIME_MODULE)});
		(async () => {
			const ports = [];
			for (let i = 0; i < ${count}; i++) ports.push(await rt.getFreePort());
			process.stdout.write(JSON.stringify(ports) + '\\n');
			process.stdin.resume();
			process.stdin.on('end', () => process.exit(0));
		})();`;
	const child = spawn(process.execPath, ['-e', program], { stdio: ['pipe', 'pipe', 'inherit'] });
	let output = '';
	child.stdout.setEncoding('utf8');
	while (!output.includes('\n')) {
		const [chunk] = await once(child.stdout, 'data');
		output += chunk;
	}
	const end = async () => {
		child.stdin.end();
		if (child.exitCode === null) await once(child, 'exit');
	};
	return { ports: JSON.parse(output), end };
}

/**
 * Leaves the reservation file of `port` empty, as another process does between creating it and
 * writing its pid; `release()` removes it.
 */
function reservationBeingWritten(port) {
	const file = reservationFileOf(port);
	fs.writeFileSync(file, '');
	return { release: () => fs.rmSync(file, { force: true }) };
}

/** Whether a reservation file of `port` is left in the temp folder. */
const reservationLeft = (port) => fs.existsSync(reservationFileOf(port));

module.exports = { otherProcessReserving, reservationBeingWritten, reservationLeft };
