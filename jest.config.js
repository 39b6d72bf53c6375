// Jest in ESM mode (run with node --experimental-vm-modules, see package.json "test:js"):
// ts-jest compiles the TypeScript sources and tests as ES modules.
export default {
  testEnvironment: 'node',
  roots: ['<rootDir>/tests/js'],
  testMatch: ['**/*.test.ts'],
  extensionsToTreatAsEsm: ['.ts'],
  // Sources import each other with NodeNext's ".js" suffix; map it back to the .ts file.
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }] },
  testTimeout: 30000,
  // Beside Jest's own: counts the browser tests that passed only on a retry after an engine's known
  // wasm fault, and fails the run when more than one did (tests/js/helpers/browsers/fault-retries.mjs).
  reporters: ['default', '<rootDir>/tests/js/helpers/browsers/fault-retries-reporter.mjs'],
};
