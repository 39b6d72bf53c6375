// The loaded objects handed to callers. LayaPipeline owns a session configured from the configs
// and tokenizer only (prepare: the rows a request becomes; answer: the answer rebuilt from given
// outputs). LayaModel adds the weights: predict, embed, forward. Both are built only by the load
// functions, ready to use; dispose() frees the wasm session and is idempotent.
import './dispose-symbols.js';
import type { LayaConfigSummary } from './config-summary.js';
import type { LayaCoreModule, LayaSessionHandle } from './core/laya-core.js';
import type { SimdVariant } from './core/simd.js';
import { checkSessionResult, numberField, parseSessionJson } from './core/session-result.js';
import { guardTraps, type GuardedSession } from './core/trap-guard.js';
import { LayaError, throwIfAborted } from './errors.js';
import {
  encodePredictOptions, encodeQuestions, encodeState, toJsonText,
  type CallOptions, type ForwardRequest, type ForwardResult, type JsonText, type LayaResponse, type MemoryReport, type StepProfile,
  type PredictOptions, type PreparedRequest, type QuestionsInput, type RecordedOutputs, type StateInput,
} from './request.js';
import { encodeShortlistOptions, type ShortlistOptions } from './shortlist.js';

/** The wasm module instance and the session living in it. */
export interface SessionHandle {
  core: LayaCoreModule;
  session: LayaSessionHandle;
  /** The build the module is (default 'plain'). */
  simd?: SimdVariant;
  /** backend 'webgpu': the GPU that runs the batches the session waits for. */
  gpu?: OutsideBackend;
}

/**
 * A backend outside wasm (web/src/webgpu/gpu-session.ts's GpuSession), as the model uses it;
 * declared here so that the package's public types never name WebGPU's.
 */
export interface OutsideBackend {
  /** Runs a session method by replay until the session waits for no batch. */
  run(call: () => string, what: string, signal?: AbortSignal): Promise<string>;
  setProfiling(on: boolean): void;
  profile(): StepProfile;
  /** Bytes the weights take in the backend's own memory. */
  readonly weightBytes: number;
  destroy(): void;
}

export interface EmbedOptions extends CallOptions {
  /** Tokens per text, specials included (HF truncation keeps [CLS] ... [SEP]). Default 512. */
  maxLength?: number;
}

/** How a forward's outputs cut the one float array they cross in. */
interface ForwardLengths {
  logits: number[];
  act: number[];
  pooled: number[];
}

export interface ForwardOptions extends CallOptions {
  /** Run every sequence alone instead of packed in one batch (same numbers up to rounding). */
  eachAlone?: boolean;
}

export class LayaPipeline implements AsyncDisposable, Disposable {
  /** A summary of the checkpoint's configs. */
  readonly config: LayaConfigSummary;
  /** Load-time warnings, e.g. temperatures clamped to [0.5, 5] (laya-spec §5.1). */
  readonly warnings: readonly string[];
  /**
   * The module build running: 'relaxed' (laya-core-relaxed / laya-core-mt-relaxed: fused
   * multiply-add in the GEMM and attention) or 'plain' SIMD; see LoadOptions.simd.
   */
  readonly simd: SimdVariant;
  /** Where the forward passes run: the CPU engine in wasm, or the GPU (LoadOptions.backend). */
  readonly backend: 'wasm' | 'webgpu';
  /**
   * Settles once the page's store (options.cache) holds every file this load downloaded: the
   * store's commit (the last writes, a flush to disk) runs after load() resolves, so the model is
   * usable at once. A page closed before then leaves no entry (the next visit downloads again).
   * Settles at once where nothing was stored, and in Node, whose cache commits during the load.
   * Never rejects: a file that could not be stored is a warning (onWarning). Disposing the model
   * does not stop the commit.
   */
  readonly stored: Promise<void>;
  #handle: SessionHandle | null;
  /** The session as #handle holds it: a trap in any call ends it (core/trap-guard.ts). */
  readonly #guard: GuardedSession;

