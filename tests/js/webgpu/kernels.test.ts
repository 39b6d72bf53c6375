// Every WGSL kernel against the JavaScript port of its scalar C++ kernel (helpers/gpu-reference.ts),
// on random data over sequences of 1, 7 and 70 tokens packed together, widths that are not multiples
// of any tile, each weight dtype and each GEMM epilogue. Inputs reach the arena as the real programs'
// do, through an embed step of an F32 table whose row t is token t's.
import { jest } from '@jest/globals';
import type { GpuDevice } from '../../../web/src/webgpu/gpu-device.js';
import type { GpuDtype, GpuEpilogue, GpuRows, GpuStep } from '../../../web/src/webgpu/program.js';
import { awkwardBatch, rowsOfBatch, runProgram } from '../helpers/gpu-harness.js';
import * as ref from '../helpers/gpu-reference.js';
import { type TestTensor, randomTensor, seeded } from '../helpers/gpu-tensors.js';
import { testGpuDevice } from '../helpers/webgpu.js';

// One kernel's outputs against the reference: f32 sums in another order, exp / erf fits of 1-2 ulp.
const kTolerance = 1e-5;

// Each test compiles its kernel variant first; SwiftShader takes seconds for a GEMM.
jest.setTimeout(120_000);

let gpu: GpuDevice;
beforeAll(async () => {
  gpu = await testGpuDevice();
});
afterAll(() => gpu?.destroy());

const batch = awkwardBatch();
const rows = rowsOfBatch(batch);
const refBatch: ref.RefBatch = batch;

function rowCount(kind: GpuRows): number {
  return rows[kind];
}

/** An F32 table whose row t is token t's input, and the embed step putting it at `out`. */
function input(rand: () => number, name: string, width: number, out: number, scale = 1): { tensor: TestTensor; step: GpuStep; index: number } {
  return { tensor: randomTensor(rand, name, 'F32', [rows.tokens, width], scale), step: { op: 'embed', table: 0, out, width }, index: 0 };
}

/** A reference arena with `tensor` embedded at `out` (ids are 0, 1, 2, ...). */
function referenceArena(floats: number, tensor: TestTensor, out: number, width: number): Float32Array {
  const arena = new Float32Array(floats);
  ref.embed(arena, tensor.values, batch.ids, out, width);
  return arena;
}

describe('embed', () => {
  test.each<GpuDtype>(['F32', 'F16', 'BF16', 'I8'])('copies each token\'s %s table row, converted exactly, into the arena', async (dtype) => {
    const rand = seeded(1);
    const width = 67;
    const table = randomTensor(rand, 'tok_emb', dtype, [100, width]);
    const ids = Int32Array.from({ length: rows.tokens }, () => Math.floor(rand() * 100));
    const run = { ...batch, ids };
    const out = 5;
    await runProgram(gpu, [table], { steps: [{ op: 'embed', table: 0, out, width }], arenaFloats: out + rows.tokens * width + 3 }, run, async ({ read }) => {
      const arena = new Float32Array(out + rows.tokens * width);
      ref.embed(arena, table.values, ids, out, width);
      expect(await read(out, rows.tokens * width)).toEqual(arena.subarray(out));
    });
  });
});

describe('add_type', () => {
  test.each<GpuDtype>(['F16', 'BF16'])('adds the %s row of each sequence\'s question type to its tokens', async (dtype) => {
    const rand = seeded(2);
    const width = 70;
    const x = input(rand, 'x', width, 0);
    const types = randomTensor(rand, 'type_emb', dtype, [3, width]);
    const steps: GpuStep[] = [x.step, { op: 'add_type', h: 0, table: 1, width }];
    await runProgram(gpu, [x.tensor, types], { steps, arenaFloats: rows.tokens * width }, batch, async ({ read }) => {
      const arena = referenceArena(rows.tokens * width, x.tensor, 0, width);
      ref.addType(arena, 0, types.values, width, refBatch);
      expect(ref.worstError(await read(0, arena.length), arena)).toBeLessThanOrEqual(kTolerance);
    }, { typeCount: 3 });
  });
});

