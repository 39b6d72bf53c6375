// How predict / prepare / answer inputs travel to the engine. JSON text passes through untouched
// ({ json }) so key order and number spelling survive (laya-spec §7.13: JS reorders integer-like keys
// and prints 1.0 as 1); JS values are serialised with JSON.stringify.
import { LayaError } from './errors.js';

/**
 * Raw JSON text, passed to the engine as written: give the state or the questions as `{ json: text }`
 * to keep key order and number spelling exactly (JavaScript objects reorder integer-like keys and
 * print 1.0 as 1).
 */
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
  /** "current" shape: slot s of the sequence carries option option_order[s] (a permutation of 0..n-1). */
  option_order?: number[];
}

/** Questions keyed by id, answered in insertion order (use { json } to keep integer-like ids in order). */
export type QuestionsInput = Record<string, Question> | JsonText;

/** A state: text (used verbatim), any JSON value, or { json } text (a JSON value kept as written). */
export type StateInput = string | JsonText | unknown;

/**
 * Which of upstream's response shapes to write: "current" (upstream's main line, 0.3.22 to
 * 0.4.0-dev: usage's truncation keys, legend values as text, its stricter checks, `option_order`),
 * "0.3.21" (the upstream laya-wasm was built from) or "0.3.7" (the older shape of the parity
 * fixtures: no `answer_confidence`, no `usage.options`).
 */
export type ResponseShape = 'current' | '0.3.21' | '0.3.7';

/** Options of predict(), prepare(), answer() and their *Json twins. */
export interface PredictOptions {
  /** Default "current"; see ResponseShape. */
  shape?: ResponseShape;
  /**
   * Upstream's `min_confidence` gate: a threshold in [0, 1], or one per bucket
   * (`{"choice:3-5": 0.6, "default": 0.4}`); answers then carry `abstention` and
   * `abstention_threshold`, and `low_confidence: true` below it.
   */
  minConfidence?: number | Record<string, number>;
  /** This call's `max_len` (1 to 8192); default the checkpoint's. */
  maxLen?: number;
  /** This call's `head_max_len` (1 to 8192); default the checkpoint's. */
  headMaxLen?: number;
  /** The language whose `langTemperatures` entry calibrates this call ("de", "pt-BR", ...). */
  lang?: string;
  /** Per-language temperatures: `{ lang: { temperature?: [choice, score, noul], temperature_by_options?: {bucket: t} } | null }`. */
  langTemperatures?: Record<string, LangTemperatureOverride | null>;
  /**
   * "current" only: upstream #687's usage form. `false` gives `truncated` and
   * `truncated_questions` alone, `true` adds the counts after them; absent keeps the main line's.
   */
  stateTokenCounts?: boolean;
  /** Cancels the call: see CallOptions.signal. */
  signal?: AbortSignal;
}

/** One language's temperatures (null values take the checkpoint's). */
export interface LangTemperatureOverride {
  temperature?: [number, number, number] | null;
  temperature_by_options?: Record<string, number> | null;
}

/**
 * What every call that runs the model accepts: predict, embed, forward, predictShortlist and their
 * *Json twins.
 */
export interface CallOptions {
  /**
   * Aborting rejects the call with an AbortError and leaves the model ready: the next call answers
   * exactly as it would have. An abort before the call starts rejects at once and runs nothing.
   * During a forward pass: with `{ worker: true }` the call rejects at once; where
   * SharedArrayBuffer exists (cross-origin-isolated pages) the engine also stops before its next
   * step (it reads an abort word the page writes into shared memory), so the next call starts at
   * once; elsewhere the worker finishes that pass, drops its result and then takes the next call.
   * Without a worker the pass holds the calling thread, so no abort can arrive while it runs.
   */
  signal?: AbortSignal;
}

/** Tokens a request used (laya-spec §4.5). */
export interface Usage {
  /** Tokens of every question's sequence together. */
  input_tokens: number;
  /** Always 0: the model generates no text. */
  output_tokens: number;
  /** "current" shape: the state's tokens before any cut. */
  state_tokens?: number;
  /** "current" shape: the most state tokens any question's sequence could not hold. */
  state_tokens_dropped?: number;
  /** "current" shape: whether any question saw a cut state. */
  truncated?: boolean;
  /** "current" shape: the ids of the questions that saw a cut state, in question order. */
  truncated_questions?: string[];
  /** Per question, its options' token counts (current shape only). */
  options?: Record<string, { total: number; distinct: number; tokens_per_option: number }>;
}

