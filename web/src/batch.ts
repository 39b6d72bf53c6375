// predict_batch (laya-spec-current §6): many states, one set of questions. The checks that span a
// caller's whole list of states run here, once, in upstream's order (§6.1 items 1-4), before any
// state is answered; each state's own checks are predict's, in the engine. The states are then sent
// to the engine in chunks of `batchSize`: the rows of a chunk share forward passes, and only a
// chunk's rows are held at a time, whatever the number of states.
import { LayaError } from './errors.js';
import { isJsonText, toJsonText, type PredictOptions, type QuestionsInput, type StateInput } from './request.js';

export interface BatchOptions extends PredictOptions {
  /**
   * States per engine call: their rows share forward passes, and progress, aborts and
   * {@link LayaModel.predictEach}'s answers come a chunk at a time. Default 16. Answers are the
   * same for any value (every row runs unpadded), as upstream's `batch_size` changes only batching.
   */
  batchSize?: number;
  /**
   * Upstream's `sort_by_length`, accepted for its callers: it reorders only upstream's padded
   * batches, and laya-wasm packs rows unpadded, so answers and their order are the same either way.
   */
  sortByLength?: boolean;
  /** Called after each chunk with the states answered so far. */
  onProgress?: (progress: BatchProgress) => void;
}

export interface BatchProgress {
  done: number;
  total: number;
}

export const kDefaultBatchSize = 16;

/** A chunk of the batch's states: a JSON array text, and how many states it holds. */
export interface BatchChunk {
  states: string;
  count: number;
}

/** The batch's states in chunks, and the questions' JSON text; throws upstream's errors (§6.1) first. */
export function encodeBatch(states: readonly StateInput[], questions: QuestionsInput, options: BatchOptions | undefined,
                            what: string): { chunks: BatchChunk[]; questions: string } {
  if (!Array.isArray(states)) {
    throw new LayaError('invalid_request', 'predict_batch expects a list of states; pass a single state to predict()/system_one().');
  }
  const questionsText = isJsonText(questions) ? questions.json : toJsonText(questions, `${what}: questions`);
  const questionsType = pythonTypeName(parsedOrUndefined(questionsText));
  if (questionsType !== 'dict') {
    throw new LayaError('invalid_request', `questions must be a dict of question id -> definition, got ${questionsType}`);
  }
  const texts = states.map((state, i) => stateElement(state, `${what}: states[${i}]`));
  if (texts.some((text) => text === 'null')) {
    throw new LayaError('invalid_request', 'state must not be None; pass a string, dict, or list');
  }
  const size = chunkSize(options?.batchSize, what);
  const chunks: BatchChunk[] = [];
  for (let at = 0; at < texts.length; at += size) {
    const slice = texts.slice(at, at + size);
    chunks.push({ states: `[${slice.join(', ')}]`, count: slice.length });
  }
  return { chunks, questions: questionsText };
}

/** One state as an element of the engine's JSON array: a string is a text state, as in predict. */
export function stateElement(state: StateInput, what: string): string {
  if (state === undefined) return 'null';
  if (typeof state === 'string') return JSON.stringify(state);
  return toJsonText(state, what).trim();
}

function chunkSize(batchSize: number | undefined, what: string): number {
  if (batchSize === undefined) return kDefaultBatchSize;
  if (typeof batchSize !== 'number' || Number.isNaN(batchSize)) {
    throw new LayaError('invalid_request', `${what}: batchSize must be a number, got ${String(batchSize)}`);
  }
  // Upstream: a batch_size of 0 or less means one pass over every state; here, the default chunk.
  return batchSize >= 1 ? Math.floor(batchSize) : kDefaultBatchSize;
}

function parsedOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;  // the engine reports the text's fault with its position
  }
}

/** Python's type(x).__name__ for a parsed JSON value (a number reads as int when it has no fraction). */
function pythonTypeName(value: unknown): string {
  if (value === undefined) return 'dict';  // unreadable JSON: left to the engine's parse error
  if (value === null) return 'NoneType';
  if (Array.isArray(value)) return 'list';
  switch (typeof value) {
    case 'string': return 'str';
    case 'boolean': return 'bool';
    case 'number': return Number.isInteger(value) ? 'int' : 'float';
    default: return 'dict';
  }
}
