// The retry for an engine's own known wasm fault (helpers/browsers/engine-faults.ts): a test that
// fails with the fault runs once more and says so; a second fault, any other failure, and every
// failure in an engine without a known fault fail the test as they are.
import { jest } from '@jest/globals';
import { declaringTestsIn, retriedOnEngineFault } from '../helpers/browsers/engine-faults.js';
import { engineNamed, type BrowserEngine } from '../helpers/browsers/engines.mjs';

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
