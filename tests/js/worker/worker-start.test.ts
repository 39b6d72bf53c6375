// The package's worker must say 'started' within kWorkerStartMs: one that never runs its script
// (Firefox's, now and then) is ended and another started, with a warning, so a load never hangs on
// it. Stand-in Workers (Node has none) play the browser: silent ones, one that starts and fails the
// load (so the load's own answer is what reaches the caller), one whose script does not load.
import { jest } from '@jest/globals';
import { kWorkerStartMs, kWorkerStarts, loadInWorker } from '../../../web/src/worker/worker-engine.js';

type Behaviour = 'silent' | 'starts' | 'script-error';

class StandInWorker {
  static behaviours: Behaviour[] = [];
  static made: StandInWorker[] = [];
  onmessage: ((event: { data: unknown }) => void) | null = null;
  onerror: ((event: { message: string; preventDefault(): void }) => void) | null = null;
  terminated = false;
  readonly behaviour: Behaviour;

  constructor() {
    this.behaviour = StandInWorker.behaviours.shift() ?? 'silent';
    StandInWorker.made.push(this);
    queueMicrotask(() => {
      if (this.behaviour === 'starts') this.onmessage?.({ data: { type: 'started', id: 0 } });
      if (this.behaviour === 'script-error') this.onerror?.({ message: 'SyntaxError: the module did not parse', preventDefault: () => undefined });
    });
  }

  postMessage(message: { type: string }): void {
    // A started worker answers the load with the error a bad checkpoint gets.
    if (message.type === 'load') {
      queueMicrotask(() => this.onmessage?.({
        data: { type: 'error', id: 0, error: { name: 'LayaError', code: 'invalid_checkpoint', message: 'the stand-in has no checkpoint' } },
      }));
    }
  }

  terminate(): void {
    this.terminated = true;
  }
}

const source = { url: 'https://example.test/model/' };

beforeEach(() => {
  jest.useFakeTimers({ doNotFake: ['queueMicrotask'] });
  StandInWorker.behaviours = [];
  StandInWorker.made = [];
  (globalThis as { Worker?: unknown }).Worker = StandInWorker;
});

afterEach(() => {
  jest.useRealTimers();
  delete (globalThis as { Worker?: unknown }).Worker;
});

test('a worker that never runs its script is ended after the deadline, another is started with a warning, and the load goes on in it', async () => {
  StandInWorker.behaviours = ['silent', 'starts'];
  const warnings: string[] = [];
  const loading = loadInWorker(source, { onWarning: (w) => warnings.push(w) });
  const settled = expect(loading).rejects.toMatchObject({ code: 'invalid_checkpoint', message: 'the stand-in has no checkpoint' });
  await jest.advanceTimersByTimeAsync(kWorkerStartMs);
  await settled;
  expect(StandInWorker.made.map((w) => w.behaviour)).toEqual(['silent', 'starts']);
  expect(StandInWorker.made[0]!.terminated).toBe(true);
  expect(warnings).toEqual([
    `laya-wasm: the worker started for this load did not run its script within ${kWorkerStartMs / 1000} s ` +
    '(a browser now and then starts a worker that never runs); started another',
  ]);
});

test('when no worker runs its script the load fails with an internal error after kWorkerStarts tries, every worker ended', async () => {
  const warnings: string[] = [];
  const loading = loadInWorker(source, { onWarning: (w) => warnings.push(w) });
  const settled = expect(loading).rejects.toMatchObject({
    name: 'LayaError', code: 'internal',
    message: `the laya-wasm worker did not run its script within ${kWorkerStartMs / 1000} s, ${kWorkerStarts} times: the browser starts no workers now`,
  });
  await jest.advanceTimersByTimeAsync(kWorkerStartMs * kWorkerStarts);
  await settled;
  expect(StandInWorker.made).toHaveLength(kWorkerStarts);
  expect(StandInWorker.made.every((w) => w.terminated)).toBe(true);
  expect(warnings).toHaveLength(kWorkerStarts - 1);
});

test('a worker whose script fails to load is not retried: the load fails at once, naming the error', async () => {
  StandInWorker.behaviours = ['script-error'];
  await expect(loadInWorker(source)).rejects.toMatchObject({
    code: 'internal', message: 'the laya-wasm worker failed to start: SyntaxError: the module did not parse',
  });
  expect(StandInWorker.made).toHaveLength(1);
  expect(StandInWorker.made[0]!.terminated).toBe(true);
});

test('an abort while the worker starts rejects with the AbortError and ends the worker', async () => {
  const controller = new AbortController();
  const loading = loadInWorker(source, { signal: controller.signal });
  const settled = expect(loading).rejects.toMatchObject({ name: 'AbortError' });
  controller.abort();
  await settled;
  expect(StandInWorker.made).toHaveLength(1);
  expect(StandInWorker.made[0]!.terminated).toBe(true);
});
