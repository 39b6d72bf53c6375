// LayaModel / LayaPipeline over the fake module: what crosses the wasm boundary for each call,
// copies instead of views, and the dispose contract (idempotent, await using, use after dispose).
import { LayaError } from '../../web/src/errors.js';
import { loadModelWith, loadPipelineWith } from '../../web/src/load.js';
import type { LayaModel } from '../../web/src/model.js';
import { nodeRuntime } from '../../web/src/node/node-runtime.js';
import { FakeCore } from './helpers/fake-core.js';
import { kTinyCheckpoint, safetensorsDataSection } from './helpers/fixtures.js';
import { join } from 'node:path';

async function loadFake(fake = new FakeCore()): Promise<LayaModel> {
  return loadModelWith(nodeRuntime, { directory: kTinyCheckpoint }, { wasm: { factory: fake.factory } });
}

interface Echo {
  method: string;
  state: string;
  stateIsJson: boolean;
  questions: string;
  options: string;
  outputs?: string;
}

describe('what predict sends to the engine', () => {
  test('a string state is text; a JS value and { json } are JSON text, the latter untouched', async () => {
    const model = await loadFake();
    const questions = { q: { type: 'noul' as const, instructions: 'Is it?' } };
    const asText = JSON.parse(await model.predictJson('hello\n', questions)) as Echo;
    expect(asText).toMatchObject({ method: 'predict', state: 'hello\n', stateIsJson: false, options: '{}' });
    expect(JSON.parse(asText.questions)).toEqual(questions);
    const asValue = (await model.predict({ b: 1, a: [2] }, questions)) as unknown as Echo;
    expect(asValue).toMatchObject({ state: '{"b":1,"a":[2]}', stateIsJson: true });
    const raw = '{"2": 1.0, "1": 1e-05}';
    const asJson = (await model.predict({ json: raw }, { json: '{"9": {"type": "noul", "instructions": "x"}, "1": {}}' },
      { shape: '0.3.7' })) as unknown as Echo;
    expect(asJson).toMatchObject({ state: raw, stateIsJson: true, questions: '{"9": {"type": "noul", "instructions": "x"}, "1": {}}',
      options: '{"shape":"0.3.7"}' });
    model.dispose();
  });

  test('bad arguments are invalid_request naming the argument', async () => {
    const model = await loadFake();
    await expect(model.predict('s', [] as never)).rejects.toThrow('predict: questions must be an object keyed by question id');
    await expect(model.predict(undefined, {})).rejects.toThrow('predict: state is undefined, not a JSON value');
    await expect(model.predict('s', {}, { shape: '0.4' as never })).rejects.toThrow('shape must be "current", "0.3.21" or "0.3.7"');
    await expect(model.embed(['a', 3 as never])).rejects.toThrow('embed: texts[1] is number, not a string');
    model.dispose();
  });

  test('prepare and answer pass the outputs as JSON text', async () => {
    const pipeline = await loadPipelineWith(nodeRuntime, { directory: kTinyCheckpoint }, { wasm: { factory: new FakeCore().factory } });
    const echo = (await pipeline.answer('s', { json: '{}' }, { logits: [[1, 2]], act: [[3, 4]] })) as unknown as Echo;
    expect(echo).toMatchObject({ method: 'answer', outputs: '{"logits":[[1,2]],"act":[[3,4]]}' });
    expect(((await pipeline.prepare('s', { json: '{}' })) as unknown as Echo).method).toBe('prepare');
    pipeline.dispose();
  });
});

