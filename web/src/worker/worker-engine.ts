// load(source, { worker: true }) in browsers: the package starts its own module Worker
// (laya-worker.ts), loads the checkpoint there, and hands back a LayaModel whose engine is a
// WorkerEngine: each call the model makes of its engine is posted to the worker (protocol.ts) and
// resolves with its answer, so a forward pass never blocks the caller's thread. The worker is created with exactly
// `new Worker(new URL('./laya-worker.js', import.meta.url), { type: 'module' })`, the pattern
// Vite and webpack 5 recognise, so a bundled page needs no worker file of its own.
//
// Aborts: a call's signal rejects it at once. Where SharedArrayBuffer exists (cross-origin-isolated
// pages) the call's abort word (abort-words.ts) also stops the engine before its next step, so the
// worker is free for the next call within one step. Elsewhere the worker only learns of the abort by
// message, which it reads between calls: a queued call is skipped, a forward pass already running
// finishes and its result is dropped.
import type { LayaConfigSummary } from '../config-summary.js';
import type { SimdVariant } from '../core/simd.js';
import { callerName, type Backend, type CallName, type CallResults, type EngineCall, type ModelEngine } from '../engine/model-engine.js';
import { LayaError, abortError, describeError, throwIfAborted } from '../errors.js';
import { LayaModel } from '../model.js';
import { resolveLoadOptions, type Compute, type LoadOptions, type LoadProgressEvent } from '../options.js';
import type { MemoryReport, StepProfile } from '../request.js';
import type { CheckpointSource } from '../sources/checkpoint-source.js';
import { createAbortWords, markAborted } from './abort-words.js';
import { crossingLoadOptions, crossingSource, rebuildError, unpackForward } from './crossing.js';
import type { FromWorker, Loaded, ModelState, PackedForward, ToWorker, WorkerCall } from './protocol.js';

interface Pending {
  resolve(value: FromWorker & { type: 'result' }): void;
  reject(error: unknown): void;
}

/**
 * How long the package's worker may take to run its script before it is ended and another started:
 * Firefox now and then starts a worker that never runs its script, which would hang the load.
 */
export const kWorkerStartMs = 15_000;
/** Workers started for one load before it fails (each given kWorkerStartMs). */
export const kWorkerStarts = 3;

/** Loads `source` in a new worker; rejects (with the worker ended) exactly as load() would. */
export async function loadInWorker(source: CheckpointSource, options: LoadOptions = {}): Promise<LayaModel> {
  const opts = resolveLoadOptions(options);
  throwIfAborted(opts.signal);
  const crossing = crossingLoadOptions(options);
  const worker = await startedWorker(opts.signal, opts.onWarning);
  const abortWords = createAbortWords();
  let onAbort: (() => void) | undefined;
  try {
    const loaded = await new Promise<Loaded>((resolve, reject) => {
      worker.onmessage = (event: MessageEvent<FromWorker>) => {
        const message = event.data;
        if (message.type === 'progress') opts.onProgress(message.event as LoadProgressEvent);
        else if (message.type === 'warning') opts.onWarning(message.message);
        else if (message.type === 'loaded') resolve(message.loaded);
        else if (message.type === 'error') reject(rebuildError(message.error));
      };
      worker.onerror = (event: ErrorEvent) => {
        event.preventDefault();
        reject(new LayaError('internal', `the laya-wasm worker stopped during the load: ${event.message || 'an uncaught error'}`));
      };
      onAbort = () => reject(abortError(opts.signal));
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      const message: ToWorker = { type: 'load', id: 0, source: crossingSource(source), options: crossing, abortWords };
      try {
        worker.postMessage(message);
      } catch (error) {
        // An option or source the structured clone refuses (e.g. a GPU object, options.gpu).
        reject(new LayaError('invalid_request',
          `load: the source or options cannot be sent to the worker that options.worker starts: ${describeError(error)}`));
      }
    });
    const engine = new WorkerEngine(worker, loaded, abortWords, opts.onWarning);
    return new LayaModel(engine, loaded.config as LayaConfigSummary, loaded.warnings);
  } catch (error) {
    worker.terminate();  // nothing is left allocated: the worker held the module and its memory
    throw error;
  } finally {
    if (onAbort !== undefined) opts.signal?.removeEventListener('abort', onAbort);
  }
}

