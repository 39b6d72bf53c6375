// The built wasm module through load(): the reference fixtures' forward outputs (an independent
// PyTorch fp32 reference, tests/data/fixtures/README.md) within 1e-4 * max(1, |expected|) and the
// same argmax, packed and each sequence alone, with any thread count; the tiny checkpoint is also
// loaded over HTTP.
import { join } from 'node:path';
import { loadModelWith } from '../../../web/src/load.js';
import { nodeRuntime } from '../../../web/src/node/node-runtime.js';
import type { ForwardResult } from '../../../web/src/request.js';
import { startCheckpointServer } from '../helpers/checkpoint-server.js';
import { safetensorsDataSection } from '../helpers/fixtures.js';
import { compareWithReference, referenceFixture, referenceSetDir } from '../helpers/reference-fixtures.js';
import { describeWithCore, kWasm } from '../helpers/real-core.js';

const quiet = { wasm: kWasm, onWarning: () => undefined };
const setDir = referenceSetDir;
const fixtureOf = referenceFixture;
const compare = compareWithReference;

describeWithCore('forward on the reference fixtures', () => {
  test.each(['tiny-fanin', 'small-fanin'])('%s matches the reference, packed and each alone', async (name) => {
    const fixture = fixtureOf(name);
    const model = await loadModelWith(nodeRuntime, { directory: join(setDir(name), 'checkpoint') }, quiet);
    const request = { inputs: fixture.inputs, embed_inputs: fixture.embed_inputs };
    for (const eachAlone of [false, true]) {
      const result = compare(await model.forward(request, { eachAlone }), fixture);
      expect(result.counts).toEqual([fixture.expected.length, fixture.embed_expected.length]);
      expect(result.argmaxMoved).toEqual([]);
      expect(result.worst).toBeLessThan(1e-4);
    }
    model.dispose();
  });

  test('forward() carries the engine\'s f32 values, and forwardJson() the text that reads back as each of them', async () => {
    const fixture = fixtureOf('tiny-fanin');
    const model = await loadModelWith(nodeRuntime, { directory: join(setDir('tiny-fanin'), 'checkpoint') }, quiet);
    const request = { inputs: fixture.inputs, embed_inputs: fixture.embed_inputs };
    const numbers = await model.forward(request);
    const fromText = JSON.parse(await model.forwardJson(request)) as ForwardResult;
    model.dispose();
    const flat = (r: ForwardResult): number[] => [...r.expected.flatMap((e) => [...e.logits, ...e.act]), ...r.embed_expected.flatMap((e) => e.pooled)];
    const values = flat(numbers);
    expect(values.length).toBeGreaterThan(1000);
    expect(values.every((x) => Math.fround(x) === x)).toBe(true);  // f32 values, not decimal re-readings
    expect(flat(fromText).map((x) => Math.fround(x))).toEqual(values);
  });

  test('1, 2 and 3 threads give the same bits, on the threaded module, within the reference tolerance', async () => {
    const fixture = fixtureOf('small-fanin');
    const request = { inputs: fixture.inputs, embed_inputs: fixture.embed_inputs };
    const texts: string[] = [];
    for (const threads of [1, 2, 3]) {
      const warnings: string[] = [];
      const model = await loadModelWith(nodeRuntime, { directory: join(setDir('small-fanin'), 'checkpoint') },
        { ...quiet, threads, onWarning: (w) => warnings.push(w) });
      expect(model.threads).toBe(threads);
      expect(warnings.filter((w) => w.includes('thread'))).toEqual([]);
      const text = await model.forwardJson(request);
      expect(compare(JSON.parse(text) as ForwardResult, fixture).worst).toBeLessThan(1e-4);
      texts.push(text);
      model.dispose();
    }
    expect(texts[1]).toBe(texts[0]);
    expect(texts[2]).toBe(texts[0]);
  });

  test('the tiny checkpoint streamed over HTTP gives the same outputs', async () => {
    const server = await startCheckpointServer({ '/org/tiny/resolve/main/': join(setDir('tiny-fanin'), 'checkpoint') }, { chunkBytes: 7000 });
    try {
      const fixture = fixtureOf('tiny-fanin');
      const model = await loadModelWith(nodeRuntime, { repo: 'org/tiny', hubUrl: server.origin }, quiet);
      const result = compare(await model.forward({ inputs: fixture.inputs, embed_inputs: fixture.embed_inputs }), fixture);
      expect(result.argmaxMoved).toEqual([]);
      expect(result.worst).toBeLessThan(1e-4);
      const memory = model.memory();
      expect(memory.weightsBytes).toBeGreaterThanOrEqual(safetensorsDataSection(join(setDir('tiny-fanin'), 'checkpoint', 'model.safetensors')).byteLength);
      expect(memory.wasmMemoryBytes).toBeGreaterThan(memory.weightsBytes);
      model.dispose();
    } finally {
      await server.close();
    }
  });
});