  /** @internal Built by load() / loadPipeline() only. */
  constructor(handle: SessionHandle, config: LayaConfigSummary, warnings: readonly string[] = [],
              stored: Promise<void> = Promise.resolve()) {
    this.#guard = guardTraps(handle.session);
    this.#handle = { ...handle, session: this.#guard.session };
    this.stored = stored;
    this.simd = handle.simd ?? 'plain';
    this.backend = handle.gpu !== undefined ? 'webgpu' : 'wasm';
    this.config = config;
    this.warnings = Object.freeze([...warnings]);
  }

  get disposed(): boolean {
    return this.#handle === null;
  }

  /** The rows the request becomes: per question its token ids, marker positions and qtype. */
  async prepare(state: StateInput, questions: QuestionsInput, options?: PredictOptions): Promise<PreparedRequest> {
    return JSON.parse(await this.prepareJson(state, questions, options)) as PreparedRequest;
  }

  async prepareJson(state: StateInput, questions: QuestionsInput, options?: PredictOptions): Promise<string> {
    const what = 'prepare';
    const s = encodeState(state, what);
    const q = encodeQuestions(questions, what);
    return checkSessionResult(this.session(what).prepare(s.text, s.isJson, q, encodePredictOptions(options, what)), what);
  }

  /** The answer rebuilt from given outputs (e.g. recorded logits), without running the model. */
  async answer(state: StateInput, questions: QuestionsInput, outputs: RecordedOutputs | JsonText,
               options?: PredictOptions): Promise<LayaResponse> {
    return JSON.parse(await this.answerJson(state, questions, outputs, options)) as LayaResponse;
  }

  /** answer() as upstream's exact JSON text. */
  async answerJson(state: StateInput, questions: QuestionsInput, outputs: RecordedOutputs | JsonText,
                   options?: PredictOptions): Promise<string> {
    const what = 'answer';
    const s = encodeState(state, what);
    const q = encodeQuestions(questions, what);
    const o = toJsonText(outputs, `${what}: outputs`);
    return checkSessionResult(
      this.session(what).answer(s.text, s.isJson, q, encodePredictOptions(options, what), o), what);
  }

  /** Frees the wasm session. Idempotent; later calls throw a LayaError with code "disposed". */
  dispose(): void {
    const handle = this.#handle;
    if (handle === null) return;
    this.#handle = null;
    handle.gpu?.destroy();
    // After a trap the module's memory is not to be trusted, so its destructors are not run:
    // the module is thrown away with its session either way.
    if (this.#guard.trapped() === null) {
      handle.session.delete();
      handle.core.shutDownThreads();
    } else {
      try {
        handle.core.shutDownThreads();
      } catch {
        // It may trap again; its workers then end with the page.
      }
    }
  }

  /** The threads the forward passes run on (1 without SharedArrayBuffer; see LoadOptions.threads). */
  get threads(): number {
    return this.#handle?.core.threads() ?? 0;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    this.dispose();
  }

  [Symbol.dispose](): void {
    this.dispose();
  }

  /**
   * Runs a session method that may run forward passes: on wasm as it is; on WebGPU by replay, the
   * GPU running the batches the session waits for between runs (web/src/webgpu/gpu-session.ts).
   */
  protected async call(what: string, method: (session: LayaSessionHandle) => string, signal?: AbortSignal): Promise<string> {
    const handle = this.handle(what);
    if (handle.gpu === undefined) return method(handle.session);
    return handle.gpu.run(() => method(handle.session), what, signal);
  }

  protected session(what: string): LayaSessionHandle {
    return this.handle(what).session;
  }

  protected handle(what: string): SessionHandle {
    if (this.#handle === null) {
      throw new LayaError('disposed', `${what}: this ${this.constructor.name} was disposed; load it again`);
    }
    return this.#handle;
  }
}

