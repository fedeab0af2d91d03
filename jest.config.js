/** Three projects: fast pure-logic tests, node code against the simulator through n8n-core, and a real n8n. */
const tsJest = ['ts-jest', { tsconfig: '<rootDir>/test/tsconfig.json', diagnostics: { warnOnly: false } }];
const project = (name, extra = {}) => ({
  displayName: name,
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': tsJest },
  testMatch: [`<rootDir>/test/${name}/**/*.test.ts`],
  ...extra,
});

module.exports = {
  projects: [
    project('unit'),
    project('integration'),
    project('e2e'),
    // `npm run bench` only: figures printed and written to bench/RESULTS.md, no timing assertions.
    project('bench', { testMatch: ['<rootDir>/bench/**/*.bench.ts'] }),
  ],
};
