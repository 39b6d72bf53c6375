/// <reference types="@webgpu/types" />
// Each GpuStep to its kernel plan (kernels/*.ts), after checking that the weights it names have the
// shapes the step implies: a mismatch is a bug in the program's lowering, named with the step.
import { LayaError } from '../errors.js';
import type { GpuTensor } from './gpu-weights.js';
import { planAttention } from './kernels/attention.js';
import { planAddType, planEmbed } from './kernels/embed.js';
import { type GemmContext, planGemm, planGemmGeGlu } from './kernels/gemm.js';
import { planGeGlu } from './kernels/geglu.js';
import { planLayerNorm } from './kernels/layer-norm.js';
import { planActFeatures, planGatherMarkers } from './kernels/markers.js';
import { planMeanPool } from './kernels/mean-pool.js';
import { planRope } from './kernels/rope.js';
import type { StepPlan } from './kernels/wgsl-common.js';
import type { GpuProgram, GpuRows, GpuStep } from './program.js';

export interface StepResources {
  weight(index: number): GpuTensor;
  /** RoPE's cos / sin table for `theta`, covering the program's bucket. */
  ropeTable(theta: number): GPUBuffer;
  /** How GEMMs over rows of `kind` are to be built (the kernel choice and the bucket's rows). */
  gemm(kind: GpuRows): GemmContext;
}

function describeShape(shape: number[]): string {
  return `[${shape.join(', ')}]`;
}

/** The weight `index` as step `where` uses it, checked to have `shape` (a lookup table: any row count). */
function shaped(res: StepResources, where: string, role: string, index: number, shape: Array<number | 'any'>): GpuTensor {
  const t = res.weight(index);
  const fits = t.weight.shape.length === shape.length && shape.every((d, i) => d === 'any' || d === t.weight.shape[i]);
  if (!fits) {
    const want = shape.map((d) => (d === 'any' ? 'rows' : String(d))).join(', ');
    throw new LayaError('internal', `${where}: ${role} '${t.weight.name}' has shape ${describeShape(t.weight.shape)}, expected [${want}]`);
  }
  if (t.weight.dtype === 'I8' && shape.length !== 2) {
    throw new LayaError('internal', `${where}: ${role} '${t.weight.name}' is I8 but not a matrix`);
  }
  return t;
}

/** The arena ranges [offset, floats) a step touches for a bucket's rows. */
function arenaRanges(step: GpuStep, bucket: GpuProgram['bucket']): Array<[string, number, number]> {
  const rows = (kind: GpuRows) => bucket[kind];
  const t = bucket.tokens;
  switch (step.op) {
    case 'embed': return [['out', step.out, t * step.width]];
    case 'layer_norm': return [['x', step.x, rows(step.rows) * step.width], ['out', step.out, rows(step.rows) * step.width]];
    case 'gemm': return [['a', step.a, rows(step.rows) * step.k], ['out', step.out, rows(step.rows) * step.n]];
    case 'rope': return [['qkv', step.qkv, t * 3 * step.heads * 64]];
    case 'attention': return [['qkv', step.qkv, t * 3 * step.heads * 64], ['out', step.out, t * step.heads * 64]];
    case 'geglu': return [['x', step.x, rows(step.rows) * 2 * step.n], ['out', step.out, rows(step.rows) * step.n]];
    case 'add_type': return [['h', step.h, t * step.width]];
    case 'gather_markers': return [['h', step.h, t * step.width], ['out', step.out, bucket.markers * step.width]];
    case 'act_features':
      return [['h', step.h, t * step.width], ['logits', step.logits, bucket.markers], ['out', step.out, bucket.seqs * (step.width + 4)]];
    case 'mean_pool': return [['h', step.h, t * step.width], ['out', step.out, bucket.seqs * step.width]];
    default: return [];
  }
}

/**
 * Checks every value step `index` touches lies inside the arena for the program's bucket: a kernel
 * writing past it would be clamped by WebGPU, silently, so a lowering bug is caught here instead.
 */
