// Where the built wasm module is: $LAYA_CORE_JS, else dist/wasm/laya-core.js (npm run build). Suites
// that need it run inside describeWithCore; without the module each of their tests fails saying to
// build it, so a missing or broken build can never pass as "skipped" (npm test builds first).
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { kRepoRoot } from './fixtures.js';

export const kCoreJs = resolve(process.env['LAYA_CORE_JS'] ?? join(kRepoRoot, 'dist', 'wasm', 'laya-core.js'));

/** The error a suite fails with when `path`, a build output, is missing. */
export function missingBuild(path: string): Error {
  return new Error(`${path} is missing: run npm run build first`);
}

/** describe() for suites that use the built module: every test in it fails if the module is missing. */
export function describeWithCore(name: string, body: () => void): void {
  describe(name, () => {
    beforeAll(() => {
      if (!existsSync(kCoreJs)) throw new Error(`${missingBuild(kCoreJs).message} (or set LAYA_CORE_JS to a built laya-core.js)`);
    });
    body();
  });
}

/** Load options that use the built module. */
export const kWasm = { moduleUrl: kCoreJs };
