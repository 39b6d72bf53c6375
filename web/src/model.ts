// The loaded objects handed to callers. LayaPipeline answers from the configs and tokenizer only
// (prepare: the rows a request becomes; answer: the answer rebuilt from given outputs); LayaModel adds
// the weights: predict, embed, forward. Both check and encode every request here, on the caller's
// thread, and hand it to their engine (engine/model-engine.ts): in this thread, or in the package's
// worker. Both are built only by the load functions, ready to use; dispose() is idempotent.
import './dispose-symbols.js';
import type { LayaConfigSummary } from './config-summary.js';
import type { SimdVariant } from './core/simd.js';
import type { Backend, EncodedRequest, ModelEngine } from './engine/model-engine.js';
import type { Compute } from './options.js';
import { LayaError, throwIfAborted } from './errors.js';
import {
  encodePredictOptions, encodeQuestions, encodeState, toJsonText,
  type CallOptions, type ForwardRequest, type ForwardResult, type JsonText, type LayaResponse, type MemoryReport, type StepProfile,
  type PredictOptions, type PreparedRequest, type QuestionsInput, type RecordedOutputs, type StateInput,
} from './request.js';
import { encodeBatch, type BatchOptions } from './batch.js';
import {
  encodeDecide, encodeLongOptions, encodeStatesValue, encodeTournamentOptions,
  type DecideOptions, type DecideTarget, type DecisionResult, type LongOptions, type TournamentOptions, type TournamentResponse,
} from './helper-options.js';
import { encodeShortlistOptions, type ShortlistOptions } from './shortlist.js';

export interface EmbedOptions extends CallOptions {
  /** Tokens per text, specials included (HF truncation keeps [CLS] ... [SEP]). Default 512. */
  maxLength?: number;
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
  readonly backend: Backend;
  /** How the weight matrices multiply: 'f32', or 'int8' on q8 weights (LoadOptions.compute). */
  readonly compute: Compute;
  /**
   * Settles once the store (options.cache) holds every file this load downloaded: the store's
   * commit (the last writes, a flush to disk, the record) runs after load() resolves, so the model
   * is usable at once. A page closed before then leaves no entry (the next visit downloads again).
   * Settles at once where nothing was stored. Never rejects: a file that could not be stored is a
   * warning (onWarning). Disposing the model does not stop the commit.
   */
  readonly stored: Promise<void>;
  #engine: ModelEngine | null;

  /** @internal Built by the load functions only. */
  constructor(engine: ModelEngine, config: LayaConfigSummary, warnings: readonly string[] = []) {
    this.#engine = engine;
    this.stored = engine.stored;
    this.simd = engine.simd;
    this.backend = engine.backend;
    this.compute = engine.compute;
    this.config = config;
    this.warnings = Object.freeze([...warnings]);
  }

  get disposed(): boolean {
    return this.#engine === null;
  }

  /** The threads the forward passes run on (1 without SharedArrayBuffer; see LoadOptions.threads); 0 once disposed. */
  get threads(): number {
    return this.#engine?.threads() ?? 0;
  }

  /** The rows the request becomes: per question its token ids, marker positions and qtype. */
  async prepare(state: StateInput, questions: QuestionsInput, options?: PredictOptions): Promise<PreparedRequest> {
    return JSON.parse(await this.prepareJson(state, questions, options)) as PreparedRequest;
  }

  /** prepare() as the engine's JSON text. */
  async prepareJson(state: StateInput, questions: QuestionsInput, options?: PredictOptions): Promise<string> {
    const what = 'prepare';
    const request = encodeRequest(state, questions, () => encodePredictOptions(options, what), what);
    return this.engine(what).run({ method: 'prepare', request });
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
    const request = encodeRequest(state, questions, () => encodePredictOptions(options, what), what);
    const text = toJsonText(outputs, `${what}: outputs`);
    return this.engine(what).run({ method: 'answer', request, outputs: text });
  }

  /**
   * Frees the model (its wasm module, memory and threads; with `worker: true`, the worker). Calls
   * still waiting reject as disposed. Idempotent; later calls throw a LayaError with code "disposed".
   */
  dispose(): void {
    const engine = this.#engine;
    if (engine === null) return;
    this.#engine = null;
    engine.dispose();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    this.dispose();
  }

  [Symbol.dispose](): void {
    this.dispose();
  }

  /** The engine, or a "disposed" LayaError naming the call. */
  protected engine(what: string): ModelEngine {
    if (this.#engine === null) {
      throw new LayaError('disposed', `${what}: this ${this.constructor.name} was disposed; load it again`);
    }
    return this.#engine;
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
    const request = encodeRequest(state, questions, () => encodePredictOptions(options, what), what);
    return this.engine(what).run({ method: 'predict', request }, options?.signal);
  }

  /**
   * Upstream's predict_batch (laya-spec-current §6): one response per state, in input order, each
   * the response predict() gives that state alone. The rows of `batchSize` states share forward
   * passes; progress comes per chunk, and an abort stops before the next chunk (or, where the
   * engine can stop mid-pass, before its next step).
   */
  async predictBatch(states: readonly StateInput[], questions: QuestionsInput, options?: BatchOptions): Promise<LayaResponse[]> {
    return (await this.predictBatchJson(states, questions, options)).map((text) => JSON.parse(text) as LayaResponse);
  }

