// predictBatch / predictBatchJson / predictEach (laya-spec-current §6): the call's checks in
// upstream's order and words, chunks of batchSize sent to the engine, progress per chunk, aborts
// between chunks (over the fake module); and, over the built module, every state answered exactly as
// predict() answers it alone, with wasm memory flat over thousands of states.
import { loadModelWith } from '../../web/src/load.js';
import type { LayaModel } from '../../web/src/model.js';
import { nodeRuntime } from '../../web/src/node/node-runtime.js';
import type { QuestionsInput, ResponseShape } from '../../web/src/request.js';
import { FakeCore } from './helpers/fake-core.js';
import { kSmallCheckpoint, kTinyCheckpoint } from './helpers/fixtures.js';
import { describeWithCore, kWasm } from './helpers/real-core.js';

const questions: QuestionsInput = {
  mood: { type: 'choice', instructions: 'How does the writer feel?', criteria: { calm: 'at ease', angry: 'upset', sad: 'low' } },
  urgent: { type: 'noul', instructions: 'Is it urgent?' },
  severity: { type: 'score', instructions: 'How severe is it?', criteria: ['1', '2', '3', '4'] },
};

/** The states of each engine call the fake module got. */
function enginesCalls(fake: FakeCore): unknown[][] {
  return fake.session.batches;
}

describe('the checks that span the whole list of states, in upstream\'s order and words', () => {
  let fake: FakeCore;
  let model: LayaModel;
  beforeEach(async () => {
    fake = new FakeCore();
    model = await loadModelWith(nodeRuntime, { directory: kTinyCheckpoint }, { wasm: { factory: fake.factory } });
  });
  afterEach(() => model.dispose());

  test('a single state instead of a list is refused, pointing at predict()', async () => {
    for (const state of ['one ticket', { ticket: 1 }]) {
      await expect(model.predictBatch(state as never, questions)).rejects.toMatchObject({
        code: 'invalid_request', message: 'predict_batch expects a list of states; pass a single state to predict()/system_one().',
      });
    }
  });

  test('questions that are not an object are refused with the Python type upstream names', async () => {
    const cases: Array<[QuestionsInput, string]> = [
      [[] as never, 'list'], ['q' as never, 'str'], [null as never, 'NoneType'], [{ json: '3' }, 'int'], [{ json: '2.5' }, 'float'], [{ json: 'true' }, 'bool'],
    ];
    for (const [bad, typeName] of cases) {
      await expect(model.predictBatch(['s'], bad)).rejects.toThrow(`questions must be a dict of question id -> definition, got ${typeName}`);
    }
  });

  test('a null state anywhere in the list fails the call before any state is answered', async () => {
    const states = ['a', 'b', 'c', 'd', null, 'f'];
    await expect(model.predictBatch(states, questions, { batchSize: 2 })).rejects.toThrow(
      'state must not be None; pass a string, dict, or list');
    await expect(model.predictBatch(['a', { json: 'null' }], questions)).rejects.toThrow('state must not be None');
    expect(enginesCalls(fake)).toEqual([]);
  });

  test('bad questions are named before a null state, as upstream checks them first', async () => {
    await expect(model.predictBatch([null], [] as never)).rejects.toThrow('got list');
  });

  test('an empty list answers [] without calling the engine, whatever the questions hold', async () => {
    await expect(model.predictBatch([], { q: { type: 'nonsense' } } as never)).resolves.toEqual([]);
    expect(enginesCalls(fake)).toEqual([]);
  });
});

