// Where a loaded model runs: the seam between LayaModel (which checks and encodes every request on
// the caller's thread, so a bad request fails with the same message wherever the model runs) and
// what answers it. Two engines implement it: InThreadEngine (the wasm module and its session on this
// thread, the forward passes on wasm or WebGPU) and WorkerEngine (the package's worker, which holds
// an InThreadEngine of its own). load() chooses one, once.
import type { SimdVariant } from '../core/simd.js';
import type { Compute } from '../options.js';
import type { EncodedState, ForwardResult, MemoryReport, StepProfile } from '../request.js';

/** The backend the forward passes run on. */
export type Backend = 'wasm' | 'webgpu';

/** A request encoded for the engine: the state, the questions as JSON text, the options as JSON text. */
export interface EncodedRequest {
  state: EncodedState;
  questions: string;
  options: string;
}

/** What each call takes (besides its name), by name. */
interface CallArguments {
  prepare: { request: EncodedRequest };
  answer: { request: EncodedRequest; outputs: string };
  predict: { request: EncodedRequest };
  /** request.options are the shortlist's own ({k, maxLength, shape}). */
  predictShortlist: { request: EncodedRequest };
  /** states: a JSON array of states (a string element is a text state); options as predict's. */
  predictBatch: { states: string; questions: string; options: string };
  /** request.options: predict's with "window", "stride", "aggregate". */
  predictLong: { request: EncodedRequest };
  /** request.options: predict's with "group_size". */
  predictTournament: { request: EncodedRequest };
  /** target: {"schema"?, "questions"?, "return_details"?, "min_confidence"?}; options: predict's without a gate. */
  decide: { state: EncodedState; target: string; options: string };
  decideBatch: { states: string; target: string; options: string };
  /** texts: a JSON array of strings. */
  embed: { texts: string; maxLength: number };
  embedJson: { texts: string; maxLength: number };
  /** inputs: fixture-format JSON text. */
  forward: { inputs: string; eachAlone: boolean };
  forwardJson: { inputs: string; eachAlone: boolean };
}

/** What each call resolves to, by name. */
export interface CallResults {
  prepare: string;
  answer: string;
  predict: string;
  predictShortlist: string;
  /** One response JSON text per state, in order. */
  predictBatch: string[];
  predictLong: string;
  predictTournament: string;
  decide: string;
  decideBatch: string;
  /** One row per text: copies, never views of wasm memory. */
  embed: Float32Array[];
  embedJson: string;
  forward: ForwardResult;
  forwardJson: string;
}

export type CallName = keyof CallArguments;

/** One call, as plain data (it crosses to the package's worker unchanged). */
export type EngineCall<M extends CallName = CallName> = { [K in M]: { method: K } & CallArguments[K] }[M];

export interface ModelEngine {
  /** The module build running (LayaPipeline.simd). */
  readonly simd: SimdVariant;
  /** How the weight matrices multiply (LayaPipeline.compute). */
  readonly compute: Compute;
  readonly backend: Backend;
  /** Settles when the store (options.cache) holds the load's files (LayaPipeline.stored); never rejects. */
  readonly stored: Promise<void>;
  /** The threads the forward passes run on. */
  threads(): number;
  /** Runs one call; rejects with a LayaError, or an AbortError once `signal` aborts. */
  run<M extends CallName>(call: EngineCall<M>, signal?: AbortSignal): Promise<CallResults[M]>;
  memory(): MemoryReport;
  setProfiling(on: boolean): void;
  profile(): StepProfile;
  /** Frees everything the engine holds. The model calls it once. */
  dispose(): void;
}

/** A call's name as the model's caller knows it, for messages: embedJson's is embed. */
export function callerName(method: CallName): string {
  return method.replace(/Json$/, '');
}
