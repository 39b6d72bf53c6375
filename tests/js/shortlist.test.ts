// predictShortlist (laya-spec §5.8) over a fake model: the texts it embeds match upstream's rendering
// (checked against the recorded pieces of fixtures/upstream), ranking is by cosine and stable,
// the reduced question lists the kept labels in rank order with descriptions as written.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LayaError } from '../../web/src/errors.js';
import { member, parseOrderedJson, sourceText } from '../../web/src/json/ordered-json.js';
import { predictShortlist, predictShortlistJson, type ShortlistModel } from '../../web/src/shortlist.js';
import type { PredictOptions, QuestionsInput, StateInput } from '../../web/src/request.js';
import { kUpstreamDir } from './helpers/fixtures.js';

/** A model whose embeddings come from a table (or a function) and whose predict echoes its input. */
class ScriptedModel implements ShortlistModel {
  readonly embedCalls: string[][] = [];
  readonly predictCalls: Array<{ state: StateInput; questions: string; options: PredictOptions | undefined }> = [];

  constructor(private readonly vector: (text: string) => number[]) {}

  async embed(texts: ReadonlyArray<string | null>): Promise<Float32Array[]> {
    this.embedCalls.push(texts.map((t) => t ?? ''));
    return texts.map((t) => Float32Array.from(this.vector(t ?? '')));
  }

  async predictJson(state: StateInput, questions: QuestionsInput, options?: PredictOptions): Promise<string> {
    this.predictCalls.push({ state, questions: (questions as { json: string }).json, options });
    return '{"model": "laya-rl-agent", "answers": {}, "usage": {"input_tokens": 0, "output_tokens": 0}}';
  }
}

const kColours: Record<string, number[]> = {
  query: [1, 0, 0],
  red: [0, 1, 0],          // cosine 0
  green: [1, 1, 0],        // 0.7071
  blue: [2, 0, 0],         // 1
  cyan: [1, 1, 0],         // 0.7071, ties with green (later)
  none: [0, 0, 0],         // zero norm: 0
  broken: [NaN, 1, 0],     // NaN read as 0: cosine 0
  away: [-1, 0, 0],        // -1
};
const colourModel = (): ScriptedModel => new ScriptedModel((t) => kColours[t.split(':')[0]!.split('\n')[0]!] ?? kColours['query']!);

