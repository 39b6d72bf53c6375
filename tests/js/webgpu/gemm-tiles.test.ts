// The register-tiled GEMM (kernels/gemm-tiled.ts), each tile choice against the JavaScript port of
// the scalar C++ kernel (helpers/gpu-reference.ts), at sizes around its tile: M, N and K of 1 or the
// smallest load, one tile less or more a step, so that every edge of a tile and of a k slice is
// crossed. Each case also checks which kernel ran: a step the tiled kernel cannot take (odd widths,
// unaligned offsets, q8) falls back to the scalar one, and that is tested as such, never by accident.
// shader-f16 staging is not exercised here (SwiftShader has no shader-f16): its parity awaits a GPU
// run (README, "WebGPU kernels"); the last test checks it is chosen only where the device has it.
import { jest } from '@jest/globals';
import type { GpuDevice } from '../../../web/src/webgpu/gpu-device.js';
import { autoTile, kGemmChoices } from '../../../web/src/webgpu/kernels/gemm.js';
import type { GemmTileName } from '../../../web/src/webgpu/gemm-choice.js';
import { kGemmTiles } from '../../../web/src/webgpu/kernels/gemm-tiled.js';
import type { GpuBatch, GpuDtype, GpuEpilogue, GpuStep } from '../../../web/src/webgpu/program.js';
import { runProgram } from '../helpers/gpu-harness.js';
import * as ref from '../helpers/gpu-reference.js';
import { randomTensor, seeded } from '../helpers/gpu-tensors.js';
import { testGpuDevice } from '../helpers/webgpu.js';

// As kernels.test.ts: f32 sums (the same order), exp / erf fits of 1-2 ulp in the GELU epilogue.
const kTolerance = 1e-5;

jest.setTimeout(240_000);

let gpu: GpuDevice;
beforeAll(async () => {
  gpu = await testGpuDevice();
});
afterAll(() => gpu?.destroy());

/** One sequence of `m` tokens (ids 0 .. m - 1), one marker. */
function batchOf(m: number): GpuBatch {
  return {
    ids: Int32Array.from({ length: m }, (_, t) => t),
    seqStarts: Int32Array.from([0, m]),
    markers: Int32Array.from([0]),
    markerStarts: Int32Array.from([0, 1]),
    qtypes: Int32Array.from([0]),
  };
}

interface Shape {
  m: number;
  n: number;
  k: number;
  dtype: GpuDtype;
  epilogue: GpuEpilogue;
  bias: boolean;
  /** Arena offset of a and of out (the tiled kernel needs multiples of 4). */
  at: number;
}

/** Runs one GEMM (inputs embedded as the programs do) with `kernels`; returns the kernel key that ran. */
async function checkGemm(shape: Shape, gemm: (typeof kGemmChoices)[number]): Promise<string[]> {
  const { m, n, k, dtype, epilogue, bias, at } = shape;
  const rand = seeded(m * 7919 + n * 31 + k);
  const a = randomTensor(rand, 'a', 'F32', [m, k]);
  const w = randomTensor(rand, 'w', dtype, [n, k], 0.5);
  const b = randomTensor(rand, 'b', 'F32', [n]);
  const old = randomTensor(rand, 'old', 'F32', [m, n]);
  const out = at + Math.ceil((m * k) / 4) * 4 + at;
  const floats = out + m * n + 3;
  const steps: GpuStep[] = [
    { op: 'embed', table: 0, out: at, width: k },
    { op: 'embed', table: 3, out, width: n },
    { op: 'gemm', a: at, out, rows: 'tokens', k, n, w: 1, b: bias ? 2 : null, epilogue },
  ];
  const batch = batchOf(m);
  let ran: string[] = [];
  await runProgram(gpu, [a, w, b, old], { steps, arenaFloats: floats }, batch, async ({ read, executor }) => {
    const arena = new Float32Array(floats);
    ref.embed(arena, a.values, batch.ids, at, k);
    ref.embed(arena, old.values, batch.ids, out, n);
    ref.gemm(arena, at, out, m, k, n, w.values, bias ? b.values : null, epilogue);
    expect(ref.worstError(await read(out, m * n), arena.subarray(out, out + m * n))).toBeLessThanOrEqual(kTolerance);
    ran = Object.keys(executor.stats().gemmKernels);
  }, { kernels: { gemm } });
  return ran;
}

const kEpilogues: GpuEpilogue[] = ['none', 'accumulate', 'gelu', 'relu'];
const kDtypes: GpuDtype[] = ['F16', 'F32', 'BF16'];