export class LayaModel extends LayaPipeline {
  /** Typed decisions (laya-spec §4-5): upstream's response, parsed. */
  async predict(state: StateInput, questions: QuestionsInput, options?: PredictOptions): Promise<LayaResponse> {
    return JSON.parse(await this.predictJson(state, questions, options)) as LayaResponse;
  }

  /** predict() as upstream's exact JSON text (key order and number spelling kept). */
  async predictJson(state: StateInput, questions: QuestionsInput, options?: PredictOptions): Promise<string> {
    const what = 'predict';
    throwIfAborted(options?.signal, what);
    const s = encodeState(state, what);
    const q = encodeQuestions(questions, what);
    const o = encodePredictOptions(options, what);
    return checkSessionResult(await this.call(what, (session) => session.predict(s.text, s.isJson, q, o), options?.signal), what);
  }

  /**
   * Mean-pooled encoder embeddings (upstream embed_fn_from_agent, laya-spec §3.10), one Float32Array
   * per text (copies, not views of wasm memory). null counts as "".
   */
  async embed(texts: ReadonlyArray<string | null>, options: EmbedOptions = {}): Promise<Float32Array[]> {
    const what = 'embed';
    throwIfAborted(options.signal, what);
    const { rows, dim } = await this.runEmbed(texts, options, what);
    // Copied out of wasm memory at once (the view goes stale with the next call into the module),
    // with this realm's Float32Array rather than the module's.
    const floats = this.session(what).embedded();
    if (!ArrayBuffer.isView(floats) || floats.length !== rows * dim) {
      throw new LayaError('internal', `${what}: the wasm module returned ${floats?.length ?? 'no'} floats for ${rows} x ${dim}`);
    }
    return Array.from({ length: rows }, (_, i) => new Float32Array(floats.subarray(i * dim, (i + 1) * dim)));
  }

  /** embed() as '{"embeddings": [[...]]}', each float the shortest text that reads back as the same f32. */
  async embedJson(texts: ReadonlyArray<string | null>, options: EmbedOptions = {}): Promise<string> {
    const what = 'embed';
    throwIfAborted(options.signal, what);
    await this.runEmbed(texts, options, what);
    return checkSessionResult(this.session(what).embeddedJson(), what);
  }

  /**
   * predict_shortlist (laya-spec §5.8) as JSON text: the answer with "shortlist" after "usage".
   * predictShortlist() in shortlist.ts is the documented entry point.
   */
  async predictShortlistJson(state: StateInput, questions: QuestionsInput, options: ShortlistOptions = {}): Promise<string> {
    const what = 'predictShortlist';
    throwIfAborted(options.signal, what);
    const s = encodeState(state, what);
    const q = encodeQuestions(questions, what);
    const o = encodeShortlistOptions(options);
    return checkSessionResult(await this.call(what, (session) => session.predictShortlist(s.text, s.isJson, q, o), options.signal), what);
  }

  /**
   * A raw forward pass in the fixture format (token ids in, logits / act / pooled out): the
   * sequences packed into one batch, or with `eachAlone` each run by itself.
   */
  async forward(inputs: ForwardRequest | JsonText, options: ForwardOptions = {}): Promise<ForwardResult> {
    const what = 'forward';
    throwIfAborted(options.signal, what);
    const lengths = await this.runForward(inputs, options, what);
    // The outputs come as one Float32Array (a view of wasm memory, read at once), each value the
    // engine's f32 exactly; the lengths say where each list ends.
    const floats = this.session(what).forwarded();
    const total = [...lengths.logits, ...lengths.act, ...lengths.pooled].reduce((a, b) => a + b, 0);
    if (!ArrayBuffer.isView(floats) || floats.length !== total || lengths.logits.length !== lengths.act.length) {
      throw new LayaError('internal', `${what}: the wasm module returned ${floats?.length ?? 'no'} floats for ${total}`);
    }
    let at = 0;
    const take = (n: number): number[] => Array.from(floats.subarray(at, (at += n)));
    const expected = lengths.logits.map((n, i) => ({ logits: take(n), act: take(lengths.act[i] as number) }));
    const embedExpected = lengths.pooled.map((n) => ({ pooled: take(n) }));
    return { expected, embed_expected: embedExpected };
  }