describe('predictShortlist ranking', () => {
  test('keeps the k most similar labels, ties in label order, and rebuilds criteria in rank order', async () => {
    const model = colourModel();
    const questions = {
      json: '{"c": {"type": "choice", "instructions": "", "criteria": {"red": null, "green": 1.0, "blue": "b", "cyan": "", "none": [1, 2.50], "broken": null, "away": null}}, ' +
        '"n": {"type": "noul", "instructions": "x"}}',
    };
    const result = await predictShortlist(model, 'query', questions, { k: 3, shape: '0.3.7' });
    expect(result.shortlist['c']).toEqual({ labels: ['blue', 'green', 'cyan'], scores: [1, 0.7071067811865475, 0.7071067811865475],
      k: 3, n: 7, passthrough: false });
    expect(model.embedCalls).toEqual([['query', 'red', 'green: 1.0', 'blue: b', 'cyan', 'none: [1, 2.5]', 'broken', 'away']]);
    expect(model.predictCalls[0]).toEqual({
      state: 'query',
      questions: '{"c":{"type":"choice","instructions":"","criteria":{"blue":"b","green":1.0,"cyan":""}},"n":{"type":"noul","instructions":"x"}}',
      options: { shape: '0.3.7' },
    });
  });

  test('questions with at most k labels pass through untouched, without embedding', async () => {
    const model = colourModel();
    const questions = { json: '{"c": {"type": "choice", "instructions": "i", "criteria": ["red", "green"]}}' };
    const text = await predictShortlistJson(model, { a: 1 }, questions, { k: 2 });
    expect(model.embedCalls).toEqual([]);
    expect(model.predictCalls[0]?.questions).toBe(questions.json);
    expect(text).toBe('{"model": "laya-rl-agent", "answers": {}, "usage": {"input_tokens": 0, "output_tokens": 0}, ' +
      '"shortlist": {"c": {"labels": ["red", "green"], "scores": null, "k": 2, "n": 2, "passthrough": true}}}');
  });

  test('a list of labels becomes a dict of label -> null in rank order', async () => {
    const model = colourModel();
    await predictShortlist(model, 'query', { c: { type: 'choice', instructions: 'i', criteria: ['away', 'blue', 'red'] } }, { k: 2 });
    expect(JSON.parse(model.predictCalls[0]!.questions)).toEqual({ c: { type: 'choice', instructions: 'i', criteria: { blue: null, red: null } } });
    expect(model.embedCalls[0]?.[0]).toBe('i\nquery');
  });

  test('the query is the instructions then the state as Python json.dumps writes it', async () => {
    const model = new ScriptedModel(() => [1, 2]);
    await predictShortlist(model, { json: '{"n": 1.0, "t": "é"}' },
      { json: '{"c": {"type": "choice", "instructions": {"k": [1]}, "criteria": ["a", "b"]}}' }, { k: 1 });
    expect(model.embedCalls[0]?.[0]).toBe('{"k": [1]}\n{"n": 1.0, "t": "é"}');
  });

  test('errors name k, the question and the duplicated label', async () => {
    const model = colourModel();
    await expect(predictShortlist(model, 's', {}, { k: 0 })).rejects.toThrow('k must be a positive integer, got 0');
    await expect(predictShortlist(model, 's', { q: { type: 'choice', instructions: 'i', criteria: {} } }))
      .rejects.toThrow("question 'q' is a choice but has no criteria");
    await expect(predictShortlist(model, 's', { q: { type: 'choice', instructions: 'i', criteria: ['a', 'a'] } }))
      .rejects.toThrow(LayaError);
    await expect(predictShortlist(model, 's', { q: { type: 'choice', instructions: 'i', criteria: ['a', 'a'] } }))
      .rejects.toThrow("choice criteria label 'a' is duplicated");
  });
});

describe('predictShortlist texts against upstream recordings', () => {
  test("option texts and the query match the pieces upstream rendered for every recorded choice question", async () => {
    const cases = readFileSync(join(kUpstreamDir, 'cases.jsonl'), 'utf8').trim().split('\n');
    const recorded = readFileSync(join(kUpstreamDir, 'recorded.jsonl'), 'utf8').trim().split('\n');
    let options = 0;
    let queries = 0;
    for (const [i, line] of cases.entries()) {
      const node = parseOrderedJson(line, 'case');
      const state = member(node, 'state')!;
      const questions = member(node, 'questions')!;
      if (questions.kind !== 'object') continue;
      const rec = JSON.parse(recorded[i]!) as { questions?: Array<{ qid: string; type: string; pieces: { head: string; options: string[]; state: string } }> };
      const model = new ScriptedModel(() => [1, 0]);
      const stateArg = state.kind === 'string' ? state.value : { json: sourceText(line, state) };
      // k = 1 shortlists every choice question with two or more labels: each is embedded once, in order.
      await predictShortlist(model, stateArg, { json: sourceText(line, questions) }, { k: 1 });
      const embedded = rec.questions?.filter((q) => q.type === 'choice' && q.pieces.options.length > 1) ?? [];
      expect(model.embedCalls).toHaveLength(embedded.length);
      embedded.forEach((q, j) => {
        const [query, ...texts] = model.embedCalls[j]!;
        const question = member(questions, q.qid)!;
        const instructions = member(question, 'instructions');
        // Upstream scrubs the mask literal before tokenizing; the shortlist does not.
        if (!sourceText(line, question).includes('[MASK]')) {
          expect(texts).toEqual(q.pieces.options.map((o) => o.slice(1)));
          options++;
        }
        if (instructions?.kind === 'string' && instructions.value !== '' && !line.includes('[MASK]')) {
          expect(query).toBe(`${q.pieces.head.slice('choice question: '.length)}\n${q.pieces.state}`);
          queries++;
        }
      });
    }
    expect(options).toBeGreaterThan(50);
    expect(queries).toBeGreaterThan(50);
  });
});
