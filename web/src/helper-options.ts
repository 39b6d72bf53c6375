// The options of upstream's helpers built on predict (laya-spec-current §7, §8, §10) and how each
// crosses to the engine: predictLong (windows over a long state), predictTournament (knockout
// rounds for choices with many labels), decide / decideBatch (a JSON schema answered as typed
// values). The engine (cpp/decide/long_state.h, tournament.h, structured.h) checks every value and
// words its errors as upstream does; this side only carries them.
import { stateElement } from './batch.js';
import { encodePredictOptions, toJsonText, type LayaResponse, type PredictOptions, type StateInput } from './request.js';

/** predictLong's options: predict's without a gate or budgets (the checkpoint's always apply, §7.1). */
export interface LongOptions extends Omit<PredictOptions, 'minConfidence' | 'maxLen' | 'headMaxLen'> {
  /** Tokens per window; default max(64, max_len - head_max_len - 8), cut to the room the questions leave. */
  window?: number;
  /** Tokens between window starts; default half the window. */
  stride?: number;
  /** Upstream's only aggregation: per question, the most confident window's answer. */
  aggregate?: 'auto';
}

/** Where a predictLong answer came from (its "window" member). */
export interface AnswerWindow {
  index: number;
  token_start: number;
  token_end: number;
  count: number;
}

export interface TournamentOptions extends PredictOptions {
  /** Labels per group in each round (an integer of at least 2). Default 16. */
  groupSize?: number;
}

/** One choice question's tournament (the response's "tournament" entry). */
export interface TournamentEntry {
  /** The finalists, in criteria order. */
  labels: string[];
  /** Labels the question had. */
  n: number;
  rounds: number;
}

export type TournamentResponse = LayaResponse & { tournament: Record<string, TournamentEntry> };

/** What decide answers: a JSON schema (its properties become questions), or questions as they are. */
/** A value or { json } text (kept as written). */
export type DecideTarget = { schema: unknown } | { questions: unknown };

export interface DecideOptions extends PredictOptions {
  /** Return upstream's DecisionResult instead of the values alone. */
  returnDetails?: boolean;
}

/** decide's DecisionResult (returnDetails: true). */
export interface DecisionResult {
  values: Record<string, unknown>;
  confidence: Record<string, number | null>;
  probabilities: Record<string, Record<string, number>>;
  answers: LayaResponse['answers'];
  usage: LayaResponse['usage'] | null;
  routing: unknown;
  answer_confidence: Record<string, number | null>;
}

export function encodeLongOptions(options: LongOptions | undefined, what: string): string {
  const extra: Record<string, unknown> = {};
  if (options?.window !== undefined) extra['window'] = options.window;
  if (options?.stride !== undefined) extra['stride'] = options.stride;
  if (options?.aggregate !== undefined) extra['aggregate'] = options.aggregate;
  return withMembers(encodePredictOptions(options, what), extra, what);
}

export function encodeTournamentOptions(options: TournamentOptions | undefined, what: string): string {
  return withMembers(encodePredictOptions(options, what), options?.groupSize === undefined ? {} : { group_size: options.groupSize }, what);
}

/**
 * decide's target (schema or questions, details, the gate) and predict's options without the gate.
 * A schema or questions given as { json } text cross as written (number spelling, key order).
 */
export function encodeDecide(target: DecideTarget, options: DecideOptions | undefined, what: string): { target: string; options: string } {
  const given = (typeof target === 'object' && target !== null ? target : {}) as Partial<Record<'schema' | 'questions', unknown>>;
  const members: string[] = [];
  for (const key of ['schema', 'questions'] as const) {
    if (given[key] !== undefined) members.push(`"${key}": ${toJsonText(given[key], `${what}: ${key}`)}`);
  }
  if (options?.returnDetails !== undefined) members.push(`"return_details": ${options.returnDetails === true}`);
  if (options?.minConfidence !== undefined) members.push(`"min_confidence": ${toJsonText(options.minConfidence, `${what}: minConfidence`)}`);
  // The gate's own checks (a NaN refused in upstream's words) run here as predict's do.
  encodePredictOptions(options, what);
  const { minConfidence: _gate, ...predictOptions } = options ?? {};
  return { target: `{${members.join(', ')}}`, options: encodePredictOptions(predictOptions, what) };
}

/** decideBatch's states as JSON: a list's elements as predictBatch sends them; anything else as it is, for the engine to refuse. */
export function encodeStatesValue(states: unknown, what: string): string {
  if (!Array.isArray(states)) return typeof states === 'string' ? JSON.stringify(states) : toJsonText(states, `${what}: states`);
  return `[${(states as StateInput[]).map((s, i) => stateElement(s, `${what}: states[${i}]`)).join(', ')}]`;
}

/** `base` (a JSON object text) with `extra`'s members appended. */
function withMembers(base: string, extra: Record<string, unknown>, what: string): string {
  const members = Object.keys(extra).length === 0 ? '' : toJsonText(extra, `${what}: options`).slice(1, -1);
  if (members === '') return base;
  return base === '{}' ? `{${members}}` : `${base.slice(0, -1)},${members}}`;
}
