// The WebGPU backend through load() (web/src/webgpu/gpu-session.ts), on SwiftShader: forward
// passes of the reference fixtures within 1e-4 * max(1, |expected|) with the same argmax, predict,
// predictShortlist and embed agreeing with the wasm engine, weights held on the GPU and not in
// wasm memory, and the faults a page meets (no adapter, 'auto' without one, a lost device).
// SwiftShader emulates the GPU on the CPU at about 0.05 GFLOP/s and compiles each kernel for
// seconds, so one model is loaded per suite and the fixtures are cut to short sequences: every
// qtype, several markers, sequences shorter and longer than the local attention window.
import { jest } from '@jest/globals';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LayaError } from '../../../web/src/errors.js';
import { loadModelWith } from '../../../web/src/load.js';
import type { LayaModel } from '../../../web/src/model.js';
import { nodeRuntime } from '../../../web/src/node/node-runtime.js';
import { defaultGpu } from '../../../web/src/webgpu/gpu-device.js';
import { compareWithReference, referenceFixture, referenceSetDir, type ReferenceFixture } from '../helpers/reference-fixtures.js';
import { describeWithCore, kWasm } from '../helpers/real-core.js';
import { testGpuDevice } from '../helpers/webgpu.js';

jest.setTimeout(300_000);

const quiet = { wasm: kWasm, onWarning: () => undefined };
const kDecisionInputs = [0, 1, 2, 3, 5, 7, 12, 22];
const kEmbedInputs = [0, 1, 2, 5];

/** The fixture cut to the chosen sequences, expected outputs with them. */
function subset(name: string): ReferenceFixture {
  const f = referenceFixture(name);
  return {
    inputs: kDecisionInputs.map((i) => f.inputs[i]!),
    expected: kDecisionInputs.map((i) => f.expected[i]!),
    embed_inputs: kEmbedInputs.map((i) => f.embed_inputs![i]!),
    embed_expected: kEmbedInputs.map((i) => f.embed_expected[i]!),
  };
}

const checkpoint = (name: string): { directory: string } => ({ directory: join(referenceSetDir(name), 'checkpoint') });

/**
 * A GPU whose adapter is the real one until `lose()` destroys the device it handed out; `lose()`
 * resolves once the device's `lost` promise has, i.e. after the model's own handler, registered
 * at load, has seen the loss.
 */
