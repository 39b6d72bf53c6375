// MeanPool, as cpp/kernels/mean_pool.cc (laya-spec §3.10): per sequence the mean of its token rows,
// one invocation per output. The CPU sums in f64; here blocks of 64 rows are summed in f32 and the
// block sums added, which keeps the rounding error near 64 + len / 64 ulps rather than len.
import { type KernelSource, ParamWriter, type StepPlan, prelude } from './wgsl-common.js';

const kMeanPoolKernel: KernelSource = {
  key: 'mean_pool',
  extraBindings: 0,
  code: `${prelude('  h: u32,\n  out: u32,\n  width: u32,')}
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) groups: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let i = workgroup_index(wid, groups) * 256u + lid;
  let width = params.width;
  if (i >= batch[H_SEQS] * width) { return; }
  let s = i / width;
  let j = i % width;
  let first = batch[batch_offset(H_SEQSTARTS) + s];
  let len = batch[batch_offset(H_SEQSTARTS) + s + 1u] - first;
  var total = 0.0;
  for (var t0 = 0u; t0 < len; t0 += 64u) {
    var block = 0.0;
    for (var t = t0; t < min(len, t0 + 64u); t++) { block += arena[params.h + (first + t) * width + j]; }
    total += block;
  }
  arena[params.out + i] = total / f32(max(len, 1u));
}
`,
};

export function planMeanPool(step: { h: number; out: number; width: number }): StepPlan {
  return {
    kernel: kMeanPoolKernel,
    params: new ParamWriter().u(step.h).u(step.out).u(step.width),
    extra: [],
    workgroups: (rows) => Math.ceil((rows.seqs * step.width) / 256),
  };
}