/** A worker of the package that has run its script (said 'started'); up to kWorkerStarts tries. */
async function startedWorker(signal: AbortSignal | undefined, onWarning: (message: string) => void): Promise<Worker> {
  for (let attempt = 1; ; attempt++) {
    const worker = new Worker(new URL('./laya-worker.js', import.meta.url), { type: 'module' });
    const outcome = await new Promise<'started' | 'silent' | { failed: unknown }>((resolve) => {
      const settle = (result: 'started' | 'silent' | { failed: unknown }): void => {
        clearTimeout(deadline);
        signal?.removeEventListener('abort', onAbort);
        resolve(result);
      };
      const deadline = setTimeout(() => settle('silent'), kWorkerStartMs);
      const onAbort = (): void => settle({ failed: abortError(signal) });
      signal?.addEventListener('abort', onAbort, { once: true });
      worker.onmessage = (event: MessageEvent<FromWorker>) => {
        if (event.data.type === 'started') settle('started');
      };
      worker.onerror = (event: ErrorEvent) => {
        event.preventDefault();
        settle({ failed: new LayaError('internal', `the laya-wasm worker failed to start: ${event.message || 'its script did not load'}`) });
      };
    });
    if (outcome === 'started') return worker;
    worker.terminate();
    if (outcome !== 'silent') throw outcome.failed;
    const waited = `did not run its script within ${kWorkerStartMs / 1000} s`;
    if (attempt === kWorkerStarts) {
      throw new LayaError('internal', `the laya-wasm worker ${waited}, ${kWorkerStarts} times: the browser starts no workers now`);
    }
    onWarning(`laya-wasm: the worker started for this load ${waited} (a browser now and then starts a worker that never runs); started another`);
  }
}

/**
 * How long a disposed model's worker is kept for the store to finish its commit (LayaPipeline.stored)
 * before it is ended anyway, leaving no entry (the next load downloads again).
 */
export const kStoreAfterDisposeMs = 60_000;

export class WorkerEngine implements ModelEngine {
  readonly simd: SimdVariant;
  readonly backend: Backend;
  readonly compute: Compute;
  /** Resolved when the worker says its store is done ('stored'), or when the worker is gone. */
  readonly stored: Promise<void>;
  #worker: Worker | null;
  /** Resolves `stored`; null once it has. */
  #settleStored: (() => void) | null = null;
  readonly #onWarning: (message: string) => void;
  readonly #abortWords: Int32Array | null;
  readonly #pending = new Map<number, Pending>();
  readonly #threads: number;
  #nextId = 1;
  #state: ModelState;
  /** What the worker's model reported before it ran anything: what setProfiling's reset gives. */
  readonly #zeroProfile: StepProfile;

