// predictShortlist (laya-spec §5.8) through the built wasm module: the engine validates the options and
// the questions with upstream's messages, ranks by the cosine of the same rows model.embed gives,
// and writes "shortlist" after "usage". The ranking rules and the embedded texts are pinned
// against upstream's recordings in tests/cpp/decide/shortlist_test.cc.
import { LayaError } from '../../../web/src/errors.js';
import { loadModelWith } from '../../../web/src/load.js';
import type { LayaModel } from '../../../web/src/model.js';
import { nodeRuntime } from '../../../web/src/node/node-runtime.js';
import { predictShortlist, predictShortlistJson, type ShortlistOptions } from '../../../web/src/shortlist.js';
import { kTinyCheckpoint } from '../helpers/fixtures.js';
import { describeWithCore, kWasm } from '../helpers/real-core.js';

describeWithCore('predictShortlist on a real checkpoint (tiny-fanin, WordLevel "w<id>" tokens)', () => {
  let model: LayaModel;
  beforeAll(async () => {
    model = await loadModelWith(nodeRuntime, { directory: kTinyCheckpoint }, { wasm: kWasm, onWarning: () => undefined });
  });
  afterAll(() => model?.dispose());
  const state = 'w40 w41 w42';

  test('a question with at most k labels passes through, and the shortlist follows usage in the answer', async () => {
    const questions = { json: '{"c": {"type": "choice", "instructions": "w10", "criteria": ["w50", "w51"]}}' };
    const text = await predictShortlistJson(model, state, questions, { k: 2 });
    const plain = await model.predictJson(state, questions);
    expect(text).toBe(`${plain.slice(0, -1)}, "shortlist": {"c": {"labels": ["w50", "w51"], "scores": null, "k": 2, "n": 2, "passthrough": true}}}`);
  });

  test('keeps the k labels whose embedding is closest to the query and answers the reduced question', async () => {
    const labels = ['w50', 'w51', 'w52', 'w53', 'w54'];
    const questions = { json: `{"c": {"type": "choice", "instructions": "w10", "criteria": ${JSON.stringify(labels)}}}` };
    const text = await predictShortlistJson(model, state, questions, { k: 2, maxLength: 8 });
    const { shortlist } = JSON.parse(text) as { shortlist: { c: { labels: string[]; scores: number[] } } };

    // The oracle: cosines in f64 of the rows model.embed gives for the query and the labels.
    const [query, ...options] = await model.embed([`w10\n${state}`, ...labels], { maxLength: 8 });
    const norm = (v: Float32Array): number => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
    const cosine = (o: Float32Array): number =>
      Math.min(1, Math.max(-1, o.reduce((s, x, i) => s + x * (query as Float32Array)[i]!, 0) / (norm(query as Float32Array) * norm(o))));
    const ranked = options.map((o, i) => ({ label: labels[i]!, score: cosine(o) }))
      .sort((a, b) => b.score - a.score).slice(0, 2);
    expect(shortlist.c).toEqual({ labels: ranked.map((r) => r.label), scores: ranked.map((r) => r.score), k: 2, n: 5, passthrough: false });

    const kept = shortlist.c.labels.map((l) => `"${l}": null`).join(', ');
    const reduced = await model.predictJson(state, { json: `{"c": {"type": "choice", "instructions": "w10", "criteria": {${kept}}}}` });
    expect(text.startsWith(`${reduced.slice(0, -1)}, "shortlist": `)).toBe(true);
  });

  test('errors name k, maxLength, the question and the duplicated label', async () => {
    const invalid: Array<[ShortlistOptions, string]> = [
      [{ k: 0 }, 'predictShortlist: k must be a positive integer, got 0'],
      [{ k: 2.5 }, 'predictShortlist: k must be a positive integer, got 2.5'],
      [{ k: NaN }, 'predictShortlist: k must be a positive integer, got NaN'],
      [{ maxLength: 0 }, 'predictShortlist: maxLength must be a positive integer, got 0'],
    ];
    for (const [options, message] of invalid) {
      await expect(predictShortlist(model, 's', {}, options)).rejects.toMatchObject({ code: 'invalid_request', message });
    }
    await expect(predictShortlist(model, 's', { q: { type: 'choice', instructions: 'i', criteria: {} } }))
      .rejects.toThrow("predictShortlist: question 'q' is a choice but has no criteria");
    const duplicated = predictShortlist(model, 's', { q: { type: 'choice', instructions: 'i', criteria: ['a', 'a'] } });
    await expect(duplicated).rejects.toThrow(LayaError);
    await expect(duplicated).rejects.toThrow("predictShortlist: choice criteria label 'a' is duplicated");
  });
});