/** Three shapes around tile `t`: M, N, K of one load, one tile less a step, one tile more a step. */
function shapesAround(name: GemmTileName, index: number): Array<[string, Shape]> {
  const t = kGemmTiles[name];
  const pick = <T>(list: T[], i: number) => list[(index + i) % list.length]!;
  return [
    [`M 1, N ${t.bn + 4}, K ${t.bk + 8}`, { m: 1, n: t.bn + 4, k: t.bk + 8, dtype: pick(kDtypes, 0), epilogue: pick(kEpilogues, 0), bias: true, at: 4 }],
    [`M ${t.bm - 1}, N 4, K 8`, { m: t.bm - 1, n: 4, k: 8, dtype: pick(kDtypes, 1), epilogue: pick(kEpilogues, 1), bias: false, at: 8 }],
    [`M ${t.bm + 1}, N ${t.bn - 4}, K ${2 * t.bk - 8}`, { m: t.bm + 1, n: t.bn - 4, k: 2 * t.bk - 8, dtype: pick(kDtypes, 2), epilogue: pick(kEpilogues, 2), bias: true, at: 0 }],
  ];
}

const kTileCases = (Object.keys(kGemmTiles) as GemmTileName[]).flatMap((name, i) =>
  shapesAround(name, i).map(([label, shape]) => [name, label, shape] as const),
);

