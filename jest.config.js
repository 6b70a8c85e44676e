// One jest run for the whole workspace. Integration and e2e specs share the throwaway
// Postgres and NATS that globalSetup starts (or FLEX_TEST_DATABASE_URL / FLEX_TEST_NATS_URL).
const swc = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true },
    target: 'es2022',
    keepClassNames: true,
  },
  module: { type: 'commonjs' },
  sourceMaps: 'inline',
};

module.exports = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['@swc/jest', swc] },
  moduleNameMapper: {
    '^@flex/(gateway|registry|planner|validator|executor)$': '<rootDir>/services/$1/src',
    '^@flex/agents-reference$': '<rootDir>/agents/reference/src',
    '^@flex/(.*)$': '<rootDir>/libs/$1/src',
  },
  testMatch: ['<rootDir>/{libs,services,agents,apps}/*/src/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  globalSetup: '<rootDir>/libs/testing/src/global-setup.ts',
  globalTeardown: '<rootDir>/libs/testing/src/global-teardown.ts',
  // Longest suites first (by jest's cache, else test/suite-durations.json): the workers end together.
  testSequencer: '<rootDir>/test/sequencer.js',
  testTimeout: 60000,
  maxWorkers: 2,
};