/** The answer to a `choice` question (laya-spec §5.3-5.5); numbers rounded to 4 places. */
export interface ChoiceAnswer {
  type: 'choice';
  /** The label of the largest probability (the first one on a tie). */
  choice: string;
  /** Each label's calibrated probability, in option order. */
  probabilities: Record<string, number>;
  /** 1 − normalized entropy of the probabilities (not calibrated). */
  confidence: number;
  /** The largest probability (current shape only): what temperature scaling calibrates. */
  answer_confidence?: number;
  /** The act head's first probability. */
  action: { act_probability: number };
}
/** The answer to a `score` question (laya-spec §5.3-5.5); numbers rounded to 4 places. */
export interface ScoreAnswer {
  type: 'score';
  /** The expected level, Σ i·p_i. */
  score: number;
  /** The levels as sent, keyed "0", "1", ... */
  legend: Record<string, unknown>;
  /** Each level's calibrated probability, keyed "0", "1", ... */
  probabilities: Record<string, number>;
  /** 1 − normalized entropy of the probabilities (not calibrated). */
  confidence: number;
  /** The largest probability (current shape only). */
  answer_confidence?: number;
  /** The act head's first probability. */
  action: { act_probability: number };
}
/** The answer to a `noul` (true / false) question (laya-spec §5.3-5.5); numbers rounded to 4 places. */
export interface NoulAnswer {
  type: 'noul';
  /** The probability that the statement holds. */
  noul: number;
  /** max(p, 1 − p). */
  confidence: number;
  /** The same as confidence (current shape only). */
  answer_confidence?: number;
  /** The act head's first probability. */
  action: { act_probability: number };
}
/** What the `minConfidence` gate writes on every answer, after `action`. */
export interface GateFields {
  /** Present (true) only when the answer is below its threshold. */
  low_confidence?: true;
  abstention?: 'abstained' | 'passed' | 'unevaluated';
  abstention_threshold?: number;
}
/** One question's answer, by its type. */
export type Answer = (ChoiceAnswer | ScoreAnswer | NoulAnswer) & GateFields;

/** Upstream's response (laya-spec §5.7). Use the *Json methods for the exact text (key order, 1.0). */
export interface LayaResponse {
  /** "laya-rl-agent". */
  model: string;
  /** Per question id, in the order the questions were given. */
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

/**
 * The fixture format of a raw forward pass: per decision sequence its token ids, marker positions
 * and question type (laya-spec §4.4); per embedded text its token ids.
 */
export interface ForwardRequest {
  inputs: Array<{ ids: number[]; markers: number[]; qtype: number }>;
  embed_inputs?: Array<{ ids: number[] }>;
}
/** What a raw forward pass computes: per decision sequence its logits and act logits; per text its pooled embedding. */
export interface ForwardResult {
  expected: Array<{ logits: number[]; act: number[] }>;
  embed_expected: Array<{ pooled: number[] }>;
}

/** Bytes a model holds (LayaModel.memory()). */
export interface MemoryReport {
  /** Weights in wasm memory (0 on WebGPU, where they live on the GPU). */
  weightsBytes: number;
  /** The one region runs work in: activations as the planner laid them out, then the kernels' scratch. */
  arenaBytes: number;
  /** The whole wasm memory. */
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

const kShapes: readonly string[] = ['current', '0.3.21', '0.3.7'];

// The engine's key for each option (upstream's keyword names); undefined options are left out.
const kEngineKeys = {
  shape: 'shape',
  minConfidence: 'min_confidence',
  maxLen: 'max_len',
  headMaxLen: 'head_max_len',
  lang: 'lang',
  langTemperatures: 'lang_temperatures',
  stateTokenCounts: 'state_token_counts',
} as const;

export function encodePredictOptions(options: PredictOptions | undefined, what: string): string {
  const shape = options?.shape;
  if (shape !== undefined && !kShapes.includes(shape)) {
    throw new LayaError('invalid_request', `${what}: shape must be "current", "0.3.21" or "0.3.7", got ${JSON.stringify(shape)}`);
  }
  const gate = options?.minConfidence;
  if (typeof gate === 'number' && !Number.isFinite(gate)) {
    // JSON has no NaN or Infinity: refused here with upstream's words (Python's repr of the float).
    const shown = Number.isNaN(gate) ? 'nan' : gate > 0 ? 'inf' : '-inf';
    throw new LayaError('invalid_request', `min_confidence must be a float in [0.0, 1.0], got ${shown}`);
  }
  const engine: Record<string, unknown> = {};
  for (const [key, engineKey] of Object.entries(kEngineKeys)) {
    const value = options?.[key as keyof typeof kEngineKeys];
    if (value !== undefined) engine[engineKey] = value;
  }
  return toJsonText(engine, `${what}: options`);
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