describe('chunks, progress and aborts', () => {
  test('states go to the engine batchSize at a time, in order, text states as JSON strings, with progress after each chunk', async () => {
    const fake = new FakeCore();
    const model = await loadModelWith(nodeRuntime, { directory: kTinyCheckpoint }, { wasm: { factory: fake.factory } });
    const progress: string[] = [];
    const answers = await model.predictBatchJson(['a', { b: 1 }, ['c'], { json: '{"d": 1.0}' }, 'e'], questions, {
      batchSize: 2, shape: 'current', onProgress: ({ done, total }) => progress.push(`${done}/${total}`),
    });
    expect(enginesCalls(fake)).toEqual([['a', { b: 1 }], [['c'], { d: 1 }], ['e']]);
    expect(progress).toEqual(['2/5', '4/5', '5/5']);
    expect(answers).toHaveLength(5);
    expect(answers.map((a) => (JSON.parse(a) as { options: string }).options)).toEqual(Array(5).fill('{"shape":"current"}'));
    model.dispose();
  });

  test('predictEach yields each chunk\'s answers before the next chunk is sent', async () => {
    const fake = new FakeCore();
    const model = await loadModelWith(nodeRuntime, { directory: kTinyCheckpoint }, { wasm: { factory: fake.factory } });
    const seen: Array<[string, number]> = [];
    for await (const answer of model.predictEach(['a', 'b', 'c'], questions, { batchSize: 2 })) {
      seen.push([(answer as unknown as { state: string }).state, enginesCalls(fake).length]);
    }
    expect(seen).toEqual([['"a"', 1], ['"b"', 1], ['"c"', 2]]);
    model.dispose();
  });

  test('an abort after the first chunk stops before the next one is sent', async () => {
    const fake = new FakeCore();
    const model = await loadModelWith(nodeRuntime, { directory: kTinyCheckpoint }, { wasm: { factory: fake.factory } });
    const controller = new AbortController();
    await expect(model.predictBatch(['a', 'b', 'c', 'd'], questions, {
      batchSize: 2, signal: controller.signal, onProgress: () => controller.abort(),
    })).rejects.toMatchObject({ name: 'AbortError' });
    expect(enginesCalls(fake)).toHaveLength(1);
    model.dispose();
  });
});

describeWithCore('predictBatch over the built module', () => {
  let model: LayaModel;
  beforeAll(async () => {
    model = await loadModelWith(nodeRuntime, { directory: kSmallCheckpoint }, { wasm: kWasm, onWarning: () => undefined });
  });
  afterAll(() => model.dispose());

  const states = [
    'The invoice was charged twice and nobody answers the phone.',
    { ticket: 'VPN drops every hour', tags: ['network', 'remote'], priority: 2.0 },
    ['first message', 'second message, much later'],
    'Kurz: alles gut. ' + 'word '.repeat(400),
    '',
  ];

  test.each(['current', '0.3.21', '0.3.7'] as ResponseShape[])(
    'in shape %s each state\'s response is byte for byte the one predict gives it alone, for any batchSize', async (shape) => {
      const alone = await Promise.all(states.map((s) => model.predictJson(s, questions, { shape })));
      for (const batchSize of [1, 2, 16]) {
        expect(await model.predictBatchJson(states, questions, { shape, batchSize })).toEqual(alone);
      }
    });

  test('empty questions give upstream\'s empty response for every state', async () => {
    expect(await model.predictBatchJson(['a', 'b'], {}, { shape: 'current' })).toEqual(
      Array(2).fill('{"model": "laya-rl-agent", "answers": {}, "usage": {"input_tokens": 0, "output_tokens": 0}}'));
  });

  test('a state predict refuses fails the batch with predict\'s own message', async () => {
    const bad = { q: { type: 'choice', instructions: 'Pick', criteria: {} } };
    const alone = await model.predict('s', bad as never, { shape: 'current' }).then(() => 'answered', (e: Error) => e.message);
    await expect(model.predictBatch(['s', 't'], bad as never, { shape: 'current' })).rejects.toThrow(alone);
  });

  test('wasm memory stays flat over 2,000 states: a chunk\'s rows are held, not the batch\'s', async () => {
    const many = Array.from({ length: 2000 }, (_, i) => `ticket ${i}: ${'the printer jams again '.repeat(i % 7)}`);
    await model.predictBatch(many.slice(0, 32), questions);
    const before = model.memory().wasmMemoryBytes;
    const answers = await model.predictBatch(many, questions);
    expect(answers).toHaveLength(2000);
    expect(model.memory().wasmMemoryBytes).toBe(before);
  });
});
