// The register-tiled GEMM: out = epilogue(a · wᵀ + b) with vec4 loads and stores. A workgroup
// computes a BM × BN output tile from BK-wide k slices staged in workgroup memory; each invocation
// owns TM rows × TN columns (TN/4 vec4s), its rows strided by BM/TM and its vec4 columns by BN/TN
// so that neighbouring invocations read neighbouring words. Each output is still one f32 sum over
// k in order (slice after slice, k ascending within one), then the bias, then the epilogue, as
// cpp/kernels/gemm.cc.
//
// Loads: the activations as vec4f (the arena bound as array<vec4f>), the weights as vec4<u32>
// straight from the checkpoint's [n, k] rows (k is contiguous, so one load is 8 halves of one
// output column's weights; no re-layout is needed for this access pattern). 16-bit weights are
// decoded as they are staged: with `shader-f16` (where the adapter has it, F16 weights only) by
// bitcast to vec2<f16>, staged as f16 and widened to f32 in the multiply (f32 accumulation);
// without it by the exact integer decode (kF16Decode), staged as f32.
//
// With `geglu` (tiles with TN = 8 only), the GeGLU after the GEMM is its epilogue: the step's
// weights are [2h, k] (gate rows, then up rows) and its output h wide. A tile stages gate rows
// col0 .. + BN/2 and then the same up rows, so an invocation's two vec4s of sums are the gate and
// the up of the same four output columns: gelu(gate + bias) · (up + bias) is computed where both
// are, with geglu.ts's arithmetic, and the 2h-wide intermediate is never written.
//
// Workgroup memory is written element by element and read as vec4s only in the multiply loop: no
// invocation writes part of a vector another one writes (some backends store a vector component
// as a read-modify-write of the whole vector).
//
// The kernel needs what its vec4 views imply: the arena offsets and k, n multiples of 4 (k of 8
// for 16-bit weights). gemm.ts checks that and falls back to the scalar kernel otherwise.
import type { GemmTileName } from '../gemm-choice.js';
import type { GpuDtype, GpuEpilogue } from '../program.js';
import { kF16Decode, weightBindings, weightReader } from './weight-reader.js';
import { kWgslMath } from './wgsl-math.js';
import { type KernelSource, prelude } from './wgsl-common.js';

/** One register tiling: output tile BM × BN, k slices of BK, TM × TN outputs per invocation. */
export interface GemmTile {
  bm: number;
  bn: number;
  bk: number;
  tm: number;
  tn: number;
}

/**
 * The tilings a bench can choose between (GpuKernelOptions.gemm). Narrow tiles give small-M
 * GEMMs (64-128 tokens) more workgroups to spread over the GPU; wide ones reuse each load more.
 * Every one has 128 or 256 invocations and stays within WebGPU's 16 KiB of workgroup memory.
 */
export const kGemmTiles = {
  t32x32: { bm: 32, bn: 32, bk: 32, tm: 2, tn: 4 },
  t32x64: { bm: 32, bn: 64, bk: 32, tm: 2, tn: 4 },
  t64x64: { bm: 64, bn: 64, bk: 16, tm: 4, tn: 4 },
  t128x64: { bm: 128, bn: 64, bk: 16, tm: 8, tn: 4 },
  t64x128: { bm: 64, bn: 128, bk: 16, tm: 4, tn: 8 },
  t32x128: { bm: 32, bn: 128, bk: 16, tm: 2, tn: 8 },
} as const satisfies Record<GemmTileName, GemmTile>;

export function tileThreads(t: GemmTile): number {
  return (t.bm / t.tm) * (t.bn / t.tn);
}

/** Weight elements in one vec4<u32>: 8 halves, or 4 f32. */
export function elementsPerLoad(w: GpuDtype): number {
  return w === 'F32' ? 4 : 8;
}

/** Whether the tile can take a GeGLU epilogue: two vec4s of columns per invocation. */
export function tileFusesGeGlu(t: GemmTile): boolean {
  return t.tn === 8;
}

