// Embed (out[t] = table[ids[t]]) and AddType (h[t] += table[qtypes[seq of t]]), as
// cpp/kernels/embed.cc and add_type.cc: one invocation per element of the token rows.
import type { GpuTensor } from '../gpu-weights.js';
import type { GpuDtype } from '../program.js';
import { kF16Decode, weightBindings, weightBuffers, weightReader } from './weight-reader.js';
import { type KernelSource, ParamWriter, type StepPlan, prelude } from './wgsl-common.js';

function embedKernel(dtype: GpuDtype): KernelSource {
  return {
    key: `embed/${dtype}`,
    extraBindings: weightBindings(dtype),
    code: `${prelude('  out: u32,\n  width: u32,')}
${kF16Decode}
${weightReader('weights', dtype, 3)}
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) groups: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let i = workgroup_index(wid, groups) * 256u + lid;
  if (i >= batch[H_TOKENS] * params.width) { return; }
  let t = i / params.width;
  let id = batch[batch_offset(H_IDS) + t];
  arena[params.out + i] = weights_at(id, i % params.width, params.width);
}
`,
  };
}

function addTypeKernel(dtype: GpuDtype): KernelSource {
  return {
    key: `add_type/${dtype}`,
    extraBindings: weightBindings(dtype),
    code: `${prelude('  h: u32,\n  width: u32,')}
${kF16Decode}
${weightReader('weights', dtype, 3)}
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) groups: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let i = workgroup_index(wid, groups) * 256u + lid;
  if (i >= batch[H_TOKENS] * params.width) { return; }
  let s = batch[batch_offset(H_TOKENSEQ) + i / params.width];
  let qtype = batch[batch_offset(H_QTYPES) + s];
  arena[params.h + i] = arena[params.h + i] + weights_at(qtype, i % params.width, params.width);
}
`,
  };
}

export function planEmbed(step: { table: number; out: number; width: number }, weight: (i: number) => GpuTensor): StepPlan {
  const table = weight(step.table);
  return {
    kernel: embedKernel(table.weight.dtype),
    params: new ParamWriter().u(step.out).u(step.width),
    extra: weightBuffers(table),
    workgroups: (rows) => Math.ceil((rows.tokens * step.width) / 256),
  };
}

export function planAddType(step: { h: number; table: number; width: number }, weight: (i: number) => GpuTensor): StepPlan {
  const table = weight(step.table);
  return {
    kernel: addTypeKernel(table.weight.dtype),
    params: new ParamWriter().u(step.h).u(step.width),
    extra: weightBuffers(table),
    workgroups: (rows) => Math.ceil((rows.tokens * step.width) / 256),
  };
}
