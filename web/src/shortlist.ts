// predict_shortlist (laya-spec §5.8): choice questions with more than k labels are cut to the k labels
// whose embedding is closest (cosine) to the query (the instructions and the state), and the
// model sees the shortlisted options in rank order. Built on model.embed and model.predictJson;
// the questions travel as JSON text so that key order and number spelling survive.
import { LayaError } from './errors.js';
import {
  jsonNodeFromValue, member, parseOrderedJson, pythonDictMembers, writeJson,
  type JsonNode, type JsonObjectNode,
} from './json/ordered-json.js';
import { pyDumps, pyFloatRepr, pyNumberText } from './json/py-json.js';
import type { EmbedOptions } from './model.js';
import {
  encodeQuestions, isJsonText, type JsonText, type LayaResponse, type PredictOptions, type QuestionsInput,
  type StateInput,
} from './request.js';

/** What predictShortlist needs of a model (a LayaModel has it). */
export interface ShortlistModel {
  embed(texts: ReadonlyArray<string | null>, options?: EmbedOptions): Promise<Float32Array[]>;
  predictJson(state: StateInput, questions: QuestionsInput, options?: PredictOptions): Promise<string>;
}

export interface ShortlistOptions extends PredictOptions {
  /** Labels kept per choice question. Default 20. */
  k?: number;
  /** Token budget of each embedded text (embed_fn_from_agent's max_length). Default 512. */
  maxLength?: number;
}

export interface ShortlistEntry {
  /** Kept labels, most similar first (original order when passed through). */
  labels: string[];
  /** Their cosine similarity to the query; null when passed through. */
  scores: number[] | null;
  k: number;
  /** Labels the question had. */
  n: number;
  /** True when the question had at most k labels and was left untouched. */
  passthrough: boolean;
}

export type ShortlistResponse = LayaResponse & { shortlist: Record<string, ShortlistEntry> };

export async function predictShortlist(model: ShortlistModel, state: StateInput, questions: QuestionsInput,
                                       options: ShortlistOptions = {}): Promise<ShortlistResponse> {
  return JSON.parse(await predictShortlistJson(model, state, questions, options)) as ShortlistResponse;
}

/** predictShortlist as JSON text: the model's answer text with "shortlist" added at the end. */
export async function predictShortlistJson(model: ShortlistModel, state: StateInput, questions: QuestionsInput,
                                           options: ShortlistOptions = {}): Promise<string> {
  const k = options.k ?? 20;
  if (!Number.isInteger(k) || k < 1) {
    throw new LayaError('invalid_request', `predictShortlist: k must be a positive integer, got ${String(k)}`);
  }
  const questionsText = encodeQuestions(questions, 'predictShortlist');
  const root = parseOrderedJson(questionsText, 'predictShortlist: questions');
  if (root.kind !== 'object') {
    throw new LayaError('invalid_request', 'predictShortlist: questions must be an object keyed by question id');
  }
  let stateText: string | undefined;
  const queryState = (): string => (stateText ??= serializeState(state));

  const shortlist: Array<[string, JsonNode]> = [];
  const members = pythonDictMembers(root);
  let changed = false;
  for (const [index, [qid, question]] of members.entries()) {
    const choice = choiceOf(qid, question);
    if (choice === null) continue;
    const n = choice.labels.length;
    if (n <= k) {
      shortlist.push([qid, entryNode(choice.labels, null, k, n)]);
      continue;
    }
    const query = queryPrefix(member(question, 'instructions')) + queryState();
    const texts = choice.labels.map((label, i) => optionText(label, choice.descriptions[i]));
    const rows = await model.embed([query, ...texts], { maxLength: options.maxLength ?? 512 });
    const scores = cosines(rows, n + 1);
    const ranked = scores.map((score, i) => ({ score, i }))
      .sort((a, b) => b.score - a.score || a.i - b.i)  // stable: ties keep the earlier label
      .slice(0, k);
    const criteria: JsonNode = {
      kind: 'object', start: -1, end: -1,
      members: ranked.map(({ i }) => [choice.labels[i] ?? '', choice.descriptions[i] ?? kNull]),
    };
    members[index] = [qid, withMember(question as JsonObjectNode, 'criteria', criteria)];
    changed = true;
    shortlist.push([qid, entryNode(ranked.map(({ i }) => choice.labels[i] ?? ''), ranked.map(({ score }) => score), k, n)]);
  }

  const reduced = changed ? writeJson({ kind: 'object', members, start: -1, end: -1 }) : questionsText;
  const answer = await model.predictJson(state, { json: reduced }, options.shape ? { shape: options.shape } : {});
  const close = answer.lastIndexOf('}');
  const body = answer.slice(0, close).trimEnd();
  const separator = body.endsWith('{') ? '' : ', ';
  const list = pyDumps({ kind: 'object', members: shortlist, start: -1, end: -1 });
  return `${body}${separator}"shortlist": ${list}}`;
}

const kNull: JsonNode = { kind: 'literal', value: null, start: -1, end: -1 };

interface Choice {
  labels: string[];
  /** The description node of each label; undefined for list criteria. */
  descriptions: Array<JsonNode | undefined>;
}

