/// <reference types="@webgpu/types" />
// RoPE in place on the q and k heads of [q | k | v] token rows, as cpp/kernels/rope.cc: positions
// restart at 0 in each sequence, dim j pairs with j + 32. The cos / sin table is computed here in
// JavaScript exactly as make_rope_table does in f32 (GPU sin / cos are far less accurate for large
// angles) and bound as [position][pair][cos, sin].
import { ParamWriter, type KernelSource, type StepPlan, prelude } from './wgsl-common.js';

export const kHeadDim = 64;
const kPairs = kHeadDim / 2;

/** make_rope_table(theta, positions): interleaved f32 cos and sin, [positions][32][2]. */
export function ropeTable(theta: number, positions: number): Float32Array<ArrayBuffer> {
  const f = Math.fround;
  const table = new Float32Array(positions * kPairs * 2);
  const invFreq: number[] = [];
  for (let j = 0; j < kPairs; ++j) invFreq.push(f(1 / f(Math.pow(f(theta), f((2 * j) / kHeadDim)))));
  for (let p = 0; p < positions; ++p) {
    for (let j = 0; j < kPairs; ++j) {
      const angle = f(p * invFreq[j]!);
      table[(p * kPairs + j) * 2] = Math.cos(angle);
      table[(p * kPairs + j) * 2 + 1] = Math.sin(angle);
    }
  }
  return table;
}

const kRopeKernel: KernelSource = {
  key: 'rope',
  extraBindings: 1,
  code: `${prelude('  qkv: u32,\n  heads: u32,')}
@group(0) @binding(3) var<storage, read> angles: array<u32>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) groups: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  // One invocation per (token, q or k head, pair).
  let i = workgroup_index(wid, groups) * 256u + lid;
  let per_token = 2u * params.heads * 32u;
  if (i >= batch[H_TOKENS] * per_token) { return; }
  let t = i / per_token;
  let head = (i % per_token) / 32u;
  let j = i % 32u;
  let s = batch[batch_offset(H_TOKENSEQ) + t];
  let position = t - batch[batch_offset(H_SEQSTARTS) + s];
  let c = bitcast<f32>(angles[(position * 32u + j) * 2u]);
  let sn = bitcast<f32>(angles[(position * 32u + j) * 2u + 1u]);
  let x = params.qkv + t * 3u * params.heads * 64u + head * 64u;
  let lo = arena[x + j];
  let hi = arena[x + j + 32u];
  arena[x + j] = lo * c - hi * sn;
  arena[x + j + 32u] = hi * c + lo * sn;
}
`,
};

/** `table`: ropeTable(step.theta, n) with n at least the batch's longest sequence. */
export function planRope(step: { qkv: number; heads: number }, table: GPUBuffer): StepPlan {
  return {
    kernel: kRopeKernel,
    params: new ParamWriter().u(step.qkv).u(step.heads),
    extra: [table],
    workgroups: (rows) => Math.ceil((rows.tokens * 2 * step.heads * kPairs) / 256),
  };
}