async function losableGpu(): Promise<{ gpu: GPU; lose: () => Promise<void> }> {
  const real = await defaultGpu();
  let device: GPUDevice | null = null;
  const gpu = {
    requestAdapter: async (options?: GPURequestAdapterOptions) => {
      const adapter = await real.requestAdapter(options);
      if (adapter === null) return null;
      return new Proxy(adapter, {
        get(target, key) {
          if (key === 'requestDevice') {
            return async (descriptor?: GPUDeviceDescriptor) => (device = await target.requestDevice(descriptor));
          }
          const value = Reflect.get(target, key, target) as unknown;
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
    },
  } as unknown as GPU;
  const lose = async (): Promise<void> => {
    if (device === null) throw new Error('losableGpu: no device was requested');
    device.destroy();
    await device.lost;
  };
  return { gpu, lose };
}

const noAdapterGpu = { requestAdapter: async () => null } as unknown as GPU;

describeWithCore('the WebGPU backend through load()', () => {
  beforeAll(async () => {
    // Points the Vulkan loader at SwiftShader (or fails saying how to get a driver).
    (await testGpuDevice()).destroy();
  });

  describe('on tiny-fanin', () => {
    let gpuModel: LayaModel;
    let wasmModel: LayaModel;
    beforeAll(async () => {
      gpuModel = await loadModelWith(nodeRuntime, checkpoint('tiny-fanin'), { ...quiet, backend: 'webgpu' });
      wasmModel = await loadModelWith(nodeRuntime, checkpoint('tiny-fanin'), quiet);
    });
    afterAll(() => {
      gpuModel?.dispose();
      wasmModel?.dispose();
    });

    test('says it runs on WebGPU, with the weights on the GPU and none in wasm memory', () => {
      expect(gpuModel.backend).toBe('webgpu');
      expect(wasmModel.backend).toBe('wasm');
      const gpu = gpuModel.memory();
      const wasm = wasmModel.memory();
      expect(gpu.weightsBytes).toBe(0);
      expect(gpu.arenaBytes).toBe(0);
      expect(gpu.gpuWeightsBytes).toBeGreaterThanOrEqual(wasm.weightsBytes * 0.9);
    });

    test('forward matches the reference fixture, packed and each sequence alone', async () => {
      const fixture = subset('tiny-fanin');
      const request = { inputs: fixture.inputs, embed_inputs: fixture.embed_inputs };
      for (const eachAlone of [false, true]) {
        const result = compareWithReference(await gpuModel.forward(request, { eachAlone }), fixture);
        expect(result.counts).toEqual([kDecisionInputs.length, kEmbedInputs.length]);
        expect(result.argmaxMoved).toEqual([]);
        expect(result.worst).toBeLessThan(1e-4);
      }
    });

    test('predict and predictShortlist choose what the wasm engine chooses', async () => {
      const state = 'w40 w41 w42 w43';
      const questions = {
        c: { type: 'choice', instructions: 'w10', criteria: ['w50', 'w51', 'w52', 'w53'] },
        n: { type: 'noul', instructions: 'w11' },
        s: { type: 'score', instructions: 'w12', criteria: ['w60', 'w61', 'w62'] },
      } as const;
      const chosen = (answer: { answers: Record<string, unknown> }) =>
        Object.fromEntries(Object.entries(answer.answers).map(([k, v]) => [k, (v as { choice?: unknown; value?: unknown }).choice ?? (v as { value?: unknown }).value]));
      const onGpu = await gpuModel.predict(state, questions);
      const onWasm = await wasmModel.predict(state, questions);
      expect(chosen(onGpu)).toEqual(chosen(onWasm));
      expect(Object.keys(onGpu.answers)).toEqual(['c', 'n', 's']);
      const shortGpu = JSON.parse(await gpuModel.predictShortlistJson(state, questions, { k: 2, maxLength: 16 })) as { answers: Record<string, unknown>; shortlist: unknown };
      const shortWasm = JSON.parse(await wasmModel.predictShortlistJson(state, questions, { k: 2, maxLength: 16 })) as { answers: Record<string, unknown>; shortlist: unknown };
      expect(chosen(shortGpu)).toEqual(chosen(shortWasm));
      // The same labels kept; their cosine scores come from embeddings that agree within rounding.
      type Entry = { labels: string[]; scores: number[] | null };
      const gpuEntry = (shortGpu.shortlist as Record<string, Entry>)['c']!;
      const wasmEntry = (shortWasm.shortlist as Record<string, Entry>)['c']!;
      expect(gpuEntry.labels).toEqual(wasmEntry.labels);
      expect(gpuEntry.labels).toHaveLength(2);
      wasmEntry.scores!.forEach((x, i) => expect(Math.abs(gpuEntry.scores![i]! - x)).toBeLessThan(1e-4));
    });

    test('embed agrees with the wasm engine within 1e-4', async () => {
      const texts = ['w40 w41', '', 'w1 w2 w3 w4 w5 w6 w7 w8 w9 w10 w11 w12 w13 w14 w15 w16 w17 w18 w19 w20'];
      const onGpu = await gpuModel.embed(texts, { maxLength: 32 });
      const onWasm = await wasmModel.embed(texts, { maxLength: 32 });
      expect(onGpu).toHaveLength(3);
      onWasm.forEach((row, i) => {
        row.forEach((x, j) => expect(Math.abs(onGpu[i]![j]! - x)).toBeLessThan(1e-4 * Math.max(1, Math.abs(x))));
      });
    });

    test('profiles its batches with their GEMM arithmetic', async () => {
      gpuModel.setProfiling(true);
      await gpuModel.forward({ inputs: [{ ids: [1, 2, 3, 4, 5], markers: [1, 3], qtype: 0 }], embed_inputs: [] });
      const profile = gpuModel.profile();
      gpuModel.setProfiling(false);
      expect(profile.runs).toBe(1);
      const gflop = profile.steps.reduce((sum, s) => sum + s.gflop, 0);
      expect(gflop).toBeGreaterThan(0);
      expect(profile.steps.every((s) => s.ms >= 0)).toBe(true);
    });

    test('a bad request is refused by the engine before any batch reaches the GPU', async () => {
      await expect(gpuModel.forward({ inputs: [{ ids: [1, 999999], markers: [0], qtype: 0 }], embed_inputs: [] }))
        .rejects.toMatchObject({ code: 'invalid_request', message: expect.stringContaining('999999') });
      const again = compareWithReference(
        await gpuModel.forward({ inputs: subset('tiny-fanin').inputs.slice(0, 2), embed_inputs: [] }),
        { ...subset('tiny-fanin'), expected: subset('tiny-fanin').expected.slice(0, 2), embed_expected: [] });
      expect(again.worst).toBeLessThan(1e-4);
    });
  });

  test('small-fanin matches the reference fixture', async () => {
    const fixture = subset('small-fanin');
    const model = await loadModelWith(nodeRuntime, checkpoint('small-fanin'), { ...quiet, backend: 'webgpu' });
    try {
      const result = compareWithReference(await model.forward({ inputs: fixture.inputs, embed_inputs: fixture.embed_inputs }), fixture);
      expect(result.argmaxMoved).toEqual([]);
      expect(result.worst).toBeLessThan(1e-4);
    } finally {
      model.dispose();
    }
  });

  test("backend 'webgpu' without an adapter is a LayaError saying so, and nothing is left loaded", async () => {
    const load = loadModelWith(nodeRuntime, checkpoint('tiny-fanin'), { ...quiet, backend: 'webgpu', gpu: noAdapterGpu });
    await expect(load).rejects.toBeInstanceOf(LayaError);
    await expect(load).rejects.toMatchObject({ code: 'unsupported_model', message: expect.stringContaining('no WebGPU adapter') });
  });

  test("backend 'auto' without an adapter runs on wasm and says why", async () => {
    const warnings: string[] = [];
    const model = await loadModelWith(nodeRuntime, checkpoint('tiny-fanin'),
      { wasm: kWasm, backend: 'auto', gpu: noAdapterGpu, onWarning: (w) => warnings.push(w) });
    try {
      expect(model.backend).toBe('wasm');
      expect(warnings.some((w) => w.includes("backend 'auto' runs on wasm") && w.includes('no WebGPU adapter'))).toBe(true);
    } finally {
      model.dispose();
    }
  });

  test("weights 'q8' with backend 'webgpu' is refused before anything loads", async () => {
    await expect(loadModelWith(nodeRuntime, checkpoint('tiny-fanin'), { ...quiet, backend: 'webgpu', weights: 'q8' }))
      .rejects.toMatchObject({ code: 'invalid_request', message: expect.stringContaining("backend 'webgpu'") });
  });

  test('a NaN norm weight is refused at load with the message the wasm backend gives', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'laya-gpu-nan-'));
    try {
      const source = checkpoint('tiny-fanin').directory;
      cpSync(source, dir, { recursive: true });
      const file = readFileSync(join(source, 'model.safetensors'));
      const headerEnd = 8 + Number(file.readBigUInt64LE(0));
      const header = JSON.parse(file.subarray(8, headerEnd).toString('utf8')) as Record<string, { dtype: string; data_offsets: [number, number] }>;
      const norm = header['encoder.final_norm.weight']!;
      expect(norm.dtype).toBe('F32');
      file.writeFloatLE(Number.NaN, headerEnd + norm.data_offsets[0] + 17 * 4);
      writeFileSync(join(dir, 'model.safetensors'), file);
      await expect(loadModelWith(nodeRuntime, { directory: dir }, { ...quiet, backend: 'webgpu' })).rejects.toMatchObject({
        code: 'invalid_checkpoint',
        message: 'model.safetensors: encoder.final_norm.weight holds nan at element 17; ' +
          'a norm weight or bias that is not finite makes every output non-finite',
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a device lost after load makes every call fail naming the loss; dispose still frees it', async () => {
    const { gpu, lose } = await losableGpu();
    const model = await loadModelWith(nodeRuntime, checkpoint('tiny-fanin'), { ...quiet, backend: 'webgpu', gpu });
    expect(model.backend).toBe('webgpu');
    await lose();
    await expect(model.forward({ inputs: [{ ids: [1, 2], markers: [0], qtype: 0 }], embed_inputs: [] }))
      .rejects.toMatchObject({ message: expect.stringContaining('lost') });
    model.dispose();
    expect(model.disposed).toBe(true);
    await expect(model.predict('w1', { n: { type: 'noul', instructions: 'w2' } })).rejects.toMatchObject({ code: 'disposed' });
  });
});