describe('tiled GEMM', () => {
  test.each(kTileCases)('tile %s at %s matches the scalar reference', async (name, _label, shape) => {
    const ran = await checkGemm(shape, name);
    expect(ran).toEqual([`gemm-tiled/${name}/${shape.dtype}/${shape.bias ? 'F32' : 'none'}/${shape.epilogue}`]);
  });

  test.each<[string, Shape]>([
    ['K 1 (below one vec4 load)', { m: 5, n: 8, k: 1, dtype: 'F16', epilogue: 'none', bias: true, at: 4 }],
    ['N not a multiple of 4', { m: 33, n: 65, k: 24, dtype: 'F16', epilogue: 'accumulate', bias: true, at: 4 }],
    ['an unaligned offset', { m: 9, n: 12, k: 16, dtype: 'F32', epilogue: 'none', bias: false, at: 3 }],
    ['q8 weights', { m: 9, n: 12, k: 64, dtype: 'I8', epilogue: 'none', bias: true, at: 4 }],
  ])('a step with %s falls back to the scalar kernel, exact too', async (_label, shape) => {
    const ran = await checkGemm(shape, 't64x64');
    expect(ran).toHaveLength(1);
    expect(ran[0]).toMatch(/^gemm\//);
  });

  test('the scalar choice runs the scalar kernel even where the tiled one fits', async () => {
    const ran = await checkGemm({ m: 17, n: 36, k: 40, dtype: 'F16', epilogue: 'gelu', bias: true, at: 4 }, 'scalar');
    expect(ran).toEqual(['gemm/F16/F32/gelu']);
  });

  test('the auto choice takes the tile autoTile names for the bucket\'s rows', async () => {
    const shape: Shape = { m: 70, n: 132, k: 48, dtype: 'F16', epilogue: 'none', bias: true, at: 4 };
    const ran = await checkGemm(shape, 'auto');
    expect(ran).toEqual([`gemm-tiled/${autoTile(70, 132)}/F16/F32/none`]);
  });

  test('F16 weights are staged through shader-f16 only where the device has it', async () => {
    const ran = await checkGemm({ m: 3, n: 8, k: 8, dtype: 'F16', epilogue: 'none', bias: false, at: 0 }, 't32x32');
    expect(ran).toEqual([gpu.hasShaderF16 ? 'gemm-tiled/t32x32/F16-f16/none/none' : 'gemm-tiled/t32x32/F16/none/none']);
  });
});

describe('GEMM with the GeGLU after it', () => {
  /** The Wi GEMM (2h outputs) then the GeGLU, as the encoder's MLP has them; returns the dispatches and kernels. */
  async function checkGeGlu(m: number, h: number, k: number, gemm: (typeof kGemmChoices)[number], bias: boolean): Promise<{ dispatches: number; kernels: string[] }> {
    const rand = seeded(m * 13 + h * 7 + k);
    const a = randomTensor(rand, 'a', 'F32', [m, k]);
    const w = randomTensor(rand, 'w', 'F16', [2 * h, k], 0.5);
    const b = randomTensor(rand, 'b', 'F32', [2 * h]);
    const x = Math.ceil((m * k) / 4) * 4;
    const out = x + m * 2 * h + 4;
    const floats = out + m * h;
    const steps: GpuStep[] = [
      { op: 'embed', table: 0, out: 0, width: k },
      { op: 'gemm', a: 0, out: x, rows: 'tokens', k, n: 2 * h, w: 1, b: bias ? 2 : null, epilogue: 'none' },
      { op: 'geglu', x, out, rows: 'tokens', n: h },
    ];
    const batch = batchOf(m);
    let result = { dispatches: 0, kernels: [] as string[] };
    await runProgram(gpu, [a, w, b], { steps, arenaFloats: floats }, batch, async ({ read, executor }) => {
      const arena = new Float32Array(floats);
      ref.embed(arena, a.values, batch.ids, 0, k);
      ref.gemm(arena, 0, x, m, k, 2 * h, w.values, bias ? b.values : null, 'none');
      ref.geglu(arena, x, out, m, h);
      expect(ref.worstError(await read(out, m * h), arena.subarray(out, out + m * h))).toBeLessThanOrEqual(kTolerance);
      const stats = executor.stats();
      result = { dispatches: stats.dispatches, kernels: Object.keys(stats.gemmKernels) };
    }, { kernels: { gemm } });
    return result;
  }

  test.each<[GemmTileName, number, number, number, boolean]>([
    ['t32x128', 33, 68, 24, true],
    ['t32x128', 1, 4, 8, false],
    ['t64x128', 65, 60, 40, true],
    ['t64x128', 63, 132, 16, false],
  ])('tile %s fuses them at M %d, h %d, K %d (bias %s): one dispatch for both, as exact', async (tile, m, h, k, bias) => {
    const ran = await checkGeGlu(m, h, k, tile, bias);
    expect(ran.kernels).toEqual([`gemm-tiled/${tile}/F16/${bias ? 'F32' : 'none'}/geglu`]);
    expect(ran.dispatches).toBe(2);  // the embed and the fused GEMM
  });

  test('a tile with one vec4 of columns per invocation runs them apart, as exact', async () => {
    const ran = await checkGeGlu(9, 20, 16, 't64x64', true);
    expect(ran.kernels).toEqual(['gemm-tiled/t64x64/F16/F32/none']);
    expect(ran.dispatches).toBe(3);
  });
});

describe('GeGLU fusion where the GeGLU\'s result takes the GEMM\'s input\'s place', () => {
  // As the planner lays out the MLP: x (the GEMM's input) is dead once the Wi GEMM ran, so the
  // GeGLU writes g over it, and the Wo GEMM reads g. Fused, the result goes to the Wi GEMM's own
  // output place and Wo reads it there; with a later reader of g at its own place, no fusion.
  async function run(laterReader: boolean): Promise<number> {
    const [m, k, h, n2] = [37, 48, 36, 20];
    const rand = seeded(99 + Number(laterReader));
    const a = randomTensor(rand, 'a', 'F32', [m, k]);
    const wi = randomTensor(rand, 'wi', 'F16', [2 * h, k], 0.5);
    const wo = randomTensor(rand, 'wo', 'F16', [n2, h], 0.5);
    const x = Math.ceil((m * k) / 4) * 4 + 4;
    const out2 = x + m * 2 * h;
    const out3 = out2 + m * n2;
    const floats = out3 + m * n2;
    const steps: GpuStep[] = [
      { op: 'embed', table: 0, out: 0, width: k },
      { op: 'gemm', a: 0, out: x, rows: 'tokens', k, n: 2 * h, w: 1, b: null, epilogue: 'none' },
      { op: 'geglu', x, out: 0, rows: 'tokens', n: h },
      { op: 'gemm', a: 0, out: out2, rows: 'tokens', k: h, n: n2, w: 2, b: null, epilogue: 'none' },
      ...(laterReader ? [{ op: 'gemm' as const, a: 0, out: out3, rows: 'tokens' as const, k: h, n: n2, w: 2, b: null, epilogue: 'relu' as const }] : []),
    ];
    const batch = batchOf(m);
    let dispatches = 0;
    await runProgram(gpu, [a, wi, wo], { steps, arenaFloats: floats }, batch, async ({ read, executor }) => {
      const arena = new Float32Array(floats);
      ref.embed(arena, a.values, batch.ids, 0, k);
      ref.gemm(arena, 0, x, m, k, 2 * h, wi.values, null, 'none');
      ref.geglu(arena, x, 0, m, h);
      ref.gemm(arena, 0, out2, m, h, n2, wo.values, null, 'none');
      if (laterReader) ref.gemm(arena, 0, out3, m, h, n2, wo.values, null, 'relu');
      const end = laterReader ? floats : out3;
      expect(ref.worstError(await read(out2, end - out2), arena.subarray(out2, end))).toBeLessThanOrEqual(kTolerance);
      dispatches = executor.stats().dispatches;
    }, { kernels: { gemm: 't32x128' } });
    return dispatches;
  }

  test('fuses, the next GEMM reading the result from the GEMM\'s output place', async () => {
    expect(await run(false)).toBe(3);
  });

  test('does not fuse when a later step reads the result at the graph\'s place', async () => {
    expect(await run(true)).toBe(5);
  });
});

describe('autoTile', () => {
  test('gives small-M encoder GEMMs narrow tiles and large ones wide tiles', () => {
    expect(autoTile(64, 1024)).toBe('t32x32');
    expect(autoTile(512, 1024)).toBe('t32x64');
    expect(autoTile(512, 5248)).toBe('t64x128');
    // Below 256 workgroups with every tile: the one giving the most.
    expect(autoTile(1, 8)).toBe('t32x32');
  });
});
