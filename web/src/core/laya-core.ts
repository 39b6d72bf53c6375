// The surface of the Emscripten module (cpp/bind/embind.cc), written by hand because Emscripten
// 3.1.6 cannot emit it (docs/toolchain.md "Emscripten 3.1.6 (Debian)"). Every session method
// takes plain values and returns a string: "" or JSON text on success,
// '{"error":{"code","message"}}' on failure; numeric results (embedded()) come as a Float32Array
// instead. The package ships the module it was built with; load() refuses any other version.

/**
 * The version of the surface declared here; the module reports its own (abiVersion()), set in
 * cpp/bind/abi_version.h: bump both together whenever the surface changes.
 */
export const kLayaCoreAbi = 2;

/** The options of the MODULARIZE factory that this package uses. */
export interface LayaCoreFactoryOptions {
  /** The .wasm bytes (Node: read with fs; Node 20's fetch breaks the 3.1.6 loader). */
  wasmBinary?: Uint8Array;
  /** Where the loader finds laya-core.wasm (browsers). */
  locateFile?: (path: string, prefix: string) => string;
  /** laya-core-mt.js only: how many pthread workers to preload (threads - 1). */
  layaWorkers?: number;
  /** laya-core-mt.js in browsers: the script its workers load (the module's own URL). */
  mainScriptUrlOrBlob?: string;
  /**
   * laya-core-mt.js: the shared memory to run in, instead of the glue's own (whose 4 GiB maximum
   * an engine may refuse; browser/shared-memory.ts).
   */
  wasmMemory?: WebAssembly.Memory;
}

/** `createLayaCore` of laya-core.js. */
export type LayaCoreFactory = (options?: LayaCoreFactoryOptions) => Promise<LayaCoreModule>;

export interface LayaCoreModule {
  /** wasm memory. Re-read after every call that may grow memory: old views go stale. */
  readonly HEAPU8: Uint8Array;
  readonly LayaSession: new () => LayaSessionHandle;
  /** `laya-wasm quantize`'s converter (docs/q8-format.md). */
  readonly LayaQuantizer: new () => LayaQuantizerHandle;
  /** The version of this surface the module implements (kLayaCoreAbi). */
  abiVersion(): number;
  /** Threads for every session's forward passes, the caller included. "" or an error. */
  setThreads(threads: number): string;
  /** The module's thread count now. */
  threads(): number;
  /** The most setThreads accepts: 1 + the preloaded workers (1 in laya-core.js). */
  availableThreads(): number;
  /** Joins and terminates the module's workers; call it when the module is thrown away. */
  shutDownThreads(): void;
  /** Which build this is (laya-core-relaxed.js / laya-core-mt-relaxed.js: "relaxed"). */
  simd(): 'relaxed' | 'plain';
}