describe('layer_norm', () => {
  test.each<[string, GpuRows, GpuDtype, boolean, boolean]>([
    ['token rows with F32 weight and bias', 'tokens', 'F32', true, false],
    ['token rows in place with an F16 weight and no bias', 'tokens', 'F16', false, true],
    ['sequence rows with BF16 weight and bias', 'seqs', 'BF16', true, false],
    ['marker rows in place with F32 weight and bias', 'markers', 'F32', true, true],
  ])('normalises %s', async (_name, kind, dtype, withBias, inPlace) => {
    const rand = seeded(3);
    const width = 300;
    const x = input(rand, 'x', width, 7, 3);
    const w = randomTensor(rand, 'norm.weight', dtype, [width]);
    const b = randomTensor(rand, 'norm.bias', dtype, [width]);
    const out = inPlace ? 7 : 7 + rows.tokens * width + 9;
    const floats = 7 + 2 * rows.tokens * width + 9;
    const steps: GpuStep[] = [x.step, { op: 'layer_norm', x: 7, out, rows: kind, width, w: 1, b: withBias ? 2 : null, eps: 1e-5 }];
    await runProgram(gpu, [x.tensor, w, b], { steps, arenaFloats: floats }, batch, async ({ read }) => {
      const arena = referenceArena(floats, x.tensor, 7, width);
      ref.layerNorm(arena, 7, out, rowCount(kind), width, w.values, withBias ? b.values : null, 1e-5);
      const n = rowCount(kind) * width;
      expect(ref.worstError(await read(out, n), arena.subarray(out, out + n))).toBeLessThanOrEqual(kTolerance);
    });
  });
});

describe('layer_norm, wide rows', () => {
  test('normalises marker rows of 2100, wider than the 8 values per invocation it keeps in registers', async () => {
    const rand = seeded(11);
    const width = 2100;
    const x = input(rand, 'x', width, 0, 3);
    const w = randomTensor(rand, 'norm.weight', 'F16', [width]);
    const b = randomTensor(rand, 'norm.bias', 'F32', [width]);
    const out = rows.tokens * width;
    const floats = out + rows.markers * width;
    const steps: GpuStep[] = [x.step, { op: 'layer_norm', x: 0, out, rows: 'markers', width, w: 1, b: 2, eps: 1e-5 }];
    await runProgram(gpu, [x.tensor, w, b], { steps, arenaFloats: floats }, batch, async ({ read }) => {
      const arena = referenceArena(floats, x.tensor, 0, width);
      ref.layerNorm(arena, 0, out, rows.markers, width, w.values, b.values, 1e-5);
      expect(ref.worstError(await read(out, rows.markers * width), arena.subarray(out))).toBeLessThanOrEqual(kTolerance);
    });
  });
});

describe('gemm', () => {
  type Case = [string, GpuDtype, GpuEpilogue, boolean, GpuRows, number, number];
  test.each<Case>([
    ['F32 weights and a bias', 'F32', 'none', true, 'tokens', 67, 130],
    ['F16 weights and a bias', 'F16', 'none', true, 'tokens', 67, 130],
    ['BF16 weights and a bias', 'BF16', 'none', true, 'tokens', 67, 130],
    ['q8 weights (k not a multiple of 64) and a bias', 'I8', 'none', true, 'tokens', 131, 65],
    ['the GELU epilogue', 'F16', 'gelu', true, 'tokens', 200, 64],
    ['the ReLU epilogue', 'BF16', 'relu', false, 'tokens', 16, 63],
    ['the accumulate epilogue', 'F32', 'accumulate', true, 'tokens', 300, 70],
    ['marker rows and one output column', 'F16', 'none', true, 'markers', 65, 1],
    ['sequence rows and one input column', 'F32', 'accumulate', false, 'seqs', 1, 129],
  ])('multiplies by the transposed weight with %s', async (_name, dtype, epilogue, withBias, kind, k, n) => {
    const rand = seeded(4);
    const a = input(rand, 'a', k, 3);
    const w = randomTensor(rand, 'w', dtype, [n, k], 0.5);
    const b = randomTensor(rand, 'b', 'F32', [n]);
    const old = randomTensor(rand, 'old', 'F32', [rows.tokens, n]);
    const out = 3 + rows.tokens * k + 5;
    const floats = out + rows.tokens * n + 2;
    const steps: GpuStep[] = [
      a.step,
      { op: 'embed', table: 3, out, width: n },
      { op: 'gemm', a: 3, out, rows: kind, k, n, w: 1, b: withBias ? 2 : null, epilogue },
    ];
    await runProgram(gpu, [a.tensor, w, b, old], { steps, arenaFloats: floats }, batch, async ({ read }) => {
      const arena = referenceArena(floats, a.tensor, 3, k);
      ref.embed(arena, old.values, batch.ids, out, n);
      ref.gemm(arena, 3, out, rowCount(kind), k, n, w.values, withBias ? b.values : null, epilogue);
      const count = rows.tokens * n;
      expect(ref.worstError(await read(out, count), arena.subarray(out, out + count))).toBeLessThanOrEqual(kTolerance);
    });
  });
});

