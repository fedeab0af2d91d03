/* eslint-disable @typescript-eslint/no-explicit-any, @n8n/community-nodes/no-restricted-imports -- benchmarks run in jest on a developer machine, never inside n8n; the plain JavaScript libraries they use are untyped */
/**
 * What the benchmarks on the local stack share (scripts/lib/local-setup: one n8n with this package
 * installed from its build, and the simulator): the plain JavaScript libraries, untyped, and the
 * stack started for a suite.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

import * as runtimeModule from '../scripts/lib/n8n-runtime';
import * as localModule from '../scripts/lib/local-setup';
import * as helpersModule from '../test/e2e/helpers';

export type Json = Record<string, any>;
export const rt: Json = runtimeModule;
export const local: Json = localModule;
/** The e2e suites' helpers (signed posts, write back payloads, fixtures, waiting). */
export const e2e: Json = helpersModule;

export interface SuiteStack {
	/** n8n's user folder: .n8n-local/<folder>, emptied before the start. */
	userFolder: string;
	/** The started stack (local.startStack), from the suite's first beforeAll on. */
	stack: Json;
}

/**
 * Starts the local stack before the suite's tests (n8n and the simulator on free ports, quiet,
 * `options` passed on to local.startStack) and stops it after them. Call it in the describe block;
 * a beforeAll declared after it sees the stack started.
 */
export function stackForSuite(folder: string, options: Json = {}): SuiteStack {
	const suite: SuiteStack = {
		userFolder: path.join(rt.REPO_ROOT, '.n8n-local', folder),
		stack: {},
	};
	let started = false;
	beforeAll(async () => {
		fs.rmSync(suite.userFolder, { recursive: true, force: true });
		suite.stack = await local.startStack({
			userFolder: suite.userFolder,
			n8nPort: 0,
			simulatorPort: 0,
			log: () => {},
			...options,
		});
		started = true;
	}, 900_000);
	afterAll(async () => {
		if (started) await suite.stack.stop();
	}, 120_000);
	return suite;
}
