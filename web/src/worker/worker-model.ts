// load(source, { worker: true }) in browsers: the package starts its own module Worker
// (laya-worker.ts), loads the checkpoint there, and hands back a WorkerModel: a LayaModel whose
// every method posts a call to the worker (protocol.ts) and resolves with its answer, so a forward
// pass never blocks the caller's thread. The worker is created with exactly
// `new Worker(new URL('./laya-worker.js', import.meta.url), { type: 'module' })`, the pattern
// Vite and webpack 5 recognise, so a bundled page needs no worker file of its own.
//
// Aborts: a call's signal rejects it at once. Where SharedArrayBuffer exists (cross-origin-isolated
// pages) the call's abort word (abort-words.ts) also stops the engine before its next step, so the
// worker is free for the next call within one step. Elsewhere the worker only learns of the abort by
// message, which it reads between calls: a queued call is skipped, a forward pass already running
// finishes and its result is dropped.
import type { LayaConfigSummary } from '../config-summary.js';
import { LayaError, abortError, describeError, throwIfAborted } from '../errors.js';
import { LayaModel, type EmbedOptions, type ForwardOptions } from '../model.js';
import { resolveLoadOptions, type LoadOptions, type LoadProgressEvent } from '../options.js';
import {
  encodeQuestions, encodeState, toJsonText,
  type ForwardRequest, type ForwardResult, type JsonText, type MemoryReport, type PredictOptions,
  type QuestionsInput, type RecordedOutputs, type StateInput, type StepProfile,
} from '../request.js';
import type { ShortlistOptions } from '../shortlist.js';
import type { CheckpointSource } from '../sources/checkpoint-source.js';
import { createAbortWords, markAborted } from './abort-words.js';
import { crossingLoadOptions, crossingSource, plain, rebuildError, unpackForward } from './crossing.js';
import type { FromWorker, Loaded, ModelState, PackedForward, ToWorker, WorkerCall } from './protocol.js';

interface Pending {
  resolve(value: FromWorker & { type: 'result' }): void;
  reject(error: unknown): void;
}

