// compute: 'int8' through the package: the q8 weights multiplied in integers answer within the
// issue's bar of f32 compute on the same q8 weights (max |dp| <= 0.01, no argmax change where f32's
// top-two margin is >= 0.02, embeddings' cosine >= 0.999), identically for any thread count, with
// the q8 load's memory; and the option is refused where it cannot apply.
import { loadModelWith } from '../../web/src/load.js';
import type { LayaModel } from '../../web/src/model.js';
import { nodeRuntime } from '../../web/src/node/node-runtime.js';
import type { Answer, LayaResponse, Question } from '../../web/src/request.js';
import { kSmallCheckpoint } from './helpers/fixtures.js';
import { describeWithCore, kWasm } from './helpers/real-core.js';

const questions: Record<string, Question> = {
  topic: { type: 'choice', instructions: 'w40 w41 w42', criteria: { billing: 'w50 w51', outage: 'w60', other: 'w70 w71 w72', more: 'w9' } },
  urgent: { type: 'noul', instructions: 'w80 w81' },
  severity: { type: 'score', instructions: 'w90', criteria: ['1', '2', '3', '4', '5'] },
};
const states = Array.from({ length: 12 }, (_, i) => Array.from({ length: 5 + 23 * i }, (_, j) => `w${4 + ((i * 131 + j * 17) % 1000)}`).join(' '));

/** Each question's probabilities, as a list in the answer's order. */
function probabilities(response: LayaResponse): number[][] {
  return Object.values(response.answers).map((a) => {
    const answer = a as Answer & { probabilities?: Record<string, number>; noul?: number };
    return answer.probabilities !== undefined ? Object.values(answer.probabilities) : [1 - (answer.noul as number), answer.noul as number];
  });
}

const argmax = (p: number[]): number => p.indexOf(Math.max(...p));
const margin = (p: number[]): number => { const s = [...p].sort((a, b) => b - a); return (s[0] ?? 0) - (s[1] ?? 0); };
const cosine = (a: Float32Array, b: Float32Array): number => {
  let ab = 0, aa = 0, bb = 0;
  a.forEach((x, i) => { ab += x * (b[i] as number); aa += x * x; bb += (b[i] as number) ** 2; });
  return ab / Math.sqrt(aa * bb);
};

describeWithCore('compute int8 over the built module', () => {
  const quiet = { wasm: kWasm, onWarning: () => undefined };
  let f32: LayaModel;
  let int8: LayaModel;
  beforeAll(async () => {
    f32 = await loadModelWith(nodeRuntime, { directory: kSmallCheckpoint }, { ...quiet, weights: 'q8' });
    int8 = await loadModelWith(nodeRuntime, { directory: kSmallCheckpoint }, { ...quiet, compute: 'int8' });
  });
  afterAll(() => { f32.dispose(); int8.dispose(); });

  test('the model says int8 runs, on q8 weights held as the q8 load holds them', () => {
    expect(int8.compute).toBe('int8');
    expect(f32.compute).toBe('f32');
    expect(int8.memory().weightsBytes).toBe(f32.memory().weightsBytes);
  });

  test('answers stay within 0.01 of f32 compute on the same weights, with no argmax change where f32 is decided by 0.02', async () => {
    let worst = 0;
    const moved: string[] = [];
    for (const [i, state] of states.entries()) {
      const want = probabilities(await f32.predict(state, questions));
      const got = probabilities(await int8.predict(state, questions));
      want.forEach((p, q) => {
        p.forEach((x, k) => { worst = Math.max(worst, Math.abs(x - (got[q]![k] as number))); });
        if (margin(p) >= 0.02 && argmax(p) !== argmax(got[q]!)) moved.push(`state ${i} question ${q}`);
      });
    }
    expect(moved).toEqual([]);
    expect(worst).toBeLessThanOrEqual(0.01);
  });

  test('embeddings keep a cosine of at least 0.999 to f32 compute', async () => {
    const texts = states.slice(0, 6);
    const want = await f32.embed(texts);
    const got = await int8.embed(texts);
    for (const [i, row] of want.entries()) expect(cosine(row, got[i] as Float32Array)).toBeGreaterThanOrEqual(0.999);
  });

  test('the answer JSON is the same on 1 and 2 threads', async () => {
    const one = await loadModelWith(nodeRuntime, { directory: kSmallCheckpoint }, { ...quiet, compute: 'int8', threads: 1 });
    try {
      for (const state of states.slice(0, 4)) expect(await one.predictJson(state, questions)).toBe(await int8.predictJson(state, questions));
    } finally {
      one.dispose();
    }
  });
});

test('compute int8 is refused with float weights kept as stored, on the GPU, and by any other name', async () => {
  const load = (options: object): Promise<unknown> => loadModelWith(nodeRuntime, { directory: kSmallCheckpoint }, { wasm: kWasm, ...options });
  await expect(load({ compute: 'int8', weights: 'stored' })).rejects.toThrow(
    "load: compute 'int8' multiplies q8 weights: leave options.weights unset or 'q8' (a q8 checkpoint loads as it is)");
  await expect(load({ compute: 'int8', backend: 'webgpu' })).rejects.toThrow("load: compute 'int8' runs in wasm; backend 'webgpu' computes in f32");
  await expect(load({ compute: 'int4' })).rejects.toThrow("load: options.compute must be 'f32' or 'int8', got int4");
});