export interface LayaSessionHandle {
  /** The four small files as text. "" on success. */
  configure(rlAgentConfig: string, encoderConfig: string, tokenizerJson: string,
            tokenizerConfig: string): string;
  /** From the first (>= 8) bytes of model.safetensors: '{"headerEnd": 8+N}'. */
  headerBytesNeeded(prefix: Uint8Array, fileSize: number): string;
  /**
   * The first headerEnd bytes: validates the header against the configs and allocates the data
   * section: '{"pointer","dataOffset","dataLength"}'. File byte i >= dataOffset goes to
   * HEAPU8[pointer + i - dataOffset].
   */
  planWeights(headerBytes: Uint8Array, fileSize: number): string;
  /**
   * Optional, as the data section arrives: its first `bytes` are written (GEMM matrices wholly in
   * them are rearranged for the kernels now, overlapping the download). "" on success.
   */
  weightsWritten(bytes: number): string;
  /**
   * planWeights that quantizes a float checkpoint to q8 while it streams in (docs/q8-format.md):
   * the plan then also has "stagePointer" and "stageBytes": the data section is written through
   * that window instead of at pointer, each window reported with weightsStaged. A q8 checkpoint
   * plans as with planWeights.
   */
  planWeightsQ8(headerBytes: Uint8Array, fileSize: number): string;
  /** planWeightsQ8 with the GEMMs on q8 weights computed in integers (LoadOptions.compute 'int8'). */
  planWeightsInt8(headerBytes: Uint8Array, fileSize: number): string;
  /** The next `bytes` of the data section are in the staging window: quantized now. "" on success. */
  weightsStaged(bytes: number): string;
  /** After every data byte is written: binds the model. "" on success. */
  finishWeights(): string;
  /**
   * Instead of planWeights, for a backend that keeps the weights itself (the WebGPU one): the
   * header is validated as planWeights does, nothing is allocated, and the result is the GpuModel
   * JSON (web/src/webgpu/program.ts). The session then answers by replay (cpp/session/outside_runs.h).
   */
  planOutside(headerBytes: Uint8Array, fileSize: number): string;
  /** A 1-D weight's bytes as the outside backend received them, checked finite as binding does. "" on success. */
  outsideCheckVector(index: number, bytes: Uint8Array): string;
  /** A graph planned for the bucket of these row counts: the GpuProgram JSON. */
  outsideProgram(graph: 'decision' | 'embedding', tokens: number, seqs: number, markers: number): string;
  /** A request starts: every supplied output is forgotten. "" on success. */
  outsideBeginRequest(): string;
  /** A run of the same request starts again. "" on success. */
  outsideBeginReplay(): string;
  /** The batches the last run waits for: JSON [{graph, index, ids, seqStarts, markers, markerStarts, qtypes}]. */
  outsidePending(): string;
  /** A pending batch's outputs: decision batches their logits then act rows, embedding batches their pooled rows. "" on success. */
  outsideSupply(graph: 'decision' | 'embedding', index: number, outputs: Float32Array): string;
  /**
   * A raw forward pass (fixture-format inputs), the sequences packed into one batch:
   * '{"logits": [n per decision], "act": [n per decision], "pooled": [n per embedding]}'; the
   * session keeps the outputs for forwarded() / forwardedJson() until the next forward.
   */
  forward(inputsJson: string): string;
  /** forward() with each sequence run alone. */
  forwardEachAlone(inputsJson: string): string;
  /** The last forward's outputs end to end (each decision's logits then act, then each embedding): a view of wasm memory, stale after the next call. */
  forwarded(): Float32Array;
  /** The last forward's outputs in the fixture format '{"expected": [{logits, act}], "embed_expected": [{pooled}]}'. */
  forwardedJson(): string;
  /** Typed decisions: upstream's answer JSON text. */
  predict(state: string, stateIsJson: boolean, questionsJson: string, optionsJson: string): string;
  /** The rows a request becomes (configure() only): '{"questions":[{qid,ids,markers,qtype}]}'. */
  prepare(state: string, stateIsJson: boolean, questionsJson: string, optionsJson: string): string;
  /** The answer rebuilt from given outputs '{"logits":[[..]],"act":[[..]]}' (configure() only). */
  answer(state: string, stateIsJson: boolean, questionsJson: string, optionsJson: string,
         outputsJson: string): string;
  /**
   * embed_fn_from_agent (laya-spec §3.10): '{"rows": n, "dim": d}'; the session keeps the n x d
   * floats for embedded() / embeddedJson() until the next embed.
   */
  embed(textsJson: string, maxLength: number): string;
  /** The last embed's rows end to end: a view of wasm memory, stale after the next call; copy it at once. */
  embedded(): Float32Array;
  /** The last embed's rows as '{"embeddings": [[...]]}', floats in the shortest text that reads back as the f32. */
  embeddedJson(): string;
  /**
   * predict_shortlist (laya-spec §5.8): the answer JSON with "shortlist" after "usage". Options
   * '{"k", "maxLength", "shape"}' (absent or null: 20, 512, "current").
   */
  predictShortlist(state: string, stateIsJson: boolean, questionsJson: string, optionsJson: string): string;
  /**
   * predict_batch (laya-spec-current §6) for a JSON array of states (a string element is a text
   * state), with predict's options: one response per state, in order, as JSON Lines.
   */
  predictBatch(statesJson: string, questionsJson: string, optionsJson: string): string;
  /** predict_long (laya-spec-current §7): predict's options plus "window", "stride", "aggregate". */
  predictLong(state: string, stateIsJson: boolean, questionsJson: string, optionsJson: string): string;
  /** predict_tournament (laya-spec-current §8): predict's options plus "group_size". */
  predictTournament(state: string, stateIsJson: boolean, questionsJson: string, optionsJson: string): string;
  /** decide (laya-spec-current §10.4): target '{"schema"?, "questions"?, "return_details"?, "min_confidence"?}'. */
  decide(state: string, stateIsJson: boolean, targetJson: string, optionsJson: string): string;
  /** decide_batch (laya-spec-current §10.5): a JSON list of what decide returns, one per state. */
  decideBatch(statesJson: string, targetJson: string, optionsJson: string): string;
  /** The parsed configs (configure() first): '{"encoder","modelName"?,"modelType","hiddenSize",...}'. */
  configSummary(): string;
  /** '{"weightsBytes","arenaBytes","wasmMemoryBytes"}'. */
  memoryReport(): string;
  /** Turns the per-step timer on (from zero) or off. */
  setProfiling(on: boolean): void;
  /** '{"runs":N,"steps":[{"kind","calls","ms","gflop"}]}' since profiling was turned on. */
  profile(): string;
  /** Load-time warnings (e.g. clamped temperatures, laya-spec §5.1) as a JSON array of strings. */
  warnings(): string;
  /**
   * The calls that follow stop before their next step, with an "aborted" error, once flags[index]
   * holds `id` (read with Atomics.load; web/src/worker/abort-words.ts); null stops watching.
   */
  setAbortWatch(flags: Int32Array | null, index: number, id: number): void;
  /** Frees everything (embind). */
  delete(): void;
}

/** The converter of `laya-wasm quantize` (cpp/bind/embind.cc LayaQuantizer). */
export interface LayaQuantizerHandle {
  /**
   * The source's first headerEnd bytes: '{"header": q8 header JSON text, "dataLength",
   * "tensors": [{name, dtype, shape, quantized, source: [b, e], values: [b, e], scales?: [b, e]}]}'
   * in data order, offsets within each file's data section.
   */
  plan(headerBytes: Uint8Array, fileSize: number): string;
  /** One matrix (its stored bytes) quantized; output() then holds its q8 values and scales. "" on success. */
  quantize(name: string, dtype: string, rows: number, cols: number, bytes: Uint8Array): string;
  /** A view of wasm memory, stale after the next call: write it at once. */
  output(): Uint8Array;
  release(): void;
  delete(): void;
}
