// out = epilogue(a · wᵀ + b), as cpp/kernels/gemm.cc: each output is one f32 sum over k in order
// (a[t]·w[t] added to the running sum), then the bias, then the epilogue. Two kernels:
// - the register-tiled one (gemm-tiled.ts: vec4 loads, a choice of tiles, shader-f16 staging),
//   used wherever its vec4 views fit the step (aligned offsets, k and n multiples of 4 or 8);
// - the scalar one below, for every other step (q8 weights, odd widths): a 64 × 64 output tile
//   from 16-wide k slices staged in workgroup memory (weights converted to f32 as they are staged);
//   each of its 256 invocations owns a 4 × 4 block of outputs, strided by 16 so neighbouring
//   invocations read neighbouring words. It is also the 'scalar' choice, the baseline the bench
//   times the tiles against.
import type { GpuTensor } from '../gpu-weights.js';
import type { GpuDtype, GpuEpilogue, GpuRows } from '../program.js';
import type { GemmChoice, GemmTileName } from '../gemm-choice.js';
import { elementsPerLoad, kGemmTiles, tileFusesGeGlu, tiledGemmKernel } from './gemm-tiled.js';
import { kF16Decode, weightBindings, weightBuffers, weightReader } from './weight-reader.js';
import { kWgslMath } from './wgsl-math.js';
import { type KernelSource, ParamWriter, type StepPlan, prelude, rowsOf, rowsWord } from './wgsl-common.js';

export const kGemmTile = 64;

const kEpilogues: Record<GpuEpilogue, string> = {
  none: 'arena[o] = v;',
  gelu: 'arena[o] = gelu_f32(v);',
  relu: 'arena[o] = select(0.0, v, v > 0.0);',
  accumulate: 'arena[o] = arena[o] + v;',
};

function scalarGemmKernel(w: GpuDtype, b: GpuDtype | null, epilogue: GpuEpilogue): KernelSource {
  const bias = b === null ? '' : weightReader('bias', b, 3 + weightBindings(w));
  return {
    key: `gemm/${w}/${b ?? 'none'}/${epilogue}`,
    extraBindings: weightBindings(w) + (b === null ? 0 : weightBindings(b)),
    code: `${prelude('  a: u32,\n  out: u32,\n  rows_word: u32,\n  k: u32,\n  n: u32,')}
${kF16Decode}
${kWgslMath}
${weightReader('weights', w, 3)}
${bias}
const TILE = 64u;
const SLICE = 16u;
var<workgroup> a_tile: array<f32, 1024>;  // [SLICE][TILE]: k-major, so the compute loop reads rows
var<workgroup> w_tile: array<f32, 1024>;  // [SLICE][TILE]

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) groups: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let rows = batch[params.rows_word];
  let k = params.k;
  let n = params.n;
  let tiles_n = (n + TILE - 1u) / TILE;
  let tile = workgroup_index(wid, groups);
  let row0 = (tile / tiles_n) * TILE;
  let col0 = (tile % tiles_n) * TILE;
  if (row0 >= rows) { return; }
  let tx = lid % 16u;
  let ty = lid / 16u;
  var acc: array<f32, 16>;
  for (var k0 = 0u; k0 < k; k0 += SLICE) {
    // Stage a[row0 .. +64][k0 .. +16] and w[col0 .. +64][k0 .. +16], zeros past the edges
    // (adding 0·0 leaves a sum unchanged).
    for (var e = 0u; e < 4u; e++) {
      let idx = lid + e * 256u;
      let m = idx / SLICE;
      let kk = idx % SLICE;
      let c = k0 + kk;
      var av = 0.0;
      if (row0 + m < rows && c < k) { av = arena[params.a + (row0 + m) * k + c]; }
      a_tile[kk * TILE + m] = av;
      var wv = 0.0;
      if (col0 + m < n && c < k) { wv = weights_at(col0 + m, c, k); }
      w_tile[kk * TILE + m] = wv;
    }
    workgroupBarrier();
    for (var kk = 0u; kk < SLICE; kk++) {
      let a0 = a_tile[kk * TILE + ty];
      let a1 = a_tile[kk * TILE + ty + 16u];
      let a2 = a_tile[kk * TILE + ty + 32u];
      let a3 = a_tile[kk * TILE + ty + 48u];
      var av = array<f32, 4>(a0, a1, a2, a3);
      let w0 = w_tile[kk * TILE + tx];
      let w1 = w_tile[kk * TILE + tx + 16u];
      let w2 = w_tile[kk * TILE + tx + 32u];
      let w3 = w_tile[kk * TILE + tx + 48u];
      for (var i = 0u; i < 4u; i++) {
        acc[i * 4u + 0u] = av[i] * w0 + acc[i * 4u + 0u];
        acc[i * 4u + 1u] = av[i] * w1 + acc[i * 4u + 1u];
        acc[i * 4u + 2u] = av[i] * w2 + acc[i * 4u + 2u];
        acc[i * 4u + 3u] = av[i] * w3 + acc[i * 4u + 3u];
      }
    }
    workgroupBarrier();
  }
  for (var i = 0u; i < 4u; i++) {
    let r = row0 + ty + 16u * i;
    for (var j = 0u; j < 4u; j++) {
      let c = col0 + tx + 16u * j;
      if (r < rows && c < n) {
        var v = acc[i * 4u + j];
        ${b === null ? '' : 'v += bias_at(0u, c, n);'}
        let o = params.out + r * n + c;
        ${kEpilogues[epilogue]}
      }
    }
  }
}
`,
  };
}

export { type GemmChoice, type GemmTileName, kGemmChoices } from '../gemm-choice.js';