/** The labels of a choice question, or null for any other question (left to the engine). */
function choiceOf(qid: string, question: JsonNode): Choice | null {
  const type = member(question, 'type');
  if (type?.kind !== 'string' || type.value !== 'choice') return null;
  const criteria = member(question, 'criteria');
  const empty = criteria === undefined || (criteria.kind === 'literal' && criteria.value === null) ||
    (criteria.kind === 'object' && criteria.members.length === 0) || (criteria.kind === 'array' && criteria.items.length === 0);
  if (empty) throw new LayaError('invalid_request', `predictShortlist: question '${qid}' is a choice but has no criteria`);
  if (criteria.kind === 'object') {
    const entries = pythonDictMembers(criteria);
    return { labels: entries.map(([label]) => label), descriptions: entries.map(([, d]) => d) };
  }
  if (criteria.kind !== 'array') return null;
  const labels = criteria.items.map((item, i) => labelText(qid, item, i));
  const seen = new Set<string>();
  for (const label of labels) {
    if (seen.has(label)) throw new LayaError('invalid_request', `predictShortlist: choice criteria label '${label}' is duplicated`);
    seen.add(label);
  }
  return { labels, descriptions: labels.map(() => undefined) };
}

/** Python's str() of a scalar label. */
function labelText(qid: string, item: JsonNode, i: number): string {
  switch (item.kind) {
    case 'string': return item.value;
    case 'number': return pyNumberText(item.text);
    case 'literal': return item.value === null ? 'None' : item.value ? 'True' : 'False';
    default:
      throw new LayaError('invalid_request', `predictShortlist: question '${qid}': choice label ${i} is ${item.kind === 'object' ? 'an object' : 'an array'}, not a string`);
  }
}

/** serialize_state (laya-spec §4.2) without the mask scrub, as upstream's shortlist query uses it. */
function serializeState(state: StateInput): string {
  if (typeof state === 'string') return state;
  const node = isJsonText(state) ? parseOrderedJson((state as JsonText).json, 'predictShortlist: state')
    : jsonNodeFromValue(state, 'predictShortlist: state');
  return pyDumps(node);
}

/** instructions + "\n" when they are truthy in Python; non-strings as json.dumps. */
function queryPrefix(instructions: JsonNode | undefined): string {
  if (instructions === undefined) return '';
  switch (instructions.kind) {
    case 'string': return instructions.value === '' ? '' : `${instructions.value}\n`;
    case 'literal': return instructions.value === true ? 'true\n' : '';
    case 'number': return Number(instructions.text) === 0 ? '' : `${pyDumps(instructions)}\n`;
    case 'array': return instructions.items.length === 0 ? '' : `${pyDumps(instructions)}\n`;
    case 'object': return instructions.members.length === 0 ? '' : `${pyDumps(instructions)}\n`;
  }
}

/** render_options for a choice label, without the leading space (laya-spec §4.2). */
function optionText(label: string, description: JsonNode | undefined): string {
  if (description === undefined) return label;
  if (description.kind === 'literal' && description.value === null) return label;
  if (description.kind === 'string') return description.value === '' ? label : `${label}: ${description.value}`;
  return `${label}: ${pyDumps(description)}`;
}

/** Cosine of each option row with the query row (f64, NaN/inf as 0, clipped to [-1, 1]). */
function cosines(rows: Float32Array[], expected: number): number[] {
  const dim = rows[0]?.length ?? 0;
  if (rows.length !== expected || dim === 0 || rows.some((r) => r.length !== dim)) {
    throw new LayaError('internal',
      `predictShortlist: embed must return an array of shape (${expected}, dim), got ${rows.length} rows of [${rows.map((r) => r.length).join(', ')}]`);
  }
  const clean = rows.map((r) => Array.from(r, (x) => (Number.isFinite(x) ? x : 0)));
  const norm = (v: number[]): number => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  const [query = [], ...options] = clean;
  const queryNorm = norm(query);
  return options.map((o) => {
    const denominator = queryNorm * norm(o);
    if (denominator === 0) return 0;
    const dot = o.reduce((s, x, i) => s + x * (query[i] ?? 0), 0);
    return Math.min(1, Math.max(-1, dot / denominator));
  });
}

function withMember(question: JsonObjectNode, key: string, value: JsonNode): JsonNode {
  const members = pythonDictMembers(question).map(([k, v]): [string, JsonNode] => [k, k === key ? value : v]);
  return { kind: 'object', members, start: -1, end: -1 };
}

function entryNode(labels: string[], scores: number[] | null, k: number, n: number): JsonNode {
  const str = (value: string): JsonNode => ({ kind: 'string', value, start: -1, end: -1 });
  const num = (text: string): JsonNode => ({ kind: 'number', text, start: -1, end: -1 });
  return {
    kind: 'object', start: -1, end: -1,
    members: [
      ['labels', { kind: 'array', items: labels.map(str), start: -1, end: -1 }],
      ['scores', scores === null ? kNull : { kind: 'array', items: scores.map((s) => num(pyFloatRepr(s))), start: -1, end: -1 }],
      ['k', num(String(k))],
      ['n', num(String(n))],
      ['passthrough', { kind: 'literal', value: scores === null, start: -1, end: -1 }],
    ],
  };
}