describe('rope', () => {
  test.each([10000, 160000])('rotates q and k (not v) with positions restarting in each sequence, theta %d', async (theta) => {
    const rand = seeded(5);
    const heads = 2;
    const width = 3 * heads * 64;
    const x = input(rand, 'qkv', width, 1);
    const steps: GpuStep[] = [x.step, { op: 'rope', qkv: 1, heads, theta }];
    await runProgram(gpu, [x.tensor], { steps, arenaFloats: 1 + rows.tokens * width }, batch, async ({ read }) => {
      const arena = referenceArena(1 + rows.tokens * width, x.tensor, 1, width);
      ref.rope(arena, 1, heads, batch.seqStarts, theta);
      expect(ref.worstError(await read(1, rows.tokens * width), arena.subarray(1))).toBeLessThanOrEqual(kTolerance);
    });
  });
});

describe('attention', () => {
  test.each<[string, number | null]>([
    ['every key of its sequence', null],
    ['keys within a window of 20 (across query blocks)', 20],
    ['keys within a window of 3', 3],
    ['only itself with a window of 0', 0],
  ])('attends each query to %s', async (_name, window) => {
    const rand = seeded(6);
    const heads = 3;
    const d = heads * 64;
    const x = input(rand, 'qkv', 3 * d, 0, 0.6);
    const out = rows.tokens * 3 * d + 11;
    const floats = out + rows.tokens * d;
    const steps: GpuStep[] = [x.step, { op: 'attention', qkv: 0, out, heads, window }];
    await runProgram(gpu, [x.tensor], { steps, arenaFloats: floats }, batch, async ({ read }) => {
      const arena = referenceArena(floats, x.tensor, 0, 3 * d);
      ref.attention(arena, 0, out, heads, batch.seqStarts, window);
      expect(ref.worstError(await read(out, rows.tokens * d), arena.subarray(out))).toBeLessThanOrEqual(kTolerance);
    });
  });
});

describe('rope fused into attention', () => {
  test.each<[string, number | null]>([
    ['every key', null],
    ['a window of 20', 20],
  ])('rotating q and k as attention stages them gives rope then attention, over %s', async (_name, window) => {
    const rand = seeded(12);
    const heads = 2;
    const d = heads * 64;
    const x = input(rand, 'qkv', 3 * d, 0, 0.6);
    const out = rows.tokens * 3 * d + 11;
    const floats = out + rows.tokens * d;
    const steps: GpuStep[] = [x.step, { op: 'rope', qkv: 0, heads, theta: 160000 }, { op: 'attention', qkv: 0, out, heads, window }];
    await runProgram(gpu, [x.tensor], { steps, arenaFloats: floats }, batch, async ({ read, executor }) => {
      const arena = referenceArena(floats, x.tensor, 0, 3 * d);
      ref.rope(arena, 0, heads, batch.seqStarts, 160000);
      ref.attention(arena, 0, out, heads, batch.seqStarts, window);
      expect(ref.worstError(await read(out, rows.tokens * d), arena.subarray(out))).toBeLessThanOrEqual(kTolerance);
      // Two dispatches: the embed and the attention; the RoPE is done inside the attention.
      expect(executor.stats().dispatches).toBe(2);
    });
  });
});

describe('geglu', () => {
  test('multiplies the exact GELU of the first half by the second half', async () => {
    const rand = seeded(7);
    const n = 131;
    // Inputs up to ±8 reach every branch of the erf fit (|x·√½| below 1, 1 to 4, beyond 4).
    const x = input(rand, 'x', 2 * n, 0, 8);
    const out = rows.tokens * 2 * n;
    const steps: GpuStep[] = [x.step, { op: 'geglu', x: 0, out, rows: 'tokens', n }];
    await runProgram(gpu, [x.tensor], { steps, arenaFloats: out + rows.tokens * n }, batch, async ({ read }) => {
      const arena = referenceArena(out + rows.tokens * n, x.tensor, 0, 2 * n);
      ref.geglu(arena, 0, out, rows.tokens, n);
      expect(ref.worstError(await read(out, rows.tokens * n), arena.subarray(out))).toBeLessThanOrEqual(kTolerance);
    });
  });
});