/** What planGemm needs beyond the step: the choice, whether shader-f16 staging may be used, the bucket's rows. */
export interface GemmContext {
  choice: GemmChoice;
  f16: boolean;
  /** The bucket's rows of the step's kind (the most the step runs on). */
  bucketRows: number;
}

/** Workgroups a tiling gives an m × n GEMM. */
function tilesFor(tile: GemmTileName, m: number, n: number): number {
  const t = kGemmTiles[tile];
  return Math.ceil(m / t.bm) * Math.ceil(n / t.bn);
}

/**
 * 'auto': the widest tile (most reuse per load) that still gives the GEMM at least 256 workgroups,
 * enough to fill a large GPU; if none does (small M and N), the one giving the most. The encoder's
 * shapes (M 64-512, N 1024-5248) land on 32 × 32 to 64 × 128.
 */
export function autoTile(m: number, n: number, among: (t: GemmTileName) => boolean = () => true): GemmTileName {
  const byArea = (Object.keys(kGemmTiles) as GemmTileName[]).filter(among).sort((x, y) => {
    const [a, b] = [kGemmTiles[x], kGemmTiles[y]];
    return b.bm * b.bn - a.bm * a.bn || b.bn - a.bn;
  });
  return byArea.find((t) => tilesFor(t, m, n) >= 256) ?? byArea[byArea.length - 1]!;
}

/** Whether the tiled kernel's vec4 views fit the step: its offsets and widths, and its weights' dtype. */
export function tiledFits(step: { a: number; out: number; k: number; n: number }, w: GpuDtype): boolean {
  if (w === 'I8') return false;
  return step.a % 4 === 0 && step.out % 4 === 0 && step.n % 4 === 0 && step.k % elementsPerLoad(w) === 0;
}

export function planGemm(
  step: { a: number; out: number; rows: GpuRows; k: number; n: number; w: number; b: number | null; epilogue: GpuEpilogue },
  weight: (i: number) => GpuTensor,
  context: GemmContext,
): StepPlan {
  const w = weight(step.w);
  const b = step.b === null ? null : weight(step.b);
  const extra = [...weightBuffers(w), ...(b === null ? [] : weightBuffers(b))];
  const dtype = w.weight.dtype;
  if (context.choice !== 'scalar' && tiledFits(step, dtype)) {
    const tile = context.choice === 'auto' ? autoTile(context.bucketRows, step.n) : context.choice;
    const { bm, bn } = kGemmTiles[tile];
    const tilesN = Math.ceil(step.n / bn);
    return {
      kernel: tiledGemmKernel(tile, dtype, b?.weight.dtype ?? null, step.epilogue, context.f16),
      params: new ParamWriter().u(step.a).u(step.out).u(rowsWord(step.rows)).u(step.k).u(step.n),
      extra,
      workgroups: (rows) => Math.ceil(rowsOf(rows, step.rows) / bm) * tilesN,
    };
  }
  const tilesN = Math.ceil(step.n / kGemmTile);
  return {
    kernel: scalarGemmKernel(dtype, b?.weight.dtype ?? null, step.epilogue),
    params: new ParamWriter().u(step.a).u(step.out).u(rowsWord(step.rows)).u(step.k).u(step.n),
    extra,
    workgroups: (rows) => Math.ceil(rowsOf(rows, step.rows) / kGemmTile) * tilesN,
  };
}

/**
 * The GEMM and the GeGLU after it as one dispatch (gemm-tiled.ts, `geglu`): `step` makes the
 * [rows, 2h] value the GeGLU step reads, `geglu` writes the [rows, h] result. Null where the pair
 * cannot be fused (the result over the GEMM's input, the scalar choice, a tile without two vec4s per invocation, widths or offsets
 * the vec4 views do not fit, an epilogue already): the two steps then run apart.
 */
export function planGemmGeGlu(
  step: { a: number; out: number; rows: GpuRows; k: number; n: number; w: number; b: number | null; epilogue: GpuEpilogue },
  geglu: { out: number; n: number },
  weight: (i: number) => GpuTensor,
  context: GemmContext,
): StepPlan | null {
  const w = weight(step.w);
  const dtype = w.weight.dtype;
  const h = geglu.n;
  if (context.choice === 'scalar' || step.epilogue !== 'none' || step.n !== 2 * h) return null;
  // The planner may place the GeGLU's output over the GEMM's input, dead once the GEMM is done:
  // fused, the GEMM would overwrite rows other workgroups still read.
  const rows = context.bucketRows;
  if (geglu.out < step.a + rows * step.k && step.a < geglu.out + rows * h) return null;
  if (!tiledFits({ a: step.a, out: geglu.out, k: step.k, n: h }, dtype)) return null;
  const fuses = (t: GemmTileName) => tileFusesGeGlu(kGemmTiles[t]);
  const tile = context.choice === 'auto' ? autoTile(context.bucketRows, step.n, fuses) : context.choice;
  if (!fuses(tile)) return null;
  const b = step.b === null ? null : weight(step.b);
  const { bm, bn } = kGemmTiles[tile];
  const tilesN = Math.ceil(h / (bn / 2));
  return {
    kernel: tiledGemmKernel(tile, dtype, b?.weight.dtype ?? null, 'none', context.f16, true),
    params: new ParamWriter().u(step.a).u(geglu.out).u(rowsWord(step.rows)).u(step.k).u(h),
    extra: [...weightBuffers(w), ...(b === null ? [] : weightBuffers(b))],
    workgroups: (rows) => Math.ceil(rowsOf(rows, step.rows) / bm) * tilesN,
  };
}