/** Staging of one vec4<u32> of weights `q` at tile column `nn`, k offset `c` (E elements along k). */
function stageWeights(w: GpuDtype, f16: boolean, bn: number): string {
  const put = (i: number, value: string) => `      w_tile[(c + ${i}u) * ${bn}u + nn] = ${value};`;
  const lines: string[] = [];
  if (w === 'F32') {
    for (let i = 0; i < 4; ++i) lines.push(put(i, `bitcast<f32>(q[${i}])`));
  } else {
    for (let word = 0; word < 4; ++word) {
      const [lo, hi] =
        w === 'BF16'
          ? [`bitcast<f32>(q[${word}] << 16u)`, `bitcast<f32>(q[${word}] & 0xffff0000u)`]
          : f16
            ? [`bitcast<vec2<f16>>(q[${word}]).x`, `bitcast<vec2<f16>>(q[${word}]).y`]
            : [`f16_bits_to_f32(q[${word}] & 0xffffu)`, `f16_bits_to_f32(q[${word}] >> 16u)`];
      lines.push(put(2 * word, lo), put(2 * word + 1, hi));
    }
  }
  return lines.join('\n');
}

const kVecEpilogues: Record<GpuEpilogue, string> = {
  none: 'arena[o] = v;',
  gelu: 'arena[o] = vec4f(gelu_f32(v.x), gelu_f32(v.y), gelu_f32(v.z), gelu_f32(v.w));',
  relu: 'arena[o] = select(vec4f(0.0), v, v > vec4f(0.0));',
  accumulate: 'arena[o] = arena[o] + v;',
};

/**
 * The kernel for tile `name`, weights of dtype `w` (F32, F16 or BF16), bias of dtype `b`, with
 * `shader-f16` staging when `f16` (F16 weights only).
 */
export function tiledGemmKernel(name: GemmTileName, w: GpuDtype, b: GpuDtype | null, epilogue: GpuEpilogue, f16: boolean,
                                geglu = false): KernelSource {
  const t: GemmTile = kGemmTiles[name];
  const useF16 = f16 && w === 'F16';
  const threads = tileThreads(t);
  const e = elementsPerLoad(w);
  const tx = t.bn / t.tn;
  const ty = t.bm / t.tm;
  const tn4 = t.tn / 4;
  const bias = b === null ? '' : weightReader('bias', b, 4);
  if (geglu && !tileFusesGeGlu(t)) throw new Error(`tile ${name} cannot take a GeGLU epilogue`);
  const stageType = useF16 ? 'f16' : 'f32';
  const accIndex = (i: string, j: string) => `${i} * ${tn4}u + ${j}`;
  return {
    key: `gemm-tiled/${name}/${w}${useF16 ? '-f16' : ''}/${b ?? 'none'}/${geglu ? 'geglu' : epilogue}`,
    extraBindings: weightBindings(w) + (b === null ? 0 : weightBindings(b)),
    code: `${prelude('  a: u32,\n  out: u32,\n  rows_word: u32,\n  k: u32,\n  n: u32,', 'vec4f', useF16 ? 'enable f16;' : '')}
${kF16Decode}
${kWgslMath}
@group(0) @binding(3) var<storage, read> weights: array<vec4<u32>>;
${bias}
const BM = ${t.bm}u;
const BN = ${t.bn}u;
const BK = ${t.bk}u;
const TM = ${t.tm}u;
const TX = ${tx}u;   // invocations across a tile's vec4 columns
const TY = ${ty}u;   // invocations down its rows
const THREADS = ${threads}u;
const E = ${e}u;     // weight elements per vec4<u32>
${geglu ? kGeGluColumns : kPlainColumns}
var<workgroup> a_tile: array<f32, ${t.bk * t.bm}>;             // [BK][BM]
var<workgroup> w_tile: array<${stageType}, ${t.bk * t.bn}>;  // [BK][BN]

@compute @workgroup_size(${threads})
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) groups: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let rows = batch[params.rows_word];
  let k = params.k;
  let n = params.n;
  let tiles_n = (n + OUT_COLS - 1u) / OUT_COLS;
  let tile = workgroup_index(wid, groups);
  let row0 = (tile / tiles_n) * BM;
  let col0 = (tile % tiles_n) * OUT_COLS;
  if (row0 >= rows) { return; }
  let tx = lid % TX;
  let ty = lid / TX;
  let a4 = params.a / 4u;
  let k4 = k / 4u;
  var acc: array<vec4f, ${t.tm * tn4}>;
  for (var k0 = 0u; k0 < k; k0 += BK) {
    // Stage a[row0 .. +BM][k0 .. +BK] and w[col0 .. +BN][k0 .. +BK], zeros past the edges (adding
    // 0·0 leaves a sum unchanged); k and n are multiples of a load's width, so a load is all in or out.
    for (var i = lid; i < BM * BK / 4u; i += THREADS) {
      let m = i / (BK / 4u);
      let c = (i % (BK / 4u)) * 4u;
      var v = vec4f(0.0);
      if (row0 + m < rows && k0 + c < k) { v = arena[a4 + (row0 + m) * k4 + (k0 + c) / 4u]; }
      a_tile[c * BM + m] = v.x;
      a_tile[(c + 1u) * BM + m] = v.y;
      a_tile[(c + 2u) * BM + m] = v.z;
      a_tile[(c + 3u) * BM + m] = v.w;
    }
    for (var i = lid; i < BN * BK / E; i += THREADS) {
      let nn = i / (BK / E);
      let c = (i % (BK / E)) * E;
      var q = vec4<u32>(0u);
      if (output_column(col0, nn) < n && k0 + c < k) { q = weights[(weight_row(col0, nn, n) * k + k0 + c) / E]; }
${stageWeights(w, useF16, t.bn)}
    }
    workgroupBarrier();
    for (var kk = 0u; kk < BK; kk++) {
      for (var j = 0u; j < ${tn4}u; j++) {
        let w0 = kk * BN + (tx + j * TX) * 4u;
        let wv = vec4f(f32(w_tile[w0]), f32(w_tile[w0 + 1u]), f32(w_tile[w0 + 2u]), f32(w_tile[w0 + 3u]));
        for (var i = 0u; i < TM; i++) {
          let av = a_tile[kk * BM + ty + i * TY];
          acc[${accIndex('i', 'j')}] = av * wv + acc[${accIndex('i', 'j')}];
        }
      }
    }
    workgroupBarrier();
  }
${geglu ? gegluEpilogue(b !== null) : plainEpilogue(b !== null, tn4, epilogue)}
}
`,
  };
}

