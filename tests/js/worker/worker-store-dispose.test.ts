// A model loaded with { worker: true } whose page store is still committing the load's files
// (LayaPipeline.stored) when it is disposed: its worker frees the model but is ended only once the
// store is done, or after kStoreAfterDisposeMs with a warning; a model whose store is done ends its
// worker at once. Checked on a model over a WorkerEngine with a stand-in Worker that records what it is sent.
import { jest } from '@jest/globals';
import type { FromWorker, Loaded, ToWorker } from '../../../web/src/worker/protocol.js';
import { LayaModel } from '../../../web/src/model.js';
import { WorkerEngine, kStoreAfterDisposeMs } from '../../../web/src/worker/worker-engine.js';

class RecordingWorker {
  readonly sent: ToWorker[] = [];
  terminated = false;
  onmessage: ((event: MessageEvent<FromWorker>) => void) | null = null;
  onerror: ((event: ErrorEvent) => void) | null = null;
  postMessage(message: ToWorker): void {
    this.sent.push(message);
  }
  terminate(): void {
    this.terminated = true;
  }
  /** A message from the worker's side. */
  says(message: FromWorker): void {
    this.onmessage?.({ data: message } as MessageEvent<FromWorker>);
  }
}

/** What the worker sends when its load ends; `stored`: the store had nothing left to commit. */
const loadedMessage = (stored: boolean): Loaded => ({
  config: {}, warnings: [], simd: 'plain', backend: 'wasm', threads: 1, memory: {}, profile: {}, stored,
} as unknown as Loaded);

function modelOver(worker: RecordingWorker, warnings: string[] = [], stored = false): LayaModel {
  const loaded = loadedMessage(stored);
  return new LayaModel(new WorkerEngine(worker as unknown as Worker, loaded, null, (w) => warnings.push(w)), loaded.config, loaded.warnings);
}

const settledYet = async (promise: Promise<void>): Promise<boolean> => {
  let settled = false;
  void promise.then(() => { settled = true; });
  await new Promise((resolve) => setImmediate(resolve));
  return settled;
};

afterEach(() => jest.useRealTimers());

test('a model disposed while its store commits keeps its worker until the worker says the store is done', async () => {
  const worker = new RecordingWorker();
  const model = modelOver(worker);
  model.dispose();
  expect(model.disposed).toBe(true);
  expect(worker.sent).toEqual([{ type: 'dispose', id: 0 }]);
  expect(worker.terminated).toBe(false);
  expect(await settledYet(model.stored)).toBe(false);

  worker.says({ type: 'stored', id: 0 });
  await model.stored;
  await new Promise((resolve) => setImmediate(resolve));
  expect(worker.terminated).toBe(true);
});

test('a model whose load stored nothing behind it ends its worker at once on dispose', async () => {
  const worker = new RecordingWorker();
  const model = modelOver(worker, [], true);
  expect(await settledYet(model.stored)).toBe(true);
  model.dispose();
  expect(worker.terminated).toBe(true);
  expect(worker.sent).toEqual([]);
});

test('a model whose store is done ends its worker at once on dispose', async () => {
  const worker = new RecordingWorker();
  const model = modelOver(worker);
  worker.says({ type: 'stored', id: 0 });
  await model.stored;
  model.dispose();
  expect(worker.terminated).toBe(true);
  expect(worker.sent).toEqual([]);
});

test('a store that never finishes gets the disposed worker ended after the deadline, with a warning', async () => {
  jest.useFakeTimers();
  const worker = new RecordingWorker();
  const warnings: string[] = [];
  const model = modelOver(worker, warnings);
  model.dispose();
  jest.advanceTimersByTime(kStoreAfterDisposeMs - 1);
  expect(worker.terminated).toBe(false);
  jest.advanceTimersByTime(1);
  expect(worker.terminated).toBe(true);
  await model.stored;
  expect(warnings).toEqual([`laya-wasm: the disposed model's worker was ended ${kStoreAfterDisposeMs / 1000} s before its store finished: ` +
    'the files not yet stored download again on the next load']);
});

test("a warning from the store's commit after the load reaches onWarning", () => {
  const worker = new RecordingWorker();
  const warnings: string[] = [];
  modelOver(worker, warnings);
  worker.says({ type: 'warning', id: 0, message: 'laya-wasm: model.safetensors is loaded from the network without being stored: storing it failed' });
  expect(warnings).toEqual(['laya-wasm: model.safetensors is loaded from the network without being stored: storing it failed']);
});