describe('results', () => {
  test('embed returns Float32Array copies, one per text, with null read as ""', async () => {
    const fake = new FakeCore({ embed: (texts, maxLength) => texts.map((t) => [t.length, maxLength, 0.1]) });
    const model = await loadFake(fake);
    const rows = await model.embed(['abc', null], { maxLength: 16 });
    expect(rows).toHaveLength(2);
    expect(rows[0]).toBeInstanceOf(Float32Array);
    expect(Array.from(rows[0] as Float32Array)).toEqual([3, 16, Math.fround(0.1)]);
    expect(Array.from(rows[1] as Float32Array)).toEqual([0, 16, Math.fround(0.1)]);
    expect((rows[0] as Float32Array).buffer).not.toBe((rows[1] as Float32Array).buffer);
    // Copies: overwriting the module's memory where the engine kept the rows changes nothing.
    const kept = fake.session.embedded();
    expect(kept.buffer).not.toBe((rows[0] as Float32Array).buffer);
    kept.fill(7);
    expect(Array.from(rows[0] as Float32Array)).toEqual([3, 16, Math.fround(0.1)]);
    model.dispose();
  });

  test('forward and memory parse what the engine returns', async () => {
    const model = await loadFake();
    const result = await model.forward({ inputs: [{ ids: [1, 5, 7], markers: [1, 2], qtype: 0 }], embed_inputs: [{ ids: [1, 2] }] });
    expect(result).toEqual({ expected: [{ logits: [5, 7], act: [3, 0.5] }], embed_expected: [{ pooled: [2] }] });
    expect(model.memory().weightsBytes).toBe(safetensorsDataSection(join(kTinyCheckpoint, 'model.safetensors')).byteLength);
    expect(model.memory().wasmMemoryBytes).toBeGreaterThanOrEqual(model.memory().weightsBytes);
    model.dispose();
  });

  test('forward can run every sequence alone', async () => {
    const fake = new FakeCore();
    const model = await loadFake(fake);
    const result = await model.forward({ inputs: [{ ids: [1, 5], markers: [1], qtype: 0 }] }, { eachAlone: true });
    expect(result).toEqual({ expected: [{ logits: [5], act: [2, 0.5] }], embed_expected: [] });
    expect(fake.session.calls.filter((c) => c.startsWith('forward'))).toEqual(['forwardEachAlone', 'forwarded']);
    model.dispose();
  });

  test('forward reads its numbers from the float array the engine keeps, and forwardJson its text', async () => {
    const fake = new FakeCore();
    const model = await loadFake(fake);
    const request = { inputs: [{ ids: [1, 5, 7], markers: [1, 2], qtype: 0 }, { ids: [9], markers: [0], qtype: 1 }], embed_inputs: [{ ids: [1, 2] }] };
    const result = await model.forward(request);
    expect(result).toEqual({ expected: [{ logits: [5, 7], act: [3, 0.5] }, { logits: [9], act: [1, 0.5] }], embed_expected: [{ pooled: [2] }] });
    // Copies: overwriting the module's memory where the engine kept the outputs changes nothing.
    fake.session.forwarded().fill(-1);
    expect(result.expected[0]?.logits).toEqual([5, 7]);
    expect(await model.forwardJson(request)).toBe(JSON.stringify(result));
    expect(fake.session.calls.filter((c) => c.startsWith('forward'))).toEqual(['forward', 'forwarded', 'forwarded', 'forward', 'forwardedJson']);
    model.dispose();
  });

  test('load-time warnings go to onWarning and stay on the model', async () => {
    const fake = new FakeCore({ warnings: ['laya: this checkpoint ships invalid temperatures'] });
    const told: string[] = [];
    const model = await loadModelWith(nodeRuntime, { directory: kTinyCheckpoint },
      { wasm: { factory: fake.factory }, onWarning: (w) => told.push(w) });
    expect(told).toEqual(['laya: this checkpoint ships invalid temperatures']);
    expect(model.warnings).toEqual(told);
    model.dispose();
  });

  test('an engine error becomes a LayaError with its code', async () => {
    const fake = new FakeCore();
    const model = await loadFake(fake);
    fake.session.predict = () => '{"error":{"code":"invalid_request","message":"question \'q\': no \'instructions\'"}}';
    const error = await model.predict('s', {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LayaError);
    expect(error).toMatchObject({ code: 'invalid_request', message: "question 'q': no 'instructions'" });
    model.dispose();
  });
});

describe('dispose', () => {
  test('is idempotent and deletes the session once', async () => {
    const fake = new FakeCore();
    const model = await loadFake(fake);
    expect(model.disposed).toBe(false);
    model.dispose();
    model.dispose();
    await model[Symbol.asyncDispose]();
    expect(model.disposed).toBe(true);
    expect(fake.deleted).toBe(1);
  });

  test('await using disposes at the end of the block', async () => {
    const fake = new FakeCore();
    {
      await using model = await loadFake(fake);
      expect(model.config.hiddenSize).toBe(64);
      expect(fake.live).toBe(1);
    }
    expect(fake.live).toBe(0);
  });

  test('using a disposed model is a clear "disposed" error', async () => {
    const model = await loadFake();
    model.dispose();
    const error = await model.predict('s', {}).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'disposed' });
    expect((error as Error).message).toBe('predict: this LayaModel was disposed; load it again');
    expect(() => model.memory()).toThrow('memory: this LayaModel was disposed');
  });
});

describe('a wasm trap (the engine faulted, or the module aborted)', () => {
  const trapOnce = (fake: FakeCore, error: Error): void => {
    const session = fake.session;
    const predict = session.predict.bind(session);
    let thrown = false;
    session.predict = (...args: Parameters<typeof predict>) => {
      if (thrown) return predict(...args);
      thrown = true;
      throw error;
    };
  };

  test('ends the model: the call that trapped and every later one reject naming the trap, and dispose runs no destructor', async () => {
    const fake = new FakeCore();
    const model = await loadFake(fake);
    trapOnce(fake, new WebAssembly.RuntimeError('Out of bounds memory access'));
    const trapped = model.predictJson('s', {});
    await expect(trapped).rejects.toBeInstanceOf(LayaError);
    await expect(trapped).rejects.toMatchObject({
      code: 'internal',
      message: 'predict: the wasm module trapped (RuntimeError: Out of bounds memory access); this model can no longer be used: load it again',
    });
    await expect(model.predictJson('s', {})).rejects.toThrow(
      'predict: the wasm module trapped in an earlier call (RuntimeError: Out of bounds memory access); load the model again');
    await expect(model.embed(['a'])).rejects.toThrow('embed: the wasm module trapped in an earlier call');
    model.dispose();
    expect(model.disposed).toBe(true);
    expect(fake.session.deleted).toBe(false);
  });

  test('any other error thrown by the session passes as it is, and the model goes on', async () => {
    const fake = new FakeCore();
    const model = await loadFake(fake);
    trapOnce(fake, new TypeError('Cannot pass non-string to std::string'));
    await expect(model.predictJson('s', {})).rejects.toThrow(TypeError);
    expect(JSON.parse(await model.predictJson('s', {}))).toMatchObject({ method: 'predict' });
    model.dispose();
    expect(fake.session.deleted).toBe(true);
  });
});
