// `laya-wasm parity`: checks the input pipeline and answer formatting against upstream's
// recordings (fixtures/upstream) with configs + tokenizer only: per case, prepare() must give
// the recorded ids and markers of every question, and answer() rebuilt from the recorded logits
// and act logits must equal the recorded answer as Python writes it (0.3.7 shape).
import { LayaError, describeError } from '../errors.js';
import type { LayaPipeline } from '../model.js';
import { member, parseOrderedJson, sourceText, type JsonNode } from './ordered-json.js';
import type { PreparedRequest, StateInput } from '../request.js';
import { firstDifference } from './json-diff.js';

export interface ParityCaseResult {
  id: string;
  status: 'passed' | 'failed' | 'skipped';
  /** What differs (failed) or why it was skipped. */
  problems: string[];
  /** The --out line: {"id","questions":[{"qid","ids","markers"}],"answer"}. */
  outLine: string | null;
}

export interface ParitySummary {
  passed: number;
  failed: number;
  skipped: number;
  results: ParityCaseResult[];
}

const kShape = { shape: '0.3.7' } as const;

export async function runParity(pipeline: LayaPipeline, casesText: string, recordedText: string): Promise<ParitySummary> {
  const recorded = new Map<string, string>();
  for (const [i, line] of lines(recordedText)) {
    const id = member(parseOrderedJson(line, `recorded line ${i}`), 'id');
    if (id?.kind !== 'string') throw new LayaError('invalid_request', `recorded line ${i}: no string "id"`);
    recorded.set(id.value, line);
  }
  const summary: ParitySummary = { passed: 0, failed: 0, skipped: 0, results: [] };
  for (const [i, line] of lines(casesText)) {
    const result = await runCase(pipeline, line, i, recorded);
    summary[result.status]++;
    summary.results.push(result);
  }
  return summary;
}

async function runCase(pipeline: LayaPipeline, line: string, lineNumber: number,
                       recorded: Map<string, string>): Promise<ParityCaseResult> {
  const node = parseOrderedJson(line, `cases line ${lineNumber}`);
  const idNode = member(node, 'id');
  const id = idNode?.kind === 'string' ? idNode.value : `line ${lineNumber}`;
  const skip = (why: string): ParityCaseResult => ({ id, status: 'skipped', problems: [why], outLine: null });
  const stateNode = member(node, 'state');
  const questionsNode = member(node, 'questions');
  if (stateNode === undefined || questionsNode === undefined) return skip('the case has no state or no questions');
  const recordedLine = recorded.get(id);
  if (recordedLine === undefined) return skip('no recorded line with this id');
  const rec = parseOrderedJson(recordedLine, `recorded ${id}`);
  const recQuestions = member(rec, 'questions');
  const recAnswer = member(rec, 'answer');
  if (recQuestions?.kind !== 'array' || recAnswer?.kind !== 'object') {
    return skip('the recording has no questions array or no answer object');
  }

  const state: StateInput = stateNode.kind === 'string' ? stateNode.value : { json: sourceText(line, stateNode) };
  const questions = { json: sourceText(line, questionsNode) };
  const problems: string[] = [];
  let prepared: PreparedRequest;
  let answerText: string;
  try {
    prepared = JSON.parse(await pipeline.prepareJson(state, questions, kShape)) as PreparedRequest;
    const field = (q: JsonNode, key: string): string => {
      const value = member(q, key);
      if (value === undefined) throw new LayaError('invalid_request', `recorded ${id}: a question has no "${key}"`);
      return sourceText(recordedLine, value);
    };
    const outputs = `{"logits": [${recQuestions.items.map((q) => field(q, 'logits')).join(', ')}], ` +
      `"act": [${recQuestions.items.map((q) => field(q, 'act_probs')).join(', ')}]}`;
    answerText = await pipeline.answerJson(state, questions, { json: outputs }, kShape);
  } catch (error) {
    return { id, status: 'failed', problems: [describeError(error)], outLine: null };
  }

  if (prepared.questions.length !== recQuestions.items.length) {
    problems.push(`${prepared.questions.length} questions prepared, ${recQuestions.items.length} recorded`);
  }
  prepared.questions.forEach((q, i) => {
    const r = recQuestions.items[i];
    if (r === undefined) return;
    const qid = member(r, 'qid');
    const expectedQid = qid?.kind === 'string' ? qid.value : '?';
    if (q.qid !== expectedQid) problems.push(`question ${i}: qid ${JSON.stringify(q.qid)}, recorded ${JSON.stringify(expectedQid)}`);
    for (const key of ['ids', 'markers'] as const) {
      const want = member(r, key);
      const got = parseOrderedJson(JSON.stringify(q[key]), key);
      const d = want === undefined ? `no recorded ${key}` : firstDifference(want, got, `${q.qid}.${key}`);
      if (d !== null) problems.push(d);
    }
  });
  const answerDifference = firstDifference(recAnswer, parseOrderedJson(answerText, `answer of ${id}`), '');
  if (answerDifference !== null) problems.push(`answer ${answerDifference}`);
  const outQuestions = prepared.questions.map((q) =>
    `{"qid": ${JSON.stringify(q.qid)}, "ids": ${JSON.stringify(q.ids)}, "markers": ${JSON.stringify(q.markers)}}`);
  const outLine = `{"id": ${JSON.stringify(id)}, "questions": [${outQuestions.join(', ')}], "answer": ${answerText}}`;
  return { id, status: problems.length === 0 ? 'passed' : 'failed', problems, outLine };
}

function* lines(text: string): Generator<[number, string]> {
  const all = text.split('\n');
  for (let i = 0; i < all.length; i++) {
    const line = (all[i] ?? '').trim();
    if (line !== '') yield [i + 1, line];
  }
}
