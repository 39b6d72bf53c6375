// { signal } on the calls that run the model, without a worker (Node, the built module, the tiny
// fixture): an abort before the call starts rejects at once with an AbortError and runs nothing,
// and the model answers the next call exactly as before.
import { loadModelWith } from '../../web/src/load.js';
import type { LayaModel } from '../../web/src/model.js';
import { nodeRuntime } from '../../web/src/node/node-runtime.js';
import { predictShortlist } from '../../web/src/shortlist.js';
import { kTinyCheckpoint } from './helpers/fixtures.js';
import { describeWithCore, kWasm } from './helpers/real-core.js';

const kState = 'w5 w6 w7 w8 w9';
const kQuestions = {
  pick: { type: 'choice' as const, instructions: 'w10 w11', criteria: { w12: null, w13: 'w14 w15', w16: null } },
  holds: { type: 'noul' as const, instructions: 'w30 w31' },
};
const kInputs = { inputs: [{ ids: [1, 20, 21, 22, 2], markers: [1, 2], qtype: 0 }], embed_inputs: [{ ids: [1, 30, 31, 2] }] };

describeWithCore('cancelling a call of a model loaded on this thread', () => {
  let model: LayaModel;
  beforeAll(async () => {
    model = await loadModelWith(nodeRuntime, { directory: kTinyCheckpoint }, { wasm: kWasm, threads: 1, onWarning: () => undefined });
  });
  afterAll(() => model?.dispose());

  test('every call given an aborted signal rejects with an AbortError naming the call, and runs no forward pass', async () => {
    const signal = AbortSignal.abort();
    model.setProfiling(true);
    const calls: Array<[string, () => Promise<unknown>]> = [
      ['predict', () => model.predict(kState, kQuestions, { signal })],
      ['predict', () => model.predictJson(kState, kQuestions, { signal })],
      ['embed', () => model.embed(['w5 w7'], { signal })],
      ['embed', () => model.embedJson(['w5 w7'], { signal })],
      ['forward', () => model.forward(kInputs, { signal })],
      ['forward', () => model.forwardJson(kInputs, { signal })],
      ['predictShortlist', () => predictShortlist(model, kState, kQuestions, { k: 2, signal })],
    ];
    for (const [what, call] of calls) {
      await expect(call()).rejects.toMatchObject({ name: 'AbortError', message: expect.stringContaining(`laya-wasm ${what} was aborted`) });
    }
    expect(model.profile().runs).toBe(0);
    model.setProfiling(false);
  });

  test('after aborted calls the model answers exactly as a model that never saw one', async () => {
    const fresh = await loadModelWith(nodeRuntime, { directory: kTinyCheckpoint }, { wasm: kWasm, threads: 1, onWarning: () => undefined });
    const want = { answer: await fresh.predictJson(kState, kQuestions), forward: await fresh.forward(kInputs), embed: await fresh.embed(['w5 w7']) };
    fresh.dispose();
    const reason = new Error('the user left');
    await expect(model.predictJson(kState, kQuestions, { signal: AbortSignal.abort(reason) }))
      .rejects.toMatchObject({ name: 'AbortError', message: 'laya-wasm predict was aborted: the user left' });
    expect(await model.predictJson(kState, kQuestions, { signal: new AbortController().signal })).toBe(want.answer);
    expect(await model.forward(kInputs)).toEqual(want.forward);
    expect(await model.embed(['w5 w7'])).toEqual(want.embed);
  });
});
