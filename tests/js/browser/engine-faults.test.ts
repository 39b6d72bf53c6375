// The retry for an engine's own known wasm fault (helpers/browsers/engine-faults.ts): a test that
// fails with the fault runs once more and says so; a second fault, any other failure, and every
// failure in an engine without a known fault fail the test as they are. A pass on the retry is
// recorded, and the run's reporter (helpers/browsers/fault-retries-reporter.mjs) counts them and
// fails the run when more than one test passed only on a retry.
import { jest } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { declaringTestsIn, retriedOnEngineFault } from '../helpers/browsers/engine-faults.js';
import { engineNamed, type BrowserEngine } from '../helpers/browsers/engines.mjs';
import FaultRetriesReporter from '../helpers/browsers/fault-retries-reporter.mjs';
import { kRetriesFolderVariable, readPassesOnRetry } from '../helpers/browsers/fault-retries.mjs';

const webkitEngine = engineNamed('webkit');

const kFault = 'WebKit: the page threw LayaError: the laya-wasm worker failed: RuntimeError: Out of bounds memory access';

function failingThen(...outcomes: Array<Error | 'passes'>): jest.Mock<() => Promise<string>> {
  const queue = [...outcomes];
  return jest.fn(async () => {
    const next = queue.shift();
    if (next === undefined || next === 'passes') return 'passed';
    throw next;
  });
}

// This file's own retries are recorded in a folder of its own, not counted against the real run.
let ledger: string;
const runLedger = process.env[kRetriesFolderVariable];
beforeAll(() => {
  ledger = mkdtempSync(join(tmpdir(), 'engine-faults-test-'));
  process.env[kRetriesFolderVariable] = ledger;
});
afterAll(() => {
  if (runLedger === undefined) delete process.env[kRetriesFolderVariable];
  else process.env[kRetriesFolderVariable] = runLedger;
  rmSync(ledger, { recursive: true, force: true });
});

let stderr: string[];
beforeEach(() => {
  stderr = [];
  jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stderr.push(String(chunk));
    return true;
  });
});
afterEach(() => jest.restoreAllMocks());

test("WebKit's known fault is a trap as the page or the worker reports it", () => {
  const fault = webkitEngine.knownWasmFault;
  expect(fault?.pattern.test(kFault)).toBe(true);
  expect(fault?.pattern.test('WebKit: the page threw RuntimeError: Out of bounds call_indirect\n  in the page at:')).toBe(true);
  expect(fault?.pattern.test('WebKit: the page threw RuntimeError: Aborted(). Build with -s ASSERTIONS=1 for more info.')).toBe(false);
  expect(fault?.pattern.test('expect(received).toEqual(expected)')).toBe(false);
});

test('a test that fails with the fault runs once more, printing the fault, and passes if the second run does', async () => {
  const body = failingThen(new Error(kFault), 'passes');
  await expect(retriedOnEngineFault(webkitEngine, 'answers', body)()).resolves.toBe('passed');
  expect(body).toHaveBeenCalledTimes(2);
  expect(stderr.join('')).toContain('WebKitGTK: "answers" failed with JavaScriptCore\'s intermittent wasm fault');
  expect(stderr.join('')).toContain('Out of bounds memory access');
});

test('the fault twice in a row fails the test', async () => {
  const body = failingThen(new Error(kFault), new Error(`${kFault} (again)`));
  await expect(retriedOnEngineFault(webkitEngine, 'answers', body)()).rejects.toThrow('(again)');
  expect(body).toHaveBeenCalledTimes(2);
});

test('any other failure fails the test at once', async () => {
  const body = failingThen(new Error('expect(received).toEqual(expected)'), 'passes');
  await expect(retriedOnEngineFault(webkitEngine, 'answers', body)()).rejects.toThrow('toEqual');
  expect(body).toHaveBeenCalledTimes(1);
  expect(stderr).toEqual([]);
});

test('in an engine with no known fault the test is run as it is', async () => {
  const engine = { ...webkitEngine, knownWasmFault: undefined } as unknown as BrowserEngine;
  const body = failingThen(new Error(kFault), 'passes');
  expect(retriedOnEngineFault(engine, 'answers', body)).toBe(body);
});

describe('a test declared for WebKit through declaringTestsIn (as describeInEngines declares them)', () => {
  let runs = 0;
  declaringTestsIn(webkitEngine, () => {
    test('is retried on the fault: this one faults on its first run only', async () => {
      runs += 1;
      if (runs === 1) throw new Error(kFault);
    });
  });
  afterAll(() => expect(runs).toBe(2));
});

test('a test that passes only on its retry is recorded with its full name, its file and the first line of the fault', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'one-retry-'));
  process.env[kRetriesFolderVariable] = folder;
  try {
    await retriedOnEngineFault(webkitEngine, 'answers', failingThen(new Error(`${kFault}\n  in the worker at: f@laya-core.wasm`), 'passes'))();
    await retriedOnEngineFault(webkitEngine, 'answers', failingThen('passes'))();
    expect(readPassesOnRetry(folder)).toEqual([{
      test: 'a test that passes only on its retry is recorded with its full name, its file and the first line of the fault',
      file: join('tests', 'js', 'browser', 'engine-faults.test.ts'),
      fault: kFault,
    }]);
  } finally {
    process.env[kRetriesFolderVariable] = ledger;
    rmSync(folder, { recursive: true, force: true });
  }
});

describe('the run\'s reporter', () => {
  /** A whole run as the reporter sees it: `passesOnRetry` tests pass only on their retry, one passes at once. */
  async function runWith(passesOnRetry: number): Promise<Error | undefined> {
    const reporter = new FaultRetriesReporter();
    reporter.onRunStart();
    for (let i = 0; i < passesOnRetry; i++) await retriedOnEngineFault(webkitEngine, `t${i}`, failingThen(new Error(kFault), 'passes'))();
    await retriedOnEngineFault(webkitEngine, 'clean', failingThen('passes'))();
    reporter.onRunComplete();
    expect(process.env[kRetriesFolderVariable]).toBe(ledger);
    return reporter.getLastError();
  }

  test('says so when no test needed a retry, and lets the run pass', async () => {
    expect(await runWith(0)).toBeUndefined();
    expect(stderr.join('')).toContain("engine-fault retries: 0 tests passed only on a retry after an engine's known wasm fault (at most 1 allowed per run)\n");
  });

  test('lets a run with one pass on a retry pass, naming the test', async () => {
    expect(await runWith(1)).toBeUndefined();
    const out = stderr.join('');
    expect(out).toContain('engine-fault retries: 1 test passed only on a retry');
    expect(out).toContain("  - the run's reporter lets a run with one pass on a retry pass, naming the test (tests/js/browser/engine-faults.test.ts): " +
      `first run failed with ${kFault}`);
  });

  test('fails a run with two passes on a retry, naming both', async () => {
    const error = await runWith(2);
    expect(error?.message).toBe('2 tests passed only on a retry after a wasm trap (at most 1 allowed)');
    const out = stderr.join('');
    expect(out).toContain('engine-fault retries: 2 tests passed only on a retry');
    expect(out.match(/ {2}- the run's reporter fails a run with two passes on a retry, naming both /g)).toHaveLength(2);
    expect(out).toContain('an out-of-bounds bug in the module looks the same');
  });
});
