// The engine's half of an abort in flight (cpp/bind/embind.cc setAbortWatch, the executor's stop
// check): while a long predict holds this thread, another thread writes the call's abort word in a
// SharedArrayBuffer, and the predict stops before its next step with an AbortError; the model then
// answers as before. In the package the page writes the word and the worker runs the predict
// (worker-engine.ts); here a worker_threads thread stands in for the page.
import { Worker } from 'node:worker_threads';
import type { InThreadEngine } from '../../../web/src/engine/in-thread-engine.js';
import { loadEngineWith } from '../../../web/src/load.js';
import { LayaModel } from '../../../web/src/model.js';
import { nodeRuntime } from '../../../web/src/node/node-runtime.js';
import { abortWordIndex, isMarkedAborted, kAbortWords, markAborted } from '../../../web/src/worker/abort-words.js';
import { kTinyCheckpoint } from '../helpers/fixtures.js';
import { growUntilLong } from '../helpers/long-call.js';
import { kLongState, manyQuestions } from '../helpers/long-request.js';
import { describeWithCore, kWasm } from '../helpers/real-core.js';

/**
 * Another thread that writes `id` into its word of `words` `delayMs` after it starts; resolves
 * once it runs, so the delay counts from then and not from a thread start that load can slow.
 */
async function writeLater(words: Int32Array, id: number, delayMs: number): Promise<Worker> {
  const worker = new Worker(`
    const { workerData } = require('node:worker_threads');
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, workerData.delayMs);
    Atomics.store(new Int32Array(workerData.buffer), workerData.index, workerData.id);
  `, { eval: true, workerData: { buffer: words.buffer, index: abortWordIndex(id), id, delayMs } });
  await new Promise((resolve) => worker.once('online', resolve));
  return worker;
}

describe('abort words', () => {
  test('a word marks only the call whose id it holds, and a ring slot is reused every kAbortWords calls', () => {
    const words = new Int32Array(new SharedArrayBuffer(kAbortWords * 4));
    markAborted(words, 7);
    expect(isMarkedAborted(words, 7)).toBe(true);
    expect(isMarkedAborted(words, 8)).toBe(false);
    expect(isMarkedAborted(words, 7 + kAbortWords)).toBe(false);  // same slot, a later call
    expect(abortWordIndex(7 + kAbortWords)).toBe(abortWordIndex(7));
  });
});

describeWithCore('the engine watching an abort word', () => {
  // The engine as the package's worker holds it, and a model asking it as the worker's calls do.
  let engine: InThreadEngine;
  let model: LayaModel;
  beforeAll(async () => {
    const loaded = await loadEngineWith(nodeRuntime, { directory: kTinyCheckpoint }, { wasm: kWasm, threads: 1, onWarning: () => undefined },
                                        { withWeights: true });
    engine = loaded.engine;
    model = new LayaModel(engine, loaded.config, loaded.warnings);
  });
  afterAll(() => model?.dispose());

  test('a word written during a long predict stops it within a step, and the next answers equal the unaborted ones', async () => {
    const small = manyQuestions(2);
    const wantSmall = await model.predictJson(kLongState, small);
    // A predict of a second here, whatever the machine's speed.
    const grown = await growUntilLong((questions) => model.predictJson(kLongState, questions), 1000);
    const [long, wantLong, fullMs] = [grown.questions, grown.result, grown.ms];

    const words = new Int32Array(new SharedArrayBuffer(kAbortWords * 4));
    const id = 41;
    engine.watchAbort(words, abortWordIndex(id), id);
    const writer = await writeLater(words, id, fullMs / 4);
    try {
      const started = performance.now();
      await expect(model.predictJson(kLongState, long)).rejects.toMatchObject({
        name: 'AbortError', message: expect.stringMatching(/^laya-wasm predict was aborted: forward: stopped on request before step \d+ of \d+$/),
      });
      const stoppedMs = performance.now() - started;
      // The word came a quarter of the way in; unstopped, the predict would take fullMs.
      expect(stoppedMs).toBeLessThan(fullMs / 2);
    } finally {
      await writer.terminate();
      engine.watchAbort(null);
    }
    // The word still holds the id: a call watching another id runs to the end.
    engine.watchAbort(words, abortWordIndex(id + 1), id + 1);
    expect(await model.predictJson(kLongState, long)).toBe(wantLong);
    engine.watchAbort(null);
    expect(await model.predictJson(kLongState, small)).toBe(wantSmall);
  }, 60_000);
});
