// The package's own worker (a module Worker started by worker-engine.ts): loads one checkpoint with
// the browser runtime into an in-thread engine and answers the calls of its WorkerEngine in the
// order they come (protocol.ts). Each call runs with its abort word watched by the engine
// (abort-words.ts), so an abort from the page stops a forward pass before its next step.
import { browserRuntime } from '../browser/browser-runtime.js';
import type { InThreadEngine } from '../engine/in-thread-engine.js';
import { LayaError } from '../errors.js';
import { loadEngineWith } from '../load.js';
import { abortWordIndex, isMarkedAborted } from './abort-words.js';
import { crossingError, packForward } from './crossing.js';
import type { FromWorker, ModelState, PackedForward, ToWorker } from './protocol.js';

interface WorkerScope {
  onmessage: ((event: MessageEvent<ToWorker>) => void) | null;
  postMessage(message: FromWorker, transfer?: Transferable[]): void;
}

const scope = globalThis as unknown as WorkerScope;
let engine: InThreadEngine | null = null;
/** Set by 'dispose': the calls still queued are skipped. */
let disposed = false;
let abortWords: Int32Array | null = null;
const loadAbort = new AbortController();
/** Calls the page gave up on before they started (told by message). */
const skipped = new Set<number>();
// One call at a time, in order: a session answers one call at a time.
let queue: Promise<void> = Promise.resolve();

scope.onmessage = (event) => {
  const message = event.data;
  if (message.type === 'abort') {
    // Read at once, not queued: a load in progress stops downloading, a queued call is skipped.
    if (message.id === 0) loadAbort.abort(new DOMException('laya-wasm load was aborted', 'AbortError'));
    else skipped.add(message.id);
    return;
  }
  if (message.type === 'dispose') {
    // Read at once: the calls queued behind a running one never start; the model is freed after it.
    disposed = true;
    queue = queue.then(() => {
      engine?.dispose();
      engine = null;
    });
    return;
  }
  queue = queue.then(() => (message.type === 'load' ? runLoad(message) : runCall(message)));
};
scope.postMessage({ type: 'started', id: 0 });

async function runLoad(message: ToWorker & { type: 'load' }): Promise<void> {
  abortWords = message.abortWords;
  try {
    const loaded = await loadEngineWith(browserRuntime, message.source, {
      ...message.options,
      signal: loadAbort.signal,
      onProgress: (event) => scope.postMessage({ type: 'progress', id: 0, event }),
      onWarning: (text) => scope.postMessage({ type: 'warning', id: 0, message: text }),
    }, { withWeights: true });
    engine = loaded.engine;
    // The store's commit runs behind the load: a caller that disposes the model keeps this worker
    // until it is told the store is done ('stored'), or told at once where it already is (a load
    // that stored nothing settles before the next task).
    const { stored: storing } = loaded.engine;
    const stored = await Promise.race([storing.then(() => true), new Promise<false>((resolve) => setTimeout(resolve, 0, false))]);
    if (!stored) void storing.then(() => scope.postMessage({ type: 'stored', id: 0 }));
    scope.postMessage({
      type: 'loaded', id: 0,
      loaded: {
        config: loaded.config, warnings: [...loaded.warnings], simd: engine.simd, threads: engine.threads(),
        backend: engine.backend, compute: engine.compute, ...stateOf(engine), stored,
      },
    });
  } catch (error) {
    scope.postMessage({ type: 'error', id: 0, error: crossingError(error) });
  }
}

async function runCall(message: ToWorker & { type: 'call' }): Promise<void> {
  const { id } = message;
  const wasSkipped = skipped.has(id);
  // Calls run in id order: an abort that came for a call already answered is stale now.
  for (const old of skipped) if (old <= id) skipped.delete(old);
  if (disposed || wasSkipped || (abortWords !== null && isMarkedAborted(abortWords, id))) {
    // The page has rejected this call already; it never reaches the engine.
    return;
  }
  try {
    if (engine === null) throw new LayaError('internal', `${message.method}: the worker has no model loaded`);
    if (abortWords !== null) engine.watchAbort(abortWords, abortWordIndex(id), id);
    const { value, transfer } = await run(engine, message);
    scope.postMessage({ type: 'result', id, value, state: stateOf(engine) }, transfer);
  } catch (error) {
    scope.postMessage({ type: 'error', id, error: crossingError(error) });
  } finally {
    if (abortWords !== null) engine?.watchAbort(null);
  }
}

type Call = ToWorker & { type: 'call' };

/** One call on the engine; typed arrays in the answer are transferred, not copied. */
async function run(e: InThreadEngine, call: Call): Promise<{ value: string | string[] | Float32Array[] | PackedForward | null; transfer: Transferable[] }> {
  switch (call.method) {
    case 'setProfiling':
      e.setProfiling(call.on);
      return { value: null, transfer: [] };
    case 'embed': {
      const rows = await e.run(call);
      return { value: rows, transfer: rows.map((row) => row.buffer) };
    }
    case 'forward': {
      const packed = packForward(await e.run(call));
      return { value: packed, transfer: [packed.floats.buffer] };
    }
    default:
      return { value: await e.run(call), transfer: [] };
  }
}

function stateOf(e: InThreadEngine): ModelState {
  return { memory: e.memory(), profile: e.profile() };
}
