// How predict / prepare / answer inputs travel to the engine. JSON text passes through untouched
// ({ json }) so key order and number spelling survive (laya-spec §7.13: JS reorders integer-like keys
// and prints 1.0 as 1); JS values are serialised with JSON.stringify.
import { LayaError } from './errors.js';

/** Raw JSON text, passed to the engine as written. */
export interface JsonText {
  json: string;
}

/** A question (laya-spec §4.1). */
export interface Question {
  type: 'choice' | 'score' | 'noul';
  /** Usually a string; any other JSON value is rendered as Python's json.dumps. */
  instructions: unknown;
  /** choice: { label: description | null } or [labels]; score: [level descriptions]; noul: { true?, false? }. */
  criteria?: unknown;
  /** noul only (current shape): replace the words "false" / "true". */
  labels?: { false: string; true: string };
}

/** Questions keyed by id, answered in insertion order (use { json } to keep integer-like ids in order). */
export type QuestionsInput = Record<string, Question> | JsonText;

/** A state: text (used verbatim), any JSON value, or { json } text (a JSON value kept as written). */
export type StateInput = string | JsonText | unknown;

export type ResponseShape = 'current' | '0.3.7';

export interface PredictOptions {
  /** "current" (default): upstream's newest fields; "0.3.7": the shape of the parity fixtures. */
  shape?: ResponseShape;
  /** Cancels the call: see CallOptions.signal. */
  signal?: AbortSignal;
}

/** What every call that runs the model (predict, embed, forward, the shortlist) accepts. */
export interface CallOptions {
  /**
   * Aborting rejects the call with an AbortError and leaves the model ready for the next call. An
   * abort before the call starts rejects at once. During a forward pass: with `{ worker: true }` the
   * call rejects at once and the engine stops before its next step where SharedArrayBuffer exists
   * (cross-origin-isolated pages); elsewhere the worker finishes that pass, drops its result
   * and then takes the next call. Without a worker the pass holds the calling thread, so no abort
   * can arrive while it runs.
   */
  signal?: AbortSignal;
}

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  options?: Record<string, { total: number; distinct: number; tokens_per_option: number }>;
}

export interface ChoiceAnswer {
  type: 'choice';
  choice: string;
  probabilities: Record<string, number>;
  confidence: number;
  answer_confidence?: number;
  action: { act_probability: number };
}
export interface ScoreAnswer {
  type: 'score';
  score: number;
  legend: Record<string, unknown>;
  probabilities: Record<string, number>;
  confidence: number;
  answer_confidence?: number;
  action: { act_probability: number };
}
export interface NoulAnswer {
  type: 'noul';
  noul: number;
  confidence: number;
  answer_confidence?: number;
  action: { act_probability: number };
}
export type Answer = ChoiceAnswer | ScoreAnswer | NoulAnswer;

/** Upstream's response (laya-spec §5.7). Use the *Json methods for the exact text (key order, 1.0). */
export interface LayaResponse {
  model: string;
  answers: Record<string, Answer>;
  usage: Usage;
}

/** The rows a request becomes (laya-spec §4.4). */
export interface PreparedRequest {
  questions: Array<{ qid: string; ids: number[]; markers: number[]; qtype: number }>;
}

/** Model outputs per question, to rebuild an answer without running the model. */
export interface RecordedOutputs {
  logits: number[][];
  act: number[][];
}

/** The fixture format of a raw forward pass. */
export interface ForwardRequest {
  inputs: Array<{ ids: number[]; markers: number[]; qtype: number }>;
  embed_inputs?: Array<{ ids: number[] }>;
}
export interface ForwardResult {
  expected: Array<{ logits: number[]; act: number[] }>;
  embed_expected: Array<{ pooled: number[] }>;
}

export interface MemoryReport {
  /** Weights in wasm memory (0 on WebGPU, where they live on the GPU). */
  weightsBytes: number;
  /** The one region runs work in: activations as the planner laid them out, then the kernels' scratch. */
  arenaBytes: number;
  wasmMemoryBytes: number;
  /** backend 'webgpu': the weights' bytes in GPU buffers. */
  gpuWeightsBytes?: number;
}

/** Time by step kind over the runs since `setProfiling(true)` (both graphs summed). */
export interface StepProfile {
  runs: number;
  steps: Array<{
    /** "gemm", "attention", "layer_norm", "geglu", "rope", "embed", ... */
    kind: string;
    calls: number;
    ms: number;
    /** Arithmetic done, in GFLOP: 2·m·n·k per GEMM, 4·64 per visible (query, key) pair per head; 0 elsewhere. */
    gflop: number;
  }>;
  /**
   * backend 'webgpu': the kernels chosen and what the profiled runs recorded (dispatches, compute
   * passes, queue submits; the GEMM kernels by key with their dispatches). While profiling with
   * timestamps each step has its own pass; outside profiling a run is one pass.
   */
  gpu?: {
    gemm: string;
    shaderF16: boolean;
    gemmKernels: Record<string, number>;
    runs: number;
    dispatches: number;
    passes: number;
    submits: number;
  };
}

export function isJsonText(value: unknown): value is JsonText {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return keys.length === 1 && keys[0] === 'json' && typeof (value as JsonText).json === 'string';
}

export interface EncodedState {
  text: string;
  isJson: boolean;
}

export function encodeState(state: StateInput, what: string): EncodedState {
  if (typeof state === 'string') return { text: state, isJson: false };
  if (isJsonText(state)) return { text: state.json, isJson: true };
  return { text: toJsonText(state, `${what}: state`), isJson: true };
}

export function encodeQuestions(questions: QuestionsInput, what: string): string {
  if (isJsonText(questions)) return questions.json;
  if (typeof questions !== 'object' || questions === null || Array.isArray(questions)) {
    throw new LayaError('invalid_request', `${what}: questions must be an object keyed by question id (or { json })`);
  }
  return toJsonText(questions, `${what}: questions`);
}

export function encodePredictOptions(options: PredictOptions | undefined, what: string): string {
  const shape = options?.shape;
  if (shape === undefined) return '{}';
  if (shape !== 'current' && shape !== '0.3.7') {
    throw new LayaError('invalid_request', `${what}: shape must be "current" or "0.3.7", got ${JSON.stringify(shape)}`);
  }
  return JSON.stringify({ shape });
}

export function toJsonText(value: unknown, what: string): string {
  if (isJsonText(value)) return value.json;
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    throw new LayaError('invalid_request', `${what} cannot be written as JSON: ${(error as Error).message}`);
  }
  if (text === undefined) throw new LayaError('invalid_request', `${what} is ${typeof value}, not a JSON value`);
  return text;
}
