// GatherMarkers and ActFeatures, as cpp/kernels/gather_markers.cc and act_features.cc (laya-spec §3.7, §3.8): a marker's
// token row copied out; per sequence its first token row and the 4 act features of its markers'
// logits (top-1 probability, top-1 − top-2, normalised entropy, k_eff / 255), computed in order by
// one invocation as the scalar kernel does.
import { kWgslMath } from './wgsl-math.js';
import { type KernelSource, ParamWriter, type StepPlan, prelude } from './wgsl-common.js';

const kGatherKernel: KernelSource = {
  key: 'gather_markers',
  extraBindings: 0,
  code: `${prelude('  h: u32,\n  out: u32,\n  width: u32,')}
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) groups: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let i = workgroup_index(wid, groups) * 256u + lid;
  let width = params.width;
  if (i >= batch[H_MARKERS] * width) { return; }
  let m = i / width;
  let s = batch[batch_offset(H_MARKERSEQ) + m];
  let row = batch[batch_offset(H_SEQSTARTS) + s] + batch[batch_offset(H_MARKERLIST) + m];
  arena[params.out + i] = arena[params.h + row * width + i % width];
}
`,
};

const kActFeaturesKernel: KernelSource = {
  key: 'act_features',
  extraBindings: 0,
  code: `${prelude('  h: u32,\n  logits: u32,\n  out: u32,\n  width: u32,')}
${kWgslMath}
@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) groups: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let s = workgroup_index(wid, groups);
  if (s >= batch[H_SEQS]) { return; }
  let width = params.width;
  let out = params.out + s * (width + 4u);
  let first_row = batch[batch_offset(H_SEQSTARTS) + s];
  for (var j = lid; j < width; j += 64u) { arena[out + j] = arena[params.h + first_row * width + j]; }
  if (lid != 0u) { return; }
  let first = batch[batch_offset(H_MARKERSTARTS) + s];
  let k = batch[batch_offset(H_MARKERSTARTS) + s + 1u] - first;
  let logits = params.logits + first;
  var top = arena[logits];
  for (var i = 1u; i < k; i++) { top = max(top, arena[logits + i]); }
  var sum = 0.0;
  for (var i = 0u; i < k; i++) { sum += exp_f32(arena[logits + i] - top); }
  var top1 = 0.0;
  var top2 = 0.0;
  var entropy = 0.0;
  for (var i = 0u; i < k; i++) {
    let p = exp_f32(arena[logits + i] - top) / sum;
    entropy += p * log(max(p, 1e-9));
    if (p > top1) {
      top2 = top1;
      top1 = p;
    } else if (p > top2) {
      top2 = p;
    }
  }
  let k_eff = f32(max(k, 2u));
  arena[out + width] = top1;
  arena[out + width + 1u] = top1 - top2;
  arena[out + width + 2u] = -entropy / log(k_eff);
  arena[out + width + 3u] = k_eff / 255.0;
}
`,
};

export function planGatherMarkers(step: { h: number; out: number; width: number }): StepPlan {
  return {
    kernel: kGatherKernel,
    params: new ParamWriter().u(step.h).u(step.out).u(step.width),
    extra: [],
    workgroups: (rows) => Math.ceil((rows.markers * step.width) / 256),
  };
}

export function planActFeatures(step: { h: number; logits: number; out: number; width: number }): StepPlan {
  return {
    kernel: kActFeaturesKernel,
    params: new ParamWriter().u(step.h).u(step.logits).u(step.out).u(step.width),
    extra: [],
    workgroups: (rows) => rows.seqs,
  };
}