describe('gelu', () => {
  test('the GELU is within 2e-7 · max(1, |y|) of the exact erf GELU on a dense grid over [-10, 10]', async () => {
    // GeGlu with every second half 1: out = gelu(x) exactly as the kernels compute it.
    const n = 20001;
    const grid = new Float32Array(2 * n);
    for (let j = 0; j < n; ++j) {
      grid[j] = -10 + (20 * j) / (n - 1);
      grid[n + j] = 1;
    }
    const x: TestTensor = { name: 'x', dtype: 'F32', shape: [1, 2 * n], bytes: new Uint8Array(grid.buffer), values: grid };
    const one = { ...batch, ids: Int32Array.from([0]), seqStarts: Int32Array.from([0, 1]), markers: Int32Array.from([0]), markerStarts: Int32Array.from([0, 1]), qtypes: Int32Array.from([0]) };
    const steps: GpuStep[] = [{ op: 'embed', table: 0, out: 0, width: 2 * n }, { op: 'geglu', x: 0, out: 2 * n, rows: 'tokens', n }];
    await runProgram(gpu, [x], { steps, arenaFloats: 3 * n }, one, async ({ read }) => {
      const exact = Array.from(grid.subarray(0, n), (v) => 0.5 * v * (1 + ref.erf(v * Math.SQRT1_2)));
      expect(ref.worstError(await read(2 * n, n), exact)).toBeLessThanOrEqual(2e-7);
    });
  });
});

describe('markers and pooling', () => {
  const width = 90;

  test('gather_markers copies each marker\'s token row, counted within its own sequence', async () => {
    const rand = seeded(8);
    const x = input(rand, 'h', width, 0);
    const out = rows.tokens * width;
    const steps: GpuStep[] = [x.step, { op: 'gather_markers', h: 0, out, width }];
    await runProgram(gpu, [x.tensor], { steps, arenaFloats: out + rows.markers * width }, batch, async ({ read }) => {
      const arena = referenceArena(out + rows.markers * width, x.tensor, 0, width);
      ref.gatherMarkers(arena, 0, out, width, refBatch);
      expect(await read(out, rows.markers * width)).toEqual(arena.subarray(out));
    });
  });

  test('act_features copies each sequence\'s first row and the four features of its markers\' logits', async () => {
    const rand = seeded(9);
    const h = input(rand, 'h', width, 0);
    const logits = randomTensor(rand, 'logits', 'F32', [rows.tokens, 1], 4);
    const at = rows.tokens * width;
    const out = at + rows.tokens + 1;
    const floats = out + rows.seqs * (width + 4);
    const steps: GpuStep[] = [
      h.step,
      { op: 'embed', table: 1, out: at, width: 1 },
      { op: 'act_features', h: 0, logits: at, out, width },
    ];
    await runProgram(gpu, [h.tensor, logits], { steps, arenaFloats: floats }, batch, async ({ read }) => {
      const arena = referenceArena(floats, h.tensor, 0, width);
      ref.embed(arena, logits.values, batch.ids, at, 1);
      ref.actFeatures(arena, 0, at, out, width, refBatch);
      expect(ref.worstError(await read(out, rows.seqs * (width + 4)), arena.subarray(out))).toBeLessThanOrEqual(kTolerance);
    });
  });

  test('mean_pool averages each sequence\'s token rows', async () => {
    const rand = seeded(10);
    const x = input(rand, 'h', width, 0, 5);
    const out = rows.tokens * width;
    const steps: GpuStep[] = [x.step, { op: 'mean_pool', h: 0, out, width }];
    await runProgram(gpu, [x.tensor], { steps, arenaFloats: out + rows.seqs * width }, batch, async ({ read }) => {
      const arena = referenceArena(out + rows.seqs * width, x.tensor, 0, width);
      ref.meanPool(arena, 0, out, width, refBatch);
      expect(ref.worstError(await read(out, rows.seqs * width), arena.subarray(out))).toBeLessThanOrEqual(kTolerance);
    });
  });
});