export function checkStepInArena(step: GpuStep, index: number, program: GpuProgram): void {
  for (const [role, offset, floats] of arenaRanges(step, program.bucket)) {
    if (!Number.isSafeInteger(offset) || offset < 0 || offset + floats > program.arenaFloats) {
      throw new LayaError(
        'internal',
        `GPU step ${index} (${step.op}): ${role} at floats [${offset}, ${offset + floats}) lies outside the arena of ${program.arenaFloats} floats`,
      );
    }
  }
}

/**
 * Whether step `index` is a RoPE the next step's attention does itself (the same qkv rows and
 * heads): the attention then stages q and k rotated, and the RoPE is not dispatched.
 */
export function ropeFusedIntoNext(steps: GpuStep[], index: number): boolean {
  const rope = steps[index];
  const next = steps[index + 1];
  return rope?.op === 'rope' && next?.op === 'attention' && next.qkv === rope.qkv && next.heads === rope.heads;
}

type Range = [number, number];

/** The arena ranges [start, end) a step reads, and those it writes, for a bucket's rows. */
function readsAndWrites(step: GpuStep, bucket: GpuProgram['bucket']): { reads: Range[]; writes: Range[] } {
  const span = (offset: number, floats: number): Range => [offset, offset + floats];
  const t = bucket.tokens;
  switch (step.op) {
    case 'embed': return { reads: [], writes: [span(step.out, t * step.width)] };
    case 'layer_norm': return { reads: [span(step.x, bucket[step.rows] * step.width)], writes: [span(step.out, bucket[step.rows] * step.width)] };
    case 'gemm': {
      const out = span(step.out, bucket[step.rows] * step.n);
      return { reads: [span(step.a, bucket[step.rows] * step.k), ...(step.epilogue === 'accumulate' ? [out] : [])], writes: [out] };
    }
    case 'rope': return { reads: [span(step.qkv, t * 3 * step.heads * 64)], writes: [span(step.qkv, t * 3 * step.heads * 64)] };
    case 'attention': return { reads: [span(step.qkv, t * 3 * step.heads * 64)], writes: [span(step.out, t * step.heads * 64)] };
    case 'geglu': return { reads: [span(step.x, bucket[step.rows] * 2 * step.n)], writes: [span(step.out, bucket[step.rows] * step.n)] };
    case 'add_type': return { reads: [span(step.h, t * step.width)], writes: [span(step.h, t * step.width)] };
    case 'gather_markers': return { reads: [span(step.h, t * step.width)], writes: [span(step.out, bucket.markers * step.width)] };
    case 'act_features':
      return { reads: [span(step.h, t * step.width), span(step.logits, bucket.markers)], writes: [span(step.out, bucket.seqs * (step.width + 4))] };
    case 'mean_pool': return { reads: [span(step.h, t * step.width)], writes: [span(step.out, bucket.seqs * step.width)] };
    default: return { reads: [[0, Infinity]], writes: [] };
  }
}

const overlaps = (a: Range, b: Range) => a[0] < b[1] && b[0] < a[1];

/** Whether no step from `from` on reads any part of `range` before a step has overwritten that part. */
function deadFrom(steps: GpuStep[], from: number, range: Range, bucket: GpuProgram['bucket']): boolean {
  let live: Range[] = [range];
  for (let i = from; i < steps.length && live.length > 0; ++i) {
    const { reads, writes } = readsAndWrites(steps[i]!, bucket);
    if (reads.some((r) => live.some((l) => overlaps(r, l)))) return false;
    for (const w of writes) {
      live = live.flatMap(([lo, hi]): Range[] => {
        if (!overlaps([lo, hi], w)) return [[lo, hi]];
        const pieces: Range[] = [[lo, Math.min(hi, w[0])], [Math.max(lo, w[1]), hi]];
        return pieces.filter((p) => p[0] < p[1]);
      });
    }
  }
  return true;
}

