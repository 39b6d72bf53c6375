/// <reference types="@webgpu/types" />
// Time by step kind on the GPU, from timestamp queries: while profiling, each step gets its own
// compute pass whose start and end the GPU stamps; after the run the stamps are read back and added
// up by op, as cpp/engine/step_profile.h does for the CPU. Needs the 'timestamp-query' feature.
import type { GpuStep } from './program.js';

/** Time and calls by step kind, summed over the runs since profiling started. */
export interface GpuStepProfile {
  runs: number;
  byOp: Partial<Record<GpuStep['op'], { calls: number; seconds: number }>>;
}

export class GpuProfiler {
  private readonly device: GPUDevice;
  private querySet: GPUQuerySet | null = null;
  private resolve: GPUBuffer | null = null;
  private readback: GPUBuffer | null = null;
  private capacity = 0;
  private pending: Array<GpuStep['op']> = [];
  readonly profile: GpuStepProfile = { runs: 0, byOp: {} };

  constructor(device: GPUDevice) {
    this.device = device;
  }

  /** Makes room for `steps` passes' stamps; call before encoding a run. */
  begin(steps: number): void {
    this.pending = [];
    if (steps <= this.capacity) return;
    this.destroy();
    this.capacity = Math.max(steps, 64);
    const bytes = this.capacity * 2 * 8;
    this.querySet = this.device.createQuerySet({ type: 'timestamp', count: this.capacity * 2, label: 'laya step stamps' });
    this.resolve = this.device.createBuffer({ size: bytes, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC });
    this.readback = this.device.createBuffer({ size: bytes, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  }

  /** The timestamp writes of the next step's pass. */
  passFor(op: GpuStep['op']): GPUComputePassDescriptor {
    const k = this.pending.length;
    this.pending.push(op);
    return { timestampWrites: { querySet: this.querySet!, beginningOfPassWriteIndex: 2 * k, endOfPassWriteIndex: 2 * k + 1 } };
  }

  /** Resolves this run's stamps into the readback buffer (encode after the last pass). */
  finish(encoder: GPUCommandEncoder): void {
    const count = this.pending.length * 2;
    if (count === 0) return;
    encoder.resolveQuerySet(this.querySet!, 0, count, this.resolve!, 0);
    encoder.copyBufferToBuffer(this.resolve!, 0, this.readback!, 0, count * 8);
  }

  /** Adds the submitted run's stamps to the profile. */
  async collect(): Promise<void> {
    const ops = this.pending;
    this.pending = [];
    this.profile.runs += 1;
    if (ops.length === 0) return;
    await this.readback!.mapAsync(GPUMapMode.READ, 0, ops.length * 16);
    const stamps = new BigUint64Array(this.readback!.getMappedRange(0, ops.length * 16).slice(0));
    this.readback!.unmap();
    ops.forEach((op, k) => {
      const entry = (this.profile.byOp[op] ??= { calls: 0, seconds: 0 });
      entry.calls += 1;
      // Stamps are nanoseconds; a pass whose end reads below its start (some drivers) counts 0.
      const ns = stamps[2 * k + 1]! - stamps[2 * k]!;
      entry.seconds += ns > 0n ? Number(ns) / 1e9 : 0;
    });
  }

  destroy(): void {
    this.querySet?.destroy();
    this.resolve?.destroy();
    this.readback?.destroy();
    this.querySet = null;
    this.resolve = null;
    this.readback = null;
    this.capacity = 0;
  }
}