// Tile row nn of the staged weights: which output column it serves and which weight row it is.
const kPlainColumns = `
const OUT_COLS = BN;
fn output_column(col0: u32, nn: u32) -> u32 { return col0 + nn; }
fn weight_row(col0: u32, nn: u32, n: u32) -> u32 { return col0 + nn; }
`;
// GeGLU: the first BN/2 rows are gate rows, the rest the up rows (from n on) of the same columns.
const kGeGluColumns = `
const OUT_COLS = BN / 2u;
fn output_column(col0: u32, nn: u32) -> u32 { return col0 + nn % OUT_COLS; }
fn weight_row(col0: u32, nn: u32, n: u32) -> u32 { return select(0u, n, nn >= OUT_COLS) + output_column(col0, nn); }
`;

function gegluEpilogue(bias: boolean): string {
  const gate = bias ? 'acc[i * 2u] + vec4f(bias_at(0u, c, 2u * n), bias_at(0u, c + 1u, 2u * n), bias_at(0u, c + 2u, 2u * n), bias_at(0u, c + 3u, 2u * n))' : 'acc[i * 2u]';
  const up = bias ? 'acc[i * 2u + 1u] + vec4f(bias_at(0u, n + c, 2u * n), bias_at(0u, n + c + 1u, 2u * n), bias_at(0u, n + c + 2u, 2u * n), bias_at(0u, n + c + 3u, 2u * n))' : 'acc[i * 2u + 1u]';
  return `  let n4 = n / 4u;
  for (var i = 0u; i < TM; i++) {
    let r = row0 + ty + i * TY;
    let c = col0 + tx * 4u;
    if (r < rows && c < n) {
      let gate = ${gate};
      let up = ${up};
      arena[params.out / 4u + r * n4 + c / 4u] = vec4f(gelu_f32(gate.x) * up.x, gelu_f32(gate.y) * up.y, gelu_f32(gate.z) * up.z, gelu_f32(gate.w) * up.w);
    }
  }`;
}

function plainEpilogue(bias: boolean, tn4: number, epilogue: GpuEpilogue): string {
  return `  let n4 = n / 4u;
  for (var i = 0u; i < TM; i++) {
    let r = row0 + ty + i * TY;
    for (var j = 0u; j < ${tn4}u; j++) {
      let c = col0 + (tx + j * TX) * 4u;
      if (r < rows && c < n) {
        var v = acc[i * ${tn4}u + j];
        ${!bias ? '' : 'v += vec4f(bias_at(0u, c, n), bias_at(0u, c + 1u, n), bias_at(0u, c + 2u, n), bias_at(0u, c + 3u, n));'}
        let o = params.out / 4u + r * n4 + c / 4u;
        ${kVecEpilogues[epilogue]}
      }
    }
  }`;
}
