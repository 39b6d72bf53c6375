// Where the built wasm module is: $LAYA_CORE_JS, else dist/wasm/laya-core.js (npm run build:wasm).
// Integration suites run only when it exists; under CI (CI=true) a missing module is a failure,
// so a broken build can never pass as "skipped".
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { kRepoRoot } from './fixtures.js';

export const kCoreJs = resolve(process.env['LAYA_CORE_JS'] ?? join(kRepoRoot, 'dist', 'wasm', 'laya-core.js'));
export const kHaveCore = existsSync(kCoreJs);

if (!kHaveCore) {
  if (process.env['CI'] === 'true') throw new Error(`the wasm module ${kCoreJs} is missing: build it before the tests`);
  console.warn(`integration tests skipped: ${kCoreJs} is missing (npm run build:wasm, or set LAYA_CORE_JS)`);
}

/** describe() when the module exists, describe.skip() otherwise. */
export const describeWithCore: jest.Describe = kHaveCore ? describe : describe.skip;

/** Load options that use the built module. */
export const kWasm = { moduleUrl: kCoreJs };
