'use strict';
/**
 * The order jest starts test files in, longest first, so that no long suite starts last (with
 * three workers on two cores the run lasts at least as long as its latest-ending suite). Jest's own
 * order puts files it has no timing for first and sorts those by size only; here each file counts
 * with the time it took in the last run, and a file without one with an estimate: an end-to-end
 * file 5 minutes (each starts its own n8n; they take 1.5 to 10 minutes), a unit or integration file
 * its size in milliseconds (they take seconds). Files that failed last time still come first.
 */
const Sequencer = require('@jest/test-sequencer').default;

const END_TO_END = new Set(['e2e', 'e2e-oldest']);
const UNTIMED_END_TO_END_MS = 300_000;

class LongestFirst extends Sequencer {
	sort(tests) {
		const estimate = (test) => {
			const known = this.time(test);
			if (known != null) return known;
			const size = test.context.hasteFS.getSize(test.path) ?? 0;
			const project = test.context.config.displayName?.name;
			return END_TO_END.has(project) ? UNTIMED_END_TO_END_MS + size : size;
		};
		const keyed = tests.map((test) => ({
			test,
			failed: this.hasFailed(test),
			ms: estimate(test),
		}));
		keyed.sort((a, b) => (a.failed !== b.failed ? (a.failed ? -1 : 1) : b.ms - a.ms));
		return keyed.map(({ test }) => test);
	}
}

module.exports = LongestFirst;