  /** predictBatch() as upstream's exact JSON texts (key order and number spelling kept). */
  async predictBatchJson(states: readonly StateInput[], questions: QuestionsInput, options?: BatchOptions): Promise<string[]> {
    const texts: string[] = [];
    for await (const text of this.predictEachJson(states, questions, options)) texts.push(text);
    return texts;
  }

  /**
   * predictBatch() as an async iterator: each state's response as soon as its chunk is answered,
   * in input order, so a page can show the first answers of a long list while the rest run.
   */
  async *predictEach(states: readonly StateInput[], questions: QuestionsInput, options?: BatchOptions): AsyncGenerator<LayaResponse> {
    for await (const text of this.predictEachJson(states, questions, options)) yield JSON.parse(text) as LayaResponse;
  }

  /** predictEach() as upstream's exact JSON texts. */
  async *predictEachJson(states: readonly StateInput[], questions: QuestionsInput, options?: BatchOptions): AsyncGenerator<string> {
    const what = 'predictBatch';
    const signal = options?.signal;
    throwIfAborted(signal, what);
    const batch = encodeBatch(states, questions, options, what);
    const encodedOptions = encodePredictOptions(options, what);
    let done = 0;
    for (const chunk of batch.chunks) {
      throwIfAborted(signal, what);
      const answers = await this.engine(what).run({ method: 'predictBatch', states: chunk.states, questions: batch.questions, options: encodedOptions }, signal);
      if (answers.length !== chunk.count) {
        throw new LayaError('internal', `${what}: the engine answered ${answers.length} states of a chunk of ${chunk.count}`);
      }
      done += answers.length;
      options?.onProgress?.({ done, total: states.length });
      yield* answers;
    }
  }

  /**
   * Upstream's predict_long (laya-spec-current §7): a state longer than one sequence holds is read
   * in overlapping windows of its tokens, each decoded back to text (the tokenizer's decode, as
   * Hugging Face's) and answered; per question the most confident window's answer is kept whole,
   * with a `window` member, and `usage` merges the windows' (`truncated` becomes a count, `windows`
   * is added). A state that fits is one predict with `usage.windows` 1.
   */
  async predictLong(state: StateInput, questions: QuestionsInput, options?: LongOptions): Promise<LayaResponse> {
    return JSON.parse(await this.predictLongJson(state, questions, options)) as LayaResponse;
  }

  /** predictLong() as upstream's exact JSON text. */
  async predictLongJson(state: StateInput, questions: QuestionsInput, options?: LongOptions): Promise<string> {
    const what = 'predictLong';
    throwIfAborted(options?.signal, what);
    const request = encodeRequest(state, questions, () => encodeLongOptions(options, what), what);
    return this.engine(what).run({ method: 'predictLong', request }, options?.signal);
  }

  /**
   * Upstream's predict_tournament (laya-spec-current §8): choices with more than `groupSize` labels
   * (default 16) answered in knockout rounds, one call per round, then a final call with the
   * finalists; the response has "tournament" after "usage".
   */
  async predictTournament(state: StateInput, questions: QuestionsInput, options?: TournamentOptions): Promise<TournamentResponse> {
    return JSON.parse(await this.predictTournamentJson(state, questions, options)) as TournamentResponse;
  }

  /** predictTournament() as upstream's exact JSON text. */
  async predictTournamentJson(state: StateInput, questions: QuestionsInput, options?: TournamentOptions): Promise<string> {
    const what = 'predictTournament';
    throwIfAborted(options?.signal, what);
    const request = encodeRequest(state, questions, () => encodeTournamentOptions(options, what), what);
    return this.engine(what).run({ method: 'predictTournament', request }, options?.signal);
  }

  /**
   * Upstream's decide (laya-spec-current §10.4): a JSON schema's properties become questions (enum:
   * a choice or noul, boolean: a noul, integer with minimum/maximum: a score) and the answers come
   * back as typed values; or `{ questions }` answered as they are. `returnDetails` gives
   * upstream's DecisionResult.
   */
  async decide(state: StateInput, target: DecideTarget, options?: DecideOptions): Promise<Record<string, unknown> | DecisionResult> {
    return JSON.parse(await this.decideJson(state, target, options)) as Record<string, unknown> | DecisionResult;
  }

  /** decide() as upstream's exact JSON text. */
  async decideJson(state: StateInput, target: DecideTarget, options?: DecideOptions): Promise<string> {
    const what = 'decide';
    throwIfAborted(options?.signal, what);
    const encodedState = encodeState(state, what);
    const encoded = encodeDecide(target, options, what);
    return this.engine(what).run({ method: 'decide', state: encodedState, ...encoded }, options?.signal);
  }

  /** Upstream's decide_batch (laya-spec-current §10.5): decide() for each state, one batch underneath. */
  async decideBatch(states: readonly StateInput[], target: DecideTarget, options?: DecideOptions): Promise<Array<Record<string, unknown> | DecisionResult>> {
    return JSON.parse(await this.decideBatchJson(states, target, options)) as Array<Record<string, unknown> | DecisionResult>;
  }