/**
 * Every step's plan, with two fusions where the graph has the pair: a RoPE into the attention
 * after it (ropeFusedIntoNext), and a GEMM into the GeGLU after it (planGemmGeGlu). A fused step's
 * partner keeps its plan but is never dispatched (0 workgroups).
 *
 * The GeGLU's result goes where the graph put it, unless that overlaps the GEMM's input (the
 * planner reuses the dead input's place): then it goes where the GEMM's 2h-wide output was to be,
 * and the GEMM after the GeGLU reads it from there, provided nothing else reads it at the graph's
 * place before that is overwritten (deadFrom).
 */
export function planSteps(steps: GpuStep[], res: StepResources, bucket: GpuProgram['bucket']): StepPlan[] {
  const plans = steps.map((step, i) => planStep(step, i, res));
  const skip = (i: number) => { plans[i] = { ...plans[i]!, workgroups: () => 0 }; };
  steps.forEach((step, i) => {
    const next = steps[i + 1];
    if (ropeFusedIntoNext(steps, i) && next?.op === 'attention' && step.op === 'rope') {
      plans[i + 1] = planAttention(next, res.ropeTable(step.theta));
      skip(i);
    }
    if (step.op !== 'gemm' || next?.op !== 'geglu' || next.x !== step.out || next.rows !== step.rows) return;
    const where = `GPU step ${i} (gemm)`;
    const w = shaped(res, where, 'w', step.w, [step.n, step.k]);
    const weight = (j: number) => (j === step.w ? w : shaped(res, where, 'bias', j, [step.n]));
    const context = res.gemm(step.rows);
    const rows = bucket[step.rows];
    const result: Range = [next.out, next.out + rows * next.n];
    if (!overlaps(result, [step.a, step.a + rows * step.k])) {
      const fused = planGemmGeGlu(step, next, weight, context);
      if (fused !== null) {
        plans[i] = fused;
        skip(i + 1);
      }
      return;
    }
    const consumer = steps[i + 2];
    if (consumer?.op !== 'gemm' || consumer.a !== next.out || consumer.rows !== step.rows || !deadFrom(steps, i + 3, result, bucket)) return;
    const moved = { out: step.out, n: next.n };
    const fused = planGemmGeGlu(step, moved, weight, context);
    if (fused === null) return;
    plans[i] = fused;
    skip(i + 1);
    plans[i + 2] = planStep({ ...consumer, a: moved.out }, i + 2, res);
  });
  return plans;
}

export function planStep(step: GpuStep, index: number, res: StepResources): StepPlan {
  const where = `GPU step ${index} (${step.op})`;
  // Every weight a step names other than a GEMM's matrix is a table [rows, width] or a vector.
  const weight = (role: string, shape: Array<number | 'any'>) => (i: number) => shaped(res, where, `${role} (weight ${i})`, i, shape);
  switch (step.op) {
    case 'embed':
      return planEmbed(step, weight('table', ['any', step.width]));
    case 'layer_norm':
      return planLayerNorm(step, weight('w or b', [step.width]));
    case 'gemm': {
      const w = shaped(res, where, 'w', step.w, [step.n, step.k]);
      return planGemm(step, (i) => (i === step.w ? w : shaped(res, where, 'bias', i, [step.n])), res.gemm(step.rows));
    }
    case 'rope':
      return planRope(step, res.ropeTable(step.theta));
    case 'attention':
      return planAttention(step);
    case 'geglu':
      return planGeGlu(step);
    case 'add_type':
      return planAddType(step, weight('table', ['any', step.width]));
    case 'gather_markers':
      return planGatherMarkers(step);
    case 'act_features':
      return planActFeatures(step);
    case 'mean_pool':
      return planMeanPool(step);
    default: {
      const unknown: never = step;
      throw new LayaError('internal', `${where}: no WebGPU kernel for op '${(unknown as { op: string }).op}'`);
    }
  }
}