  /** Takes ownership of the worker, in which the checkpoint is `loaded`. */
  constructor(worker: Worker, loaded: Loaded, abortWords: Int32Array | null, onWarning: (message: string) => void) {
    this.stored = new Promise<void>((resolve) => { this.#settleStored = resolve; });
    if (loaded.stored) this.#storeDone();
    this.simd = loaded.simd;
    this.backend = loaded.backend;
    this.compute = loaded.compute;
    this.#onWarning = onWarning;
    this.#worker = worker;
    this.#abortWords = abortWords;
    this.#threads = loaded.threads;
    this.#state = { memory: loaded.memory, profile: loaded.profile };
    this.#zeroProfile = loaded.profile;
    worker.onmessage = (event: MessageEvent<FromWorker>) => this.#receive(event.data);
    worker.onerror = (event: ErrorEvent) => {
      event.preventDefault();
      this.#failAll(new LayaError('internal', `the laya-wasm worker stopped: ${event.message || 'an uncaught error'}`));
      if (this.#worker === null) this.#end(worker);
    };
  }

  threads(): number {
    return this.#threads;
  }

  async run<M extends CallName>(call: EngineCall<M>, signal?: AbortSignal): Promise<CallResults[M]> {
    const value = await this.#call(callerName(call.method), call as EngineCall, signal);
    // A forward pass's outputs cross as one transferred Float32Array (crossing.ts).
    return (call.method === 'forward' ? unpackForward(value as PackedForward) : value) as CallResults[M];
  }

  /** As of the last call answered (memory only changes in calls, which run in order). */
  memory(): MemoryReport {
    return structuredClone(this.#state.memory);
  }

  /** Sent to the worker ahead of any later call; like the in-thread engine's, it starts the times from zero. */
  setProfiling(on: boolean): void {
    this.#state = { ...this.#state, profile: this.#zeroProfile };
    void this.#call('setProfiling', { method: 'setProfiling', on }, undefined).catch(() => undefined);
  }

  /** As of the last call answered: the worker sends its profile with every answer. */
  profile(): StepProfile {
    return structuredClone(this.#state.profile);
  }

  /**
   * Ends the worker (its module, memory and threads with it). Calls still waiting reject as
   * disposed. Where the store is still committing the load's files, the worker frees the model
   * and is ended when the store is done (at most kStoreAfterDisposeMs later).
   */
  dispose(): void {
    const worker = this.#worker;
    if (worker === null) return;
    this.#worker = null;
    this.#failAll(new LayaError('disposed', 'the model was disposed while this call waited for the worker; load it again'));
    if (this.#settleStored === null) {
      worker.terminate();
      return;
    }
    worker.postMessage({ type: 'dispose', id: 0 } satisfies ToWorker);
    const deadline = setTimeout(() => {
      this.#onWarning(`laya-wasm: the disposed model's worker was ended ${kStoreAfterDisposeMs / 1000} s before its store finished: ` +
        'the files not yet stored download again on the next load');
      this.#end(worker);
    }, kStoreAfterDisposeMs);
    void this.stored.then(() => {
      clearTimeout(deadline);
      worker.terminate();
    });
  }

  /** The worker is gone: `stored` settles (what the store had not committed is not stored). */
  #end(worker: Worker): void {
    worker.terminate();
    this.#storeDone();
  }

  #storeDone(): void {
    this.#settleStored?.();
    this.#settleStored = null;
  }

  #call(what: string, call: WorkerCall, signal: AbortSignal | undefined): Promise<unknown> {
    const worker = this.#worker;
    if (worker === null) throw new LayaError('disposed', `${what}: this LayaModel was disposed; load it again`);
    throwIfAborted(signal, what);
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        if (!this.#pending.delete(id)) return;
        if (this.#abortWords !== null) markAborted(this.#abortWords, id);
        this.#worker?.postMessage({ type: 'abort', id } satisfies ToWorker);
        reject(abortError(signal, what));
      };
      const settle = (): void => signal?.removeEventListener('abort', onAbort);
      this.#pending.set(id, {
        resolve: (message) => { settle(); this.#state = message.state; resolve(message.value); },
        reject: (error) => { settle(); reject(error); },
      });
      signal?.addEventListener('abort', onAbort, { once: true });
      try {
        worker.postMessage({ type: 'call', id, ...call } satisfies ToWorker);
      } catch (error) {
        this.#pending.delete(id);
        settle();
        reject(new LayaError('invalid_request', `${what}: the arguments cannot be sent to the worker: ${describeError(error)}`));
      }
    });
  }

  #receive(message: FromWorker): void {
    if (message.type === 'stored') {
      this.#storeDone();
      return;
    }
    // A store fault during the commit behind the load.
    if (message.type === 'warning') {
      this.#onWarning(message.message);
      return;
    }
    const pending = this.#pending.get(message.id);
    if (pending === undefined) return;  // aborted: the caller has its AbortError already
    this.#pending.delete(message.id);
    if (message.type === 'result') pending.resolve(message);
    else if (message.type === 'error') pending.reject(rebuildError(message.error));
  }

  #failAll(error: Error): void {
    const waiting = [...this.#pending.values()];
    this.#pending.clear();
    for (const pending of waiting) pending.reject(error);
  }
}
