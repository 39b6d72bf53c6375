// GeGlu, as cpp/kernels/geglu.cc: out[r, j] = gelu(x[r, j]) · x[r, n + j] with the exact (erf) GELU,
// one invocation per output.
import type { GpuRows } from '../program.js';
import { kWgslMath } from './wgsl-math.js';
import { type KernelSource, ParamWriter, type StepPlan, prelude, rowsOf, rowsWord } from './wgsl-common.js';

const kGeGluKernel: KernelSource = {
  key: 'geglu',
  extraBindings: 0,
  code: `${prelude('  x: u32,\n  out: u32,\n  rows_word: u32,\n  n: u32,')}
${kWgslMath}
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) groups: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let i = workgroup_index(wid, groups) * 256u + lid;
  let n = params.n;
  if (i >= batch[params.rows_word] * n) { return; }
  let r = i / n;
  let j = i % n;
  let x = params.x + r * 2u * n;
  arena[params.out + i] = gelu_f32(arena[x + j]) * arena[x + n + j];
}
`,
};

export function planGeGlu(step: { x: number; out: number; rows: GpuRows; n: number }): StepPlan {
  return {
    kernel: kGeGluKernel,
    params: new ParamWriter().u(step.x).u(step.out).u(rowsWord(step.rows)).u(step.n),
    extra: [],
    workgroups: (rows) => Math.ceil((rowsOf(rows, step.rows) * step.n) / 256),
  };
}
