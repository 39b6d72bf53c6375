// LayerNorm of each row, as cpp/kernels/layer_norm.cc: biased variance, eps inside the square root,
// the mean and then the squared deviations summed in two passes (f32 here, f64 on the CPU) by one
// workgroup per row. Each invocation reads its part of the row once and keeps it in registers (up
// to 8 values: rows up to 2048 wide; wider rows re-read the rest), and each sum is a reduction in
// workgroup memory with two barriers (16 partial sums of 16, then every invocation adds the 16),
// where a tree takes eight. In place (x = out) is safe: each invocation writes only what it read.
import type { GpuTensor } from '../gpu-weights.js';
import type { GpuDtype, GpuRows } from '../program.js';
import { kF16Decode, weightBindings, weightBuffers, weightReader } from './weight-reader.js';
import { type KernelSource, ParamWriter, type StepPlan, prelude, rowsOf, rowsWord } from './wgsl-common.js';

export const kRowReduce = `
var<workgroup> partial: array<f32, 256>;
var<workgroup> partial16: array<f32, 16>;

// The workgroup's sum of v (256 invocations), the same in every invocation. A second call cannot
// overwrite what the first still reads: partial is rewritten only after every invocation passed the
// first call's second barrier, partial16 only after every one passed the second call's first.
fn workgroup_sum(lid: u32, v: f32) -> f32 {
  partial[lid] = v;
  workgroupBarrier();
  if (lid < 16u) {
    var s = 0.0;
    for (var i = 0u; i < 16u; i++) { s += partial[lid * 16u + i]; }
    partial16[lid] = s;
  }
  workgroupBarrier();
  var total = 0.0;
  for (var i = 0u; i < 16u; i++) { total += partial16[i]; }
  return total;
}
`;

function layerNormKernel(w: GpuDtype, b: GpuDtype | null): KernelSource {
  const bias = b === null ? '' : weightReader('bias', b, 3 + weightBindings(w));
  return {
    key: `layer_norm/${w}/${b ?? 'none'}`,
    extraBindings: weightBindings(w) + (b === null ? 0 : weightBindings(b)),
    code: `${prelude('  x: u32,\n  out: u32,\n  rows_word: u32,\n  width: u32,\n  eps: f32,')}
${kF16Decode}
${weightReader('scale', w, 3)}
${bias}
${kRowReduce}
const CACHED = 8u;
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) groups: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let row = workgroup_index(wid, groups);
  if (row >= batch[params.rows_word]) { return; }
  let width = params.width;
  let x = params.x + row * width;
  let out = params.out + row * width;
  // Elements lid, lid + 256, ... of the row: the first CACHED in registers, any beyond re-read.
  var v: array<f32, CACHED>;
  var sum = 0.0;
  for (var i = 0u; i < CACHED; i++) {
    let j = lid + i * 256u;
    if (j < width) { v[i] = arena[x + j]; sum += v[i]; }
  }
  for (var j = lid + CACHED * 256u; j < width; j += 256u) { sum += arena[x + j]; }
  let mean = workgroup_sum(lid, sum) / f32(width);
  var sq = 0.0;
  for (var i = 0u; i < CACHED; i++) {
    if (lid + i * 256u < width) {
      let c = v[i] - mean;
      sq += c * c;
    }
  }
  for (var j = lid + CACHED * 256u; j < width; j += 256u) {
    let c = arena[x + j] - mean;
    sq += c * c;
  }
  let rstd = 1.0 / sqrt(workgroup_sum(lid, sq) / f32(width) + params.eps);
  for (var i = 0u; i < CACHED; i++) {
    let j = lid + i * 256u;
    if (j < width) {
      var y = (v[i] - mean) * rstd * scale_at(0u, j, width);
      ${b === null ? '' : 'y += bias_at(0u, j, width);'}
      arena[out + j] = y;
    }
  }
  for (var j = lid + CACHED * 256u; j < width; j += 256u) {
    var y = (arena[x + j] - mean) * rstd * scale_at(0u, j, width);
    ${b === null ? '' : 'y += bias_at(0u, j, width);'}
    arena[out + j] = y;
  }
}
`,
  };
}

export function planLayerNorm(
  step: { x: number; out: number; rows: GpuRows; width: number; w: number; b: number | null; eps: number },
  weight: (i: number) => GpuTensor,
): StepPlan {
  const w = weight(step.w);
  const b = step.b === null ? null : weight(step.b);
  return {
    kernel: layerNormKernel(w.weight.dtype, b?.weight.dtype ?? null),
    params: new ParamWriter().u(step.x).u(step.out).u(rowsWord(step.rows)).u(step.width).f(step.eps),
    extra: [...weightBuffers(w), ...(b === null ? [] : weightBuffers(b))],
    workgroups: (rows) => rowsOf(rows, step.rows),
  };
}