/** Loads `source` in a new worker; rejects (with the worker ended) exactly as load() would. */
export async function loadInWorker(source: CheckpointSource, options: LoadOptions = {}): Promise<LayaModel> {
  const opts = resolveLoadOptions(options);
  throwIfAborted(opts.signal);
  const crossing = crossingLoadOptions(options);
  const worker = new Worker(new URL('./laya-worker.js', import.meta.url), { type: 'module' });
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
        reject(new LayaError('internal', `the laya-wasm worker failed to start: ${event.message || 'its script did not load'}`));
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
    return new WorkerModel(worker, loaded, abortWords, opts.onWarning);
  } catch (error) {
    worker.terminate();  // nothing is left allocated: the worker held the module and its memory
    throw error;
  } finally {
    if (onAbort !== undefined) opts.signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * How long a disposed model's worker is kept for the store to finish its commit (LayaPipeline.stored)
 * before it is ended anyway, leaving no entry (the next load downloads again).
 */
export const kStoreAfterDisposeMs = 60_000;

export class WorkerModel extends LayaModel {
  #worker: Worker | null;
  /** Resolves `stored`; null once it has. */
  #settleStored: (() => void) | null;
  readonly #onWarning: (message: string) => void;
  readonly #abortWords: Int32Array | null;
  readonly #pending = new Map<number, Pending>();
  readonly #threads: number;
  #nextId = 1;
  #state: ModelState;
  readonly #zeroProfile: StepProfile;

  /** @internal Built by loadInWorker() only. */
  constructor(worker: Worker, loaded: Loaded, abortWords: Int32Array | null, onWarning: (message: string) => void) {
    // Resolved when the worker says its store is done ('stored'), or when the worker is gone.
    let settleStored = (): void => undefined;
    const stored = new Promise<void>((resolve) => { settleStored = resolve; });
    // The base class's session handle stays empty: every method that would use it is overridden
    // (tests/js/worker/worker-model.test.ts checks that none is left out).
    super({ core: undefined as never, session: undefined as never, simd: loaded.simd },
          loaded.config as LayaConfigSummary, loaded.warnings, stored);
    this.#settleStored = settleStored;
    this.#onWarning = onWarning;
    if (loaded.stored) this.#storeDone();
    // The base class reads the backend from the session handle, which stays on the worker's side.
    if (loaded.backend !== undefined) Object.defineProperty(this, 'backend', { value: loaded.backend, enumerable: true });
    this.#worker = worker;
    this.#abortWords = abortWords;
    this.#threads = loaded.threads;
    this.#state = { memory: loaded.memory, profile: loaded.profile };
    // Nothing has run yet, so this is what setProfiling's reset gives.
    this.#zeroProfile = loaded.profile;
    worker.onmessage = (event: MessageEvent<FromWorker>) => this.#receive(event.data);
    worker.onerror = (event: ErrorEvent) => {
      event.preventDefault();
      this.#failAll(new LayaError('internal', `the laya-wasm worker stopped: ${event.message || 'an uncaught error'}`));
      if (this.#worker === null) this.#end(worker);
    };
  }

  override get disposed(): boolean {
    return this.#worker === null;
  }

  override get threads(): number {
    return this.#worker === null ? 0 : this.#threads;
  }

  /**
   * Ends the worker (its module, memory and threads with it). Calls still waiting reject as
   * disposed. Where the store is still committing the load's files, the worker frees the model
   * and is ended when the store is done (at most kStoreAfterDisposeMs later).
   */
  override dispose(): void {
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

  override async prepareJson(state: StateInput, questions: QuestionsInput, options?: PredictOptions): Promise<string> {
    const what = 'prepare';
    return this.#text(what, { method: 'prepareJson', ...this.#request(state, questions, what), options: plain(options) }, options?.signal);
  }

  override async answerJson(state: StateInput, questions: QuestionsInput, outputs: RecordedOutputs | JsonText,
                            options?: PredictOptions): Promise<string> {
    const what = 'answer';
    const outputsText = toJsonText(outputs, `${what}: outputs`);
    return this.#text(what, { method: 'answerJson', ...this.#request(state, questions, what), outputs: outputsText, options: plain(options) },
                      options?.signal);
  }

  override async predictJson(state: StateInput, questions: QuestionsInput, options?: PredictOptions): Promise<string> {
    const what = 'predict';
    return this.#text(what, { method: 'predictJson', ...this.#request(state, questions, what), options: plain(options) }, options?.signal);
  }

  override async predictShortlistJson(state: StateInput, questions: QuestionsInput, options: ShortlistOptions = {}): Promise<string> {
    const what = 'predictShortlist';
    return this.#text(what, { method: 'predictShortlistJson', ...this.#request(state, questions, what), options: plain(options) },
                      options.signal);
  }

  override async embed(texts: ReadonlyArray<string | null>, options: EmbedOptions = {}): Promise<Float32Array[]> {
    const value = await this.#call('embed', { method: 'embed', texts, options: plain(options) }, options.signal);
    return value as Float32Array[];
  }

  override async embedJson(texts: ReadonlyArray<string | null>, options: EmbedOptions = {}): Promise<string> {
    return this.#text('embed', { method: 'embedJson', texts, options: plain(options) }, options.signal);
  }

  override async forward(inputs: ForwardRequest | JsonText, options: ForwardOptions = {}): Promise<ForwardResult> {
    const what = 'forward';
    const packed = await this.#call(what, { method: 'forward', inputs: this.#inputs(inputs, what), options: plain(options) },
                                    options.signal) as PackedForward;
    return unpackForward(packed);
  }

  override async forwardJson(inputs: ForwardRequest | JsonText, options: ForwardOptions = {}): Promise<string> {
    const what = 'forward';
    return this.#text(what, { method: 'forwardJson', inputs: this.#inputs(inputs, what), options: plain(options) }, options.signal);
  }

  /** As of the last call answered (memory only changes in calls, which run in order). */
  override memory(): MemoryReport {
    this.#live('memory');
    return structuredClone(this.#state.memory);
  }

  /** Sent to the worker ahead of any later call; like the model's own, it starts the times from zero. */
  override setProfiling(on: boolean): void {
    this.#live('setProfiling');
    this.#state = { ...this.#state, profile: this.#zeroProfile };
    void this.#call('setProfiling', { method: 'setProfiling', on }, undefined).catch(() => undefined);
  }

  /** As of the last call answered: the worker sends its profile with every answer. */
  override profile(): StepProfile {
    this.#live('profile');
    return structuredClone(this.#state.profile);
  }

  /** @internal The worker watches the abort words itself. */
  override watchAbort(): boolean {
    return false;
  }

  /** No session lives on this thread; every method that reads one is overridden above. */
  protected override session(what: string): never {
    this.#live(what);
    throw new LayaError('internal', `${what}: this model runs in a worker and has no session on this thread`);
  }

  #request(state: StateInput, questions: QuestionsInput, what: string): { state: { text: string; isJson: boolean }; questions: string } {
    // Encoded here, so a bad request fails with the same message as without a worker.
    return { state: encodeState(state, what), questions: encodeQuestions(questions, what) };
  }

  #inputs(inputs: ForwardRequest | JsonText, what: string): string {
    return toJsonText(inputs, `${what}: inputs`);
  }

  #live(what: string): Worker {
    if (this.#worker === null) throw new LayaError('disposed', `${what}: this LayaModel was disposed; load it again`);
    return this.#worker;
  }

  async #text(what: string, call: WorkerCall, signal: AbortSignal | undefined): Promise<string> {
    return await this.#call(what, call, signal) as string;
  }

  #call(what: string, call: WorkerCall, signal: AbortSignal | undefined): Promise<unknown> {
    const worker = this.#live(what);
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
