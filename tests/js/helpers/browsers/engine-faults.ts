// A test in an engine with a known wasm fault of its own (BrowserEngine.knownWasmFault: WebKitGTK's
// JavaScriptCore, docs/engine-faults.md) runs once more, from the start, when it fails with that
// fault, after printing the fault and its stack; a second fault, or any other failure, fails it. The
// fault is the engine's: the same module traps in a different function each time, a few times in
// thousands of fresh modules, also in the engine's own jsc shell with no browser and no package code
// but the glue around it, and was not seen in V8, SpiderMonkey or the native build under the
// sanitizers. A real out-of-bounds bug would fail the same way: a pass on the retry is recorded
// (fault-retries.mjs) and counted at the end of the run, which fails with more than one.
import { relative } from 'node:path';
import type { BrowserEngine } from './engines.mjs';
import { recordPassOnRetry } from './fault-retries.mjs';

/** jest.config.js testTimeout: a retried test gets twice its timeout. */
const kJestTestTimeoutMs = 30_000;

type TestFn = (...args: never[]) => unknown;
type Declare = (title: string, fn: TestFn, timeout?: number) => unknown;

/** `fn`, run once more when it fails with the engine's known fault. */
export function retriedOnEngineFault(engine: BrowserEngine, title: string, fn: TestFn): TestFn {
  const fault = engine.knownWasmFault;
  if (fault === undefined) return fn;
  return async (...args: never[]) => {
    try {
      return await fn(...args);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (!fault.pattern.test(message)) throw error;
      process.stderr.write(`\n  ${engine.label}: "${title}" failed with ${fault.about}; running it once more. The fault:\n` +
        `${error instanceof Error ? error.stack : message}\n`);
      const value = await fn(...args);
      const state = expect.getState();
      recordPassOnRetry({
        test: state.currentTestName ?? title,
        file: state.testPath === undefined ? '' : relative(process.cwd(), state.testPath),
        fault: message.split('\n')[0] ?? message,
      });
      return value;
    }
  };
}

/**
 * Runs `declare` (a describe body) with Jest's test() and it() (and their .each) wrapped so that
 * every test it declares is retriedOnEngineFault, with twice its timeout. Engines with no known
 * fault get Jest's own.
 */
export function declaringTestsIn(engine: BrowserEngine, declare: () => void): void {
  if (engine.knownWasmFault === undefined) {
    declare();
    return;
  }
  const globals = globalThis as unknown as Record<'test' | 'it', Declare & { each: (...table: unknown[]) => Declare }>;
  const originals = { test: globals.test, it: globals.it };
  const wrap = (original: typeof globals.test): typeof globals.test => {
    const doubled = (timeout?: number): number => 2 * (timeout ?? kJestTestTimeoutMs);
    const wrapped: Declare = (title, fn, timeout) => original(title, retriedOnEngineFault(engine, title, fn), doubled(timeout));
    const each = (...table: unknown[]): Declare => (title, fn, timeout) =>
      original.each(...table)(title, retriedOnEngineFault(engine, title, fn), doubled(timeout));
    return Object.assign(wrapped, original, { each });
  };
  globals.test = wrap(originals.test);
  globals.it = wrap(originals.it);
  try {
    declare();
  } finally {
    globals.test = originals.test;
    globals.it = originals.it;
  }
}
