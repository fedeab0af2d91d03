/** Fast pure-logic tests, node code against the simulator through n8n-core, a real n8n, and benchmarks. */
const tsJest = ['ts-jest', { tsconfig: '<rootDir>/test/tsconfig.json', diagnostics: { warnOnly: false } }];
const project = (name, extra = {}) => ({
  displayName: name,
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': tsJest },
  testMatch: [`<rootDir>/test/${name}/**/*.test.ts`],
  // n8n's state folders and the pinned n8n runtimes hold package.json files of their own.
  modulePathIgnorePatterns: ['<rootDir>/.n8n-local/', '<rootDir>/scripts/n8n-runtime/'],
  ...extra,
});

module.exports = {
  // Longest first, also for files without a timing yet (test/sequencer.js).
  testSequencer: '<rootDir>/test/sequencer.js',
  projects: [
    project('unit'),
    project('integration'),
    project('e2e', {
      globalSetup: '<rootDir>/test/e2e/global-setup.js',
      setupFilesAfterEnv: ['<rootDir>/test/e2e/timeout.js'],
    }),
    // The main paths of both nodes (the compat suite, which `e2e` runs too) and the write back
    // guarantee with successful executions not saved, on the oldest n8n the README supports.
    project('e2e-oldest', {
      testMatch: [
        '<rootDir>/test/e2e/contactCenterCompat.e2e.test.ts',
        '<rootDir>/test/e2e/unsavedExecutions.e2e.test.ts',
      ],
      setupFiles: ['<rootDir>/test/e2e/oldest-n8n.js'],
      setupFilesAfterEnv: ['<rootDir>/test/e2e/timeout.js'],
      globalSetup: '<rootDir>/test/e2e/global-setup-oldest.js',
    }),
    // `npm run bench` only: figures printed and written to bench/RESULTS.md, no timing assertions.
    project('bench', { testMatch: ['<rootDir>/bench/**/*.bench.ts'] }),
  ],
};
