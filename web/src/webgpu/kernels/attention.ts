/// <reference types="@webgpu/types" />
// Attention within each sequence over [q | k | v] token rows, as cpp/kernels/attention.cc: per head
// of 64, scores q·k (summed over the 64 dims in order) × 1/8, a softmax over the keys the query sees
// (all of its sequence, or |i − j| <= window), the weighted sum of v. A workgroup takes one head of
// a block of 16 queries of one sequence (the blocks are listed in the batch table) and walks the
// keys 16 at a time with an online softmax (running max and sum, rescaled when the max grows).
//
// With a RoPE table (planAttention's `rope`), the RoPE step before it is done here instead: q and k
// are rotated as they are staged, with rope.ts's arithmetic, and the step that would have rotated
// them in place is not dispatched (gpu-steps.ts fuses the pair). The rotated q and k are then never
// written back; in the encoder's graph nothing but this attention reads them.
import { kWgslMath } from './wgsl-math.js';
import { type KernelSource, ParamWriter, type StepPlan, prelude } from './wgsl-common.js';

/** Queries per workgroup; the batch table lists each sequence's blocks of this many. */
export const kAttentionQueryBlock = 16;

// Element t of a q or k head at row_base, rotated for position pos as the RoPE kernel does (dim j
// pairs with j + 32; angles is ropeTable's [position][pair][cos, sin]).
const kRopeStaging = `
@group(0) @binding(3) var<storage, read> angles: array<u32>;
fn staged(row_base: u32, pos: u32, t: u32) -> f32 {
  let j = t % 32u;
  let c = bitcast<f32>(angles[(pos * 32u + j) * 2u]);
  let sn = bitcast<f32>(angles[(pos * 32u + j) * 2u + 1u]);
  let lo = arena[row_base + j];
  let hi = arena[row_base + j + 32u];
  return select(hi * c + lo * sn, lo * c - hi * sn, t < 32u);
}
`;

const kPlainStaging = `
fn staged(row_base: u32, pos: u32, t: u32) -> f32 { return arena[row_base + t]; }
`;

function attentionKernel(rope: boolean): KernelSource {
  return {
    key: rope ? 'attention/rope' : 'attention',
    extraBindings: rope ? 1 : 0,
    code: `${prelude('  qkv: u32,\n  out: u32,\n  heads: u32,\n  windowed: u32,\n  window: u32,')}
${kWgslMath}
${rope ? kRopeStaging : kPlainStaging}
const QB = 16u;
const KB = 16u;
const KSTRIDE = 65u;       // k_tile rows padded so the 16 score invocations of a query hit distinct banks
const MASKED = -3.0e38;    // a score no visible key has (WGSL constants cannot be -inf)
var<workgroup> q_tile: array<f32, 1024>;   // [QB][64]
var<workgroup> k_tile: array<f32, 1040>;   // [KB][KSTRIDE]
var<workgroup> v_tile: array<f32, 1024>;   // [KB][64]
var<workgroup> scores: array<f32, 256>;    // [QB][KB]

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) groups: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let item = workgroup_index(wid, groups);
  let heads = params.heads;
  if (item >= batch[H_BLOCKS] * heads) { return; }
  let block = item / heads;
  let h = item % heads;
  let s = batch[batch_offset(H_BLOCKTABLE) + 2u * block];
  let q0 = batch[batch_offset(H_BLOCKTABLE) + 2u * block + 1u];
  let start = batch[batch_offset(H_SEQSTARTS) + s];
  let len = batch[batch_offset(H_SEQSTARTS) + s + 1u] - start;
  let d = heads * 64u;
  let stride = 3u * d;
  let base = params.qkv + start * stride + h * 64u;
  // Invocation (row, sub): query row of the block (or key row of a tile), dims sub·4 .. sub·4 + 3.
  let row = lid / 16u;
  let sub = lid % 16u;
  let q = q0 + row;
  for (var c = 0u; c < 4u; c++) {
    var v = 0.0;
    if (q < len) { v = staged(base + q * stride, q, sub * 4u + c); }
    q_tile[row * 64u + sub * 4u + c] = v;
  }
  // The keys any query of the block sees.
  var lo = 0u;
  var hi = len;
  let w = params.window;
  if (params.windowed == 1u) {
    lo = select(0u, q0 - w, q0 > w);
    hi = min(len, q0 + QB + w);
  }
  var m = MASKED;
  var l = 0.0;
  var acc = vec4f(0.0);
  for (var k0 = lo; k0 < hi; k0 += KB) {
    workgroupBarrier();
    let key = k0 + row;
    for (var c = 0u; c < 4u; c++) {
      var kv = 0.0;
      var vv = 0.0;
      if (key < hi) {
        kv = staged(base + key * stride + d, key, sub * 4u + c);
        vv = arena[base + key * stride + 2u * d + sub * 4u + c];
      }
      k_tile[row * KSTRIDE + sub * 4u + c] = kv;
      v_tile[row * 64u + sub * 4u + c] = vv;
    }
    workgroupBarrier();
    // Score of query row against key k0 + sub.
    var dot = 0.0;
    for (var t = 0u; t < 64u; t++) { dot = q_tile[row * 64u + t] * k_tile[sub * KSTRIDE + t] + dot; }
    let kj = k0 + sub;
    let gap = max(q, kj) - min(q, kj);
    let visible = q < len && kj < hi && (params.windowed == 0u || gap <= w);
    scores[row * KB + sub] = select(MASKED, dot * 0.125, visible);
    workgroupBarrier();
    // Query row's running softmax over this tile, for its dims sub·4 .. sub·4 + 3.
    var tile_max = MASKED;
    for (var j = 0u; j < KB; j++) { tile_max = max(tile_max, scores[row * KB + j]); }
    if (tile_max > MASKED) {
      let m_new = max(m, tile_max);
      let rescale = exp_f32(m - m_new);
      l = l * rescale;
      acc = acc * rescale;
      for (var j = 0u; j < KB; j++) {
        let score = scores[row * KB + j];
        if (score > MASKED) {
          let p = exp_f32(score - m_new);
          l += p;
          acc += p * vec4f(v_tile[j * 64u + sub * 4u], v_tile[j * 64u + sub * 4u + 1u],
                           v_tile[j * 64u + sub * 4u + 2u], v_tile[j * 64u + sub * 4u + 3u]);
        }
      }
      m = m_new;
    }
  }
  if (q < len) {
    let o = params.out + (start + q) * d + h * 64u + sub * 4u;
    for (var c = 0u; c < 4u; c++) { arena[o + c] = acc[c] / l; }
  }
}
`,
  };
}

/** `rope`: the RoPE table of the step before, fused (ropeTable(theta, n), n at least the longest sequence). */
export function planAttention(step: { qkv: number; out: number; heads: number; window: number | null }, rope: GPUBuffer | null = null): StepPlan {
  // A window past any sequence's length sees every key; clamping keeps q0 + 16 + window in u32.
  const window = step.window === null ? 0 : Math.min(step.window, 1 << 30);
  return {
    kernel: attentionKernel(rope !== null),
    params: new ParamWriter().u(step.qkv).u(step.out).u(step.heads).u(step.window === null ? 0 : 1).u(window),
    extra: rope === null ? [] : [rope],
    workgroups: (rows) => rows.blocks * step.heads,
  };
}