  /** forward() as text in the fixture format, each float the shortest text that reads back as the same f32. */
  async forwardJson(inputs: ForwardRequest | JsonText, options: ForwardOptions = {}): Promise<string> {
    const what = 'forward';
    throwIfAborted(options.signal, what);
    await this.runForward(inputs, options, what);
    return checkSessionResult(this.session(what).forwardedJson(), what);
  }

  /** Runs a forward pass; the session keeps its outputs for forwarded() / forwardedJson(). */
  private async runForward(inputs: ForwardRequest | JsonText, options: ForwardOptions, what: string): Promise<ForwardLengths> {
    const text = toJsonText(inputs, `${what}: inputs`);
    const run = (session: LayaSessionHandle): string => options.eachAlone ? session.forwardEachAlone(text) : session.forward(text);
    return parseSessionJson<ForwardLengths>(await this.call(what, run, options.signal), what);
  }

  /** Bytes held: weights, activation arena, scratch, and the whole wasm memory. */
  memory(): MemoryReport {
    const report = parseSessionJson<MemoryReport>(this.session('memory').memoryReport(), 'memory');
    const gpu = this.handle('memory').gpu;
    return gpu === undefined ? report : { ...report, gpuWeightsBytes: gpu.weightBytes };
  }

  /**
   * Turns the per-step timer on (from zero) or off. While on, every forward pass adds each step's
   * time to `profile()`; it reads a clock per step, so leave it off when not measuring.
   */
  setProfiling(on: boolean): void {
    const handle = this.handle('setProfiling');
    if (handle.gpu !== undefined) handle.gpu.setProfiling(on);
    else handle.session.setProfiling(on);
  }

  /**
   * Time by step kind since profiling was turned on. On WebGPU the steps are timed by the GPU's
   * timestamps where the adapter has 'timestamp-query'; elsewhere one "gpu_batches" entry holds
   * the batches' wall time.
   */
  profile(): StepProfile {
    const handle = this.handle('profile');
    if (handle.gpu !== undefined) return handle.gpu.profile();
    return parseSessionJson<StepProfile>(handle.session.profile(), 'profile');
  }

  /**
   * @internal For the package's worker (worker/laya-worker.ts): the calls that follow stop before
   * their next step once `words[index]` holds `id` (worker/abort-words.ts); null stops watching.
   * False when the wasm module predates this (it then runs every call to the end).
   */
  watchAbort(words: Int32Array | null, index = 0, id = 0): boolean {
    const session = this.session('watchAbort');
    if (session.setAbortWatch === undefined) return false;
    session.setAbortWatch(words, index, id);
    return true;
  }

  /** Runs embed in the session, which keeps the rows; returns their count and width. */
  private async runEmbed(texts: ReadonlyArray<string | null>, options: EmbedOptions, what: string): Promise<{ rows: number; dim: number }> {
    if (!Array.isArray(texts)) throw new LayaError('invalid_request', `${what}: texts must be an array of strings`);
    const clean = texts.map((t, i) => {
      if (t === null || t === undefined) return '';
      if (typeof t !== 'string') throw new LayaError('invalid_request', `${what}: texts[${i}] is ${typeof t}, not a string`);
      return t;
    });
    // Checked where it enters the engine (LayaSession.embed), like every other request input.
    const maxLength = options.maxLength ?? 512;
    const text = JSON.stringify(clean);
    const shape = parseSessionJson<{ rows?: unknown; dim?: unknown }>(
      await this.call(what, (session) => session.embed(text, maxLength), options.signal), what);
    const rows = numberField(shape, 'rows', what);
    const dim = numberField(shape, 'dim', what);
    if (rows !== clean.length) {
      throw new LayaError('internal', `${what}: the wasm module returned ${rows} embeddings for ${clean.length} texts`);
    }
    return { rows, dim };
  }
}
