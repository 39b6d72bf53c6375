// Hostile requests through the package's predict() with the built wasm module on the tiny-fanin
// reference checkpoint (WordLevel tokens w<id>, [MASK] = 511): every validation error of laya-spec §4.1
// is a LayaError invalid_request with upstream's message, options that cannot fit are rejected as
// upstream does (laya-spec §4.4), huge / deeply nested / non-finite states and mask literals are
// handled, and an empty question set answers with nothing. The model keeps answering after every
// rejection.
import { LayaError } from '../../../web/src/errors.js';
import { loadModelWith } from '../../../web/src/load.js';
import type { LayaModel } from '../../../web/src/model.js';
import type { ChoiceAnswer, LayaResponse } from '../../../web/src/request.js';
import { nodeRuntime } from '../../../web/src/node/node-runtime.js';
import { kTinyCheckpoint } from '../helpers/fixtures.js';
import { describeWithCore, kWasm } from '../helpers/real-core.js';

const kGood = { json: '{"q": {"type": "choice", "instructions": "w7 w8", "criteria": ["w9", "w10"]}}' };

const kHostile: Array<[string, string, string]> = [
  ['questions not an object', '[1, 2]', 'questions must be a dict'],
  ['definition not an object', '{"q": 5}', "question 'q': definition must be a dict, got int"],
  ['unknown type', '{"q": {"type": "rank", "instructions": "w1"}}', "use one of ['choice', 'noul', 'score']"],
  ['no instructions', '{"q": {"type": "choice", "criteria": ["w1"]}}', "question 'q': no 'instructions'; add the text the model should answer"],
  ['choice criteria a number', '{"q": {"type": "choice", "instructions": "w1", "criteria": 5}}',
    "a choice question takes 'criteria' as a dict of label -> description, or a list of labels"],
  ['choice criteria empty', '{"q": {"type": "choice", "instructions": "w1", "criteria": []}}', 'a choice question needs at least one criterion'],
  ['non-scalar label', '{"q": {"type": "choice", "instructions": "w1", "criteria": ["w2", {"a": 1}]}}', "question 'q': choice label 1 is a dict"],
  ['score criteria a dict', '{"q": {"type": "score", "instructions": "w1", "criteria": {"a": 1}}}', "takes 'criteria' as a list of level descriptions, index 0 first"],
  ['score criteria empty', '{"q": {"type": "score", "instructions": "w1", "criteria": []}}', 'needs at least one level'],
  ['score level null', '{"q": {"type": "score", "instructions": "w1", "criteria": ["w2", null]}}', 'score level 1 is null'],
  ['noul criteria a list', '{"q": {"type": "noul", "instructions": "w1", "criteria": ["w2"]}}', "a noul question takes 'criteria' as a dict"],
  ['labels on a choice', '{"q": {"type": "choice", "instructions": "w1", "criteria": ["w2"], "labels": {"false": "a", "true": "b"}}}',
    "'labels' is only supported for noul questions"],
  ['noul labels not distinct', '{"q": {"type": "noul", "instructions": "w1", "labels": {"false": "w2", "true": "w2"}}}',
    "noul labels must map exactly 'false' and 'true' to distinct non-empty strings"],
];

function crowded(count: number): { json: string } {
  const labels = Array.from({ length: count }, (_, i) => `"w${4 + (i % 500)}_${i}"`).join(', ');
  return { json: `{"crowded": {"type": "choice", "instructions": "w1 w2", "criteria": [${labels}]}}` };
}

describeWithCore('hostile requests through predict()', () => {
  let model: LayaModel;
  // The answer to kGood before any hostile request: every later answer must be exactly this.
  let goodAnswer: string;
  beforeAll(async () => {
    model = await loadModelWith(nodeRuntime, { directory: kTinyCheckpoint }, { wasm: kWasm, onWarning: () => undefined });
    goodAnswer = await model.predictJson('w5 w6', kGood);
  });
  afterAll(() => model?.dispose());

  test('the good request answers its one choice question with probabilities over its two labels', () => {
    const answer = JSON.parse(goodAnswer) as LayaResponse;
    expect(Object.keys(answer.answers)).toEqual(['q']);
    const q = answer.answers['q'] as ChoiceAnswer;
    expect(q.type).toBe('choice');
    expect(Object.keys(q.probabilities)).toEqual(['w9', 'w10']);
    // Each probability is rounded to 4 decimals (laya-spec §5.3): the two sum to 1 within 2 · 0.00005.
    const p = Object.values(q.probabilities);
    expect(Math.abs(p.reduce((a, b) => a + b, 0) - 1)).toBeLessThanOrEqual(1e-4 + 1e-12);
    expect(q.probabilities[q.choice]).toBe(Math.max(...p));
  });

  test.each(kHostile)('%s: invalid_request with upstream\'s message', async (_fault, questions, message) => {
    const error = await model.predict('w5 w6', { json: questions }).then(() => null, (e: unknown) => e);
    expect(error).toBeInstanceOf(LayaError);
    expect((error as LayaError).code).toBe('invalid_request');
    expect((error as LayaError).message).toContain(message);
    expect(await model.predictJson('w5 w6', kGood)).toBe(goodAnswer);
  });

  test('options that cannot fit max_len are rejected naming the question and the budgets, in each shape\'s words', async () => {
    const error = await model.predict('w5', crowded(300)).then(() => null, (e: unknown) => e);
    expect(error).toBeInstanceOf(LayaError);
    expect((error as LayaError).code).toBe('invalid_request');
    expect((error as LayaError).message).toMatch(new RegExp("^question 'crowded': only \\d+ of its 300 option markers fit in max_len=512 " +
      'with head_max_len=192 spent on the question; lower head_max_len, raise max_len, or use fewer options$'));
    await expect(model.predict('w5', crowded(300), { shape: '0.3.21' })).rejects.toThrow("question 'crowded' options exceed head_max_len=192");
    expect(Object.keys((await model.predict('w5', crowded(200))).answers)).toEqual(['crowded']);
  });

  test('a huge state is cut to max_len and its mask literals never become markers', async () => {
    const words = Array.from({ length: 100000 }, (_, i) => (i % 7 === 0 ? '[MASK]' : `w${4 + (i % 500)}`));
    const state = words.join(' ');
    const prepared = await model.prepare(state, kGood);
    const row = prepared.questions[0] as { ids: number[]; markers: number[] };
    expect(row.ids).toHaveLength(512);
    expect(row.ids.filter((id) => id === 511)).toHaveLength(2);
    expect((await model.predict(state, kGood)).usage.input_tokens).toBe(512);
  });

  test('deeply nested, very large and non-finite JSON states', async () => {
    const deep = { json: '['.repeat(100000) + ']'.repeat(100000) };
    const error = await model.predict(deep, kGood).then(() => null, (e: unknown) => e);
    expect(error).toBeInstanceOf(LayaError);
    expect((error as LayaError).code).toBe('invalid_request');
    expect((error as LayaError).message).toContain('state');
    const wide = Object.fromEntries(Array.from({ length: 50000 }, (_, i) => [`k${i}`, i]));
    expect((await model.predict(wide, kGood)).usage.input_tokens).toBe(512);
    const nonfinite = await model.predict({ json: '{"a": NaN, "b": [Infinity, -Infinity]}' }, kGood);
    expect(Object.keys(nonfinite.answers)).toEqual(['q']);
  });

  test('an empty question set answers with no tokens', async () => {
    expect(await model.predictJson('w5', {})).toBe('{"model": "laya-rl-agent", "answers": {}, "usage": {"input_tokens": 0, "output_tokens": 0}}');
  });
});
