// The messages between a model loaded with `{ worker: true }` (its WorkerEngine, worker-engine.ts,
// on the caller's thread) and the package's worker (laya-worker.ts). Calls run in the worker one at a time in the
// order sent; every message carries the id of the call it belongs to (the load is call 0).
import type { LayaConfigSummary } from '../config-summary.js';
import type { SimdVariant } from '../core/simd.js';
import type { Backend, EngineCall } from '../engine/model-engine.js';
import type { Compute, LoadOptions, LoadProgressEvent, WasmOptions } from '../options.js';
import type { MemoryReport, StepProfile } from '../request.js';
import type { CheckpointSource } from '../sources/checkpoint-source.js';

/** The LoadOptions that can cross into a worker: no functions, URLs as absolute href strings. */
export type WorkerLoadOptions = Omit<LoadOptions, 'onProgress' | 'onWarning' | 'signal' | 'worker' | 'fetch' | 'wasm'> & {
  wasm: Omit<WasmOptions, 'factory' | 'validate'>;
};

/** What a call message asks of the worker's engine: one of its calls, or turning its profiling on or off. */
export type WorkerCall = EngineCall | { method: 'setProfiling'; on: boolean };

export type ToWorker =
  | {
    type: 'load'; id: 0; source: CheckpointSource; options: WorkerLoadOptions;
    /** The abort words (abort-words.ts), or null where SharedArrayBuffer is missing. */
    abortWords: Int32Array | null;
  }
  | ({ type: 'call'; id: number } & WorkerCall)
  /** The caller gave up on call `id`: skip it if it has not started; a load stops downloading. */
  | { type: 'abort'; id: number }
  /**
   * The model was disposed while its files were still being stored: free it, skip every call
   * not yet started, and say 'stored' when the store is done (the caller then ends the worker).
   */
  | { type: 'dispose'; id: 0 };

/** An error as it crosses: rebuilt on the caller's side as the same LayaError or AbortError. */
export interface CrossingError {
  name: string;
  code?: string;
  message: string;
  file?: string;
  url?: string;
  status?: number;
  /** Where a fault happened in the worker (an unexpected error's or an internal LayaError's cause's stack: a trap's names the wasm functions). */
  stack?: string;
}

/** What the worker's model looks like from outside, sent after the load and after every call. */
export interface ModelState {
  memory: MemoryReport;
  profile: StepProfile;
}

export interface Loaded extends ModelState {
  config: LayaConfigSummary;
  warnings: string[];
  simd: SimdVariant;
  compute: Compute;
  threads: number;
  /** Where the worker's engine runs its forward passes (LayaPipeline.backend). */
  backend: Backend;
  /** The store had nothing left to commit when the load ended (else 'stored' follows). */
  stored: boolean;
}

/**
 * A forward pass's outputs as one Float32Array (transferred, not copied) and where each list ends:
 * each decision's logits then act, then each embedding's pooled row.
 */
export interface PackedForward {
  floats: Float32Array;
  logits: number[];
  act: number[];
  pooled: number[];
}

export type FromWorker =
  /** Sent first, as soon as the worker's script runs: the caller's start deadline (worker-engine.ts) ends. */
  | { type: 'started'; id: 0 }
  | { type: 'progress'; id: 0; event: LoadProgressEvent }
  | { type: 'warning'; id: 0; message: string }
  | { type: 'loaded'; id: 0; loaded: Loaded }
  /** The store holds the load's files, or gave them up with a warning (LayaPipeline.stored). */
  | { type: 'stored'; id: 0 }
  | { type: 'result'; id: number; value: string | string[] | Float32Array[] | PackedForward | null; state: ModelState }
  | { type: 'error'; id: number; error: CrossingError };
