// predict_shortlist (laya-spec §5.8): choice questions with more than k labels are cut to the k labels
// whose embedding is closest (cosine) to the query (the instructions and the state), and the
// model sees the shortlisted options in rank order. The engine does all of it
// (cpp/decide/shortlist.h) and writes "shortlist" into the answer; this is the package's entry point.
import type { LayaResponse, PredictOptions, QuestionsInput, StateInput } from './request.js';

/** What predictShortlist needs of a model (a LayaModel has it). */
export interface ShortlistModel {
  predictShortlistJson(state: StateInput, questions: QuestionsInput, options?: ShortlistOptions): Promise<string>;
}

export interface ShortlistOptions extends PredictOptions {
  /** Labels kept per choice question. Default 20. */
  k?: number;
  /** Token budget of each embedded text (embed_fn_from_agent's max_length). Default 512. */
  maxLength?: number;
}

/** How one question's labels were cut (the answer's "shortlist" entry). */
export interface ShortlistEntry {
  /** Kept labels, most similar first (original order when passed through). */
  labels: string[];
  /** Their cosine similarity to the query; null when passed through. */
  scores: number[] | null;
  /** Labels kept at most. */
  k: number;
  /** Labels the question had. */
  n: number;
  /** True when the question had at most k labels and was left untouched. */
  passthrough: boolean;
}

/** Upstream's response with "shortlist": per choice question, how its labels were cut. */
export type ShortlistResponse = LayaResponse & { shortlist: Record<string, ShortlistEntry> };

/**
 * Upstream's predict_shortlist (laya-spec §5.8): choice questions with more than `k` labels
 * (default 20) are cut to the k labels whose embedding is closest (cosine) to the query (the
 * instructions and the state), and the model sees the shortlisted options in rank order. Takes
 * CallOptions.signal like every call that runs the model.
 */
export async function predictShortlist(model: ShortlistModel, state: StateInput, questions: QuestionsInput,
                                       options: ShortlistOptions = {}): Promise<ShortlistResponse> {
  return JSON.parse(await predictShortlistJson(model, state, questions, options)) as ShortlistResponse;
}

/** predictShortlist as JSON text: the model's answer text with "shortlist" after "usage". */
export async function predictShortlistJson(model: ShortlistModel, state: StateInput, questions: QuestionsInput,
                                           options: ShortlistOptions = {}): Promise<string> {
  return model.predictShortlistJson(state, questions, options);
}

/**
 * The options as the engine reads them, which validates them: absent is null (the default), and
 * NaN / ±Infinity are written as Python's json writes them so the engine's message can name them.
 */
export function encodeShortlistOptions(options: ShortlistOptions): string {
  const value = (v: unknown): string =>
    (typeof v === 'number' && !Number.isFinite(v)) || typeof v === 'bigint' ? String(v) : JSON.stringify(v) ?? 'null';
  return `{"k": ${value(options.k)}, "maxLength": ${value(options.maxLength)}, "shape": ${value(options.shape)}}`;
}
