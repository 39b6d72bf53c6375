// WGSL shared by every kernel: the bindings every step has (its parameters, the arena, the packed
// batch), the batch table's header, the workgroup index over a 2-D dispatch, and the TypeScript side
// of those conventions (the kernel description, parameter packing, dispatch sizes).
/// <reference types="@webgpu/types" />
import type { GpuRows } from '../program.js';

/** Word indices of the batch table's header (gpu-batch.ts writes it). */
export const kBatchHeader = {
  tokens: 0,
  seqs: 1,
  markers: 2,
  /** Attention's query blocks (kernels/attention.ts). */
  blocks: 3,
  ids: 4,
  seqStarts: 5,
  markerList: 6,
  markerStarts: 7,
  qtypes: 8,
  /** Per token: its sequence. */
  tokenSeq: 9,
  /** Per marker: its sequence. */
  markerSeq: 10,
  /** Per attention block: (sequence, first query). */
  blockTable: 11,
} as const;
export const kBatchHeaderWords = 16;

/** The header word holding a row kind's count; the kernels index the header with it. */
export function rowsWord(rows: GpuRows): number {
  return rows === 'tokens' ? kBatchHeader.tokens : rows === 'seqs' ? kBatchHeader.seqs : kBatchHeader.markers;
}

/**
 * A compiled kernel's description. Bindings: 0 the step's parameters (uniform), 1 the arena
 * (array<f32>, read_write), 2 the batch table (array<u32>), then `extraBindings` read-only
 * array<u32> buffers (weights, scales, tables) at 3, 4, ...
 */
export interface KernelSource {
  /** Pipeline cache key: the kernel and the variant its code was generated for. */
  key: string;
  code: string;
  extraBindings: number;
}

/**
 * The declarations every kernel starts with; `params` is the body of its Params struct. `arena`
 * 'vec4f' views the arena as vec4s (the register-tiled GEMM's aligned loads and stores: the buffer's
 * size is a multiple of 16 bytes); offsets into it then count vec4s.
 */
export function prelude(params: string, arena: 'f32' | 'vec4f' = 'f32', enables = ''): string {
  const header = Object.entries(kBatchHeader).map(([name, word]) => `const H_${name.toUpperCase()}: u32 = ${word}u;`).join('\n');
  return `${enables}
struct Params {
${params}
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> arena: array<${arena}>;
@group(0) @binding(2) var<storage, read> batch: array<u32>;
${header}

// Where a batch table (ids, seq_starts, ...) starts in \`batch\`.
fn batch_offset(which: u32) -> u32 { return batch[which]; }

// Dispatches wider than maxComputeWorkgroupsPerDimension go 2-D; this is the workgroup's place in
// the flattened grid.
fn workgroup_index(wid: vec3u, groups: vec3u) -> u32 { return wid.x + wid.y * groups.x; }
`;
}

/** A step's parameters as the Params struct lays them out: u32 and f32 scalars, 4 bytes each. */
export class ParamWriter {
  private readonly words = new ArrayBuffer(256);
  private readonly u32 = new Uint32Array(this.words);
  private readonly f32 = new Float32Array(this.words);
  private count = 0;

  u(value: number): this {
    if (!Number.isInteger(value) || value < 0 || value > 0xffffffff) throw new RangeError(`GPU step parameter ${value} is not a u32`);
    this.u32[this.count++] = value;
    return this;
  }

  f(value: number): this {
    this.f32[this.count++] = value;
    return this;
  }

  /** The 256 bytes of a uniform binding (minUniformBufferOffsetAlignment at most 256). */
  bytes(): Uint8Array<ArrayBuffer> {
    return new Uint8Array(this.words);
  }
}

/** Workgroup grid for `count` workgroups: as wide as allowed, then rows. */
export function grid(count: number, maxPerDimension: number): [number, number] {
  if (count <= maxPerDimension) return [count, 1];
  const y = Math.ceil(count / maxPerDimension);
  return [Math.ceil(count / y), y];
}

/** A batch's row counts, as the dispatch sizes need them. */
export interface BatchRows {
  tokens: number;
  seqs: number;
  markers: number;
  /** Attention's query blocks. */
  blocks: number;
}

export function rowsOf(rows: BatchRows, kind: GpuRows): number {
  return kind === 'tokens' ? rows.tokens : kind === 'seqs' ? rows.seqs : rows.markers;
}

/** One step ready to encode: its kernel, parameters, extra bindings and dispatch size. */
export interface StepPlan {
  kernel: KernelSource;
  params: ParamWriter;
  /** Bindings 3, 4, ...: weight buffers and tables. */
  extra: GPUBuffer[];
  /** Workgroups the step needs for a batch (0: nothing to do). */
  workgroups(rows: BatchRows): number;
}