  /** decideBatch() as upstream's exact JSON text (a list). */
  async decideBatchJson(states: readonly StateInput[], target: DecideTarget, options?: DecideOptions): Promise<string> {
    const what = 'decideBatch';
    throwIfAborted(options?.signal, what);
    const encoded = encodeDecide(target, options, what);
    return this.engine(what).run({ method: 'decideBatch', states: encodeStatesValue(states, what), ...encoded }, options?.signal);
  }

  /**
   * Mean-pooled encoder embeddings (upstream embed_fn_from_agent, laya-spec §3.10), one Float32Array
   * per text (copies, not views of wasm memory). null counts as "".
   */
  async embed(texts: ReadonlyArray<string | null>, options: EmbedOptions = {}): Promise<Float32Array[]> {
    const what = 'embed';
    throwIfAborted(options.signal, what);
    const call = { texts: encodeTexts(texts, what), maxLength: options.maxLength ?? 512 };
    return this.engine(what).run({ method: 'embed', ...call }, options.signal);
  }

  /** embed() as '{"embeddings": [[...]]}', each float the shortest text that reads back as the same f32. */
  async embedJson(texts: ReadonlyArray<string | null>, options: EmbedOptions = {}): Promise<string> {
    const what = 'embed';
    throwIfAborted(options.signal, what);
    const call = { texts: encodeTexts(texts, what), maxLength: options.maxLength ?? 512 };
    return this.engine(what).run({ method: 'embedJson', ...call }, options.signal);
  }

  /**
   * predict_shortlist (laya-spec §5.8) as JSON text: the answer with "shortlist" after "usage".
   * predictShortlist() in shortlist.ts is the documented entry point.
   */
  async predictShortlistJson(state: StateInput, questions: QuestionsInput, options: ShortlistOptions = {}): Promise<string> {
    const what = 'predictShortlist';
    throwIfAborted(options.signal, what);
    const request = encodeRequest(state, questions, () => encodeShortlistOptions(options), what);
    return this.engine(what).run({ method: 'predictShortlist', request }, options.signal);
  }

  /**
   * A raw forward pass in the fixture format (token ids in, logits / act / pooled out): the
   * sequences packed into one batch, or with `eachAlone` each run by itself.
   */
  async forward(inputs: ForwardRequest | JsonText, options: ForwardOptions = {}): Promise<ForwardResult> {
    const what = 'forward';
    throwIfAborted(options.signal, what);
    const call = { inputs: toJsonText(inputs, `${what}: inputs`), eachAlone: options.eachAlone === true };
    return this.engine(what).run({ method: 'forward', ...call }, options.signal);
  }

  /** forward() as text in the fixture format, each float the shortest text that reads back as the same f32. */
  async forwardJson(inputs: ForwardRequest | JsonText, options: ForwardOptions = {}): Promise<string> {
    const what = 'forward';
    throwIfAborted(options.signal, what);
    const call = { inputs: toJsonText(inputs, `${what}: inputs`), eachAlone: options.eachAlone === true };
    return this.engine(what).run({ method: 'forwardJson', ...call }, options.signal);
  }

  /**
   * Bytes held: weights, activation arena, scratch, and the whole wasm memory (and the GPU's
   * weights on WebGPU). With `worker: true`, as of the last call answered.
   */
  memory(): MemoryReport {
    return this.engine('memory').memory();
  }

  /**
   * Turns the per-step timer on (from zero) or off. While on, every forward pass adds each step's
   * time to `profile()`; it reads a clock per step, so leave it off when not measuring.
   */
  setProfiling(on: boolean): void {
    this.engine('setProfiling').setProfiling(on);
  }

  /**
   * Time by step kind since profiling was turned on. On WebGPU the steps are timed by the GPU's
   * timestamps where the adapter has 'timestamp-query'; elsewhere one "gpu_batches" entry holds
   * the batches' wall time. With `worker: true`, as of the last call answered.
   */
  profile(): StepProfile {
    return this.engine('profile').profile();
  }
}

/** A request checked and encoded as every engine reads it, so a bad one fails here, wherever the model runs. */
function encodeRequest(state: StateInput, questions: QuestionsInput, options: () => string, what: string): EncodedRequest {
  // In this order, so that a request bad in several places names the same fault as upstream's.
  const encodedState = encodeState(state, what);
  const encodedQuestions = encodeQuestions(questions, what);
  return { state: encodedState, questions: encodedQuestions, options: options() };
}

/** The texts to embed as a JSON array of strings (null counts as ""). */
function encodeTexts(texts: ReadonlyArray<string | null>, what: string): string {
  if (!Array.isArray(texts)) throw new LayaError('invalid_request', `${what}: texts must be an array of strings`);
  const clean = texts.map((t: unknown, i) => {
    if (t === null || t === undefined) return '';
    if (typeof t !== 'string') throw new LayaError('invalid_request', `${what}: texts[${i}] is ${typeof t}, not a string`);
    return t;
  });
  return JSON.stringify(clean);
}
