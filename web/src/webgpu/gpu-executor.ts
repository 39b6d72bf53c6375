/// <reference types="@webgpu/types" />
// Runs GpuPrograms on the GPU: one arena buffer (f32, grown for bigger buckets), the packed batch
// table, one 256-byte uniform slot per step, pipelines cached by kernel variant, bind groups made once
// per program (again when a buffer they bind grows). A run records every step into one compute pass,
// copies the outputs into a mapped buffer and returns them sized to the batch's rows. Runs are
// serialised: they share those buffers.
//
// The arena is one binding: WebGPU forbids binding one buffer twice where one binding writes, and
// in-place steps (LayerNorm, RoPE, accumulate) read and write the same value. So an arena above
// maxStorageBufferBindingSize is refused (naming both sizes) rather than split.
import { LayaError, describeError } from '../errors.js';
import type { StepProfile } from '../request.js';
import { packBatch, batchWords } from './gpu-batch.js';
import type { GpuDevice } from './gpu-device.js';
import { checkStepInArena, planSteps } from './gpu-steps.js';
import type { GpuWeights } from './gpu-weights.js';
import type { GpuKernelOptions } from '../options.js';
import type { GemmChoice, GemmContext } from './kernels/gemm.js';
import { ropeTable } from './kernels/rope.js';
import { type KernelSource, type StepPlan, grid } from './kernels/wgsl-common.js';
import { GpuProfiler, type GpuStepProfile } from './gpu-profiler.js';
import type { GpuBatch, GpuOutputs, GpuProgram } from './program.js';

export type { GpuStepProfile } from './gpu-profiler.js';

export interface GpuExecutorOptions {
  /** destroy() also destroys the device (default false: whoever made it destroys it). */
  ownsDevice?: boolean;
  /** Kernel variants (default: the GEMM tile by the bucket's rows, shader-f16 where the device has it). */
  kernels?: GpuKernelOptions;
}

export type { GpuKernelOptions };

/**
 * What ran: the kernels chosen and the work each run recorded, as the profile reports it
 * (StepProfile.gpu), with the GEMM choice typed. gemmKernels are the GEMM kernels used by the runs
 * since the stats were reset, by key ("gemm-tiled/t64x64/F16/..."), with their dispatches.
 */
export type GpuRunStats = Omit<NonNullable<StepProfile['gpu']>, 'gemm'> & { gemm: GemmChoice };

interface PreparedStep {
  plan: StepPlan;
  pipeline: GPUComputePipeline;
  bindGroup: GPUBindGroup;
}

/** A program's steps with their pipelines and bind groups, valid while `generation` is current. */
interface Prepared {
  generation: number;
  params: GPUBuffer;
  steps: PreparedStep[];
}

const kUniformSlot = 256;
/** Programs kept prepared: a model has a handful of buckets per graph. */
const kPreparedPrograms = 16;
const kOutputRows = { logits: 'markers', act: 'seqs', pooled: 'seqs' } as const;

export class GpuExecutor {
  private readonly gpu: GpuDevice;
  private readonly weights: GpuWeights;
  private readonly ownsDevice: boolean;
  private readonly pipelines = new Map<string, Promise<GPUComputePipeline>>();
  private readonly layouts = new Map<number, GPUBindGroupLayout>();
  /**
   * Prepared programs by content (steps and arena size), most recently used last: a caller may hand
   * the same program over as a new object each run. At most kPreparedPrograms are kept.
   */
  private readonly prepared = new Map<string, Prepared>();
  private readonly ropeTables = new Map<number, { buffer: GPUBuffer; positions: number }>();
  private arena: GPUBuffer | null = null;
  private batchTable: GPUBuffer | null = null;
  private readback: GPUBuffer | null = null;
  /** Bumped whenever a buffer bind groups refer to is replaced. */
  private generation = 0;
  private tail: Promise<unknown> = Promise.resolve();
  private destroyed = false;
  private profiler: GpuProfiler | null = null;
  private readonly gemmChoice: GemmChoice;
  private readonly shaderF16: boolean;
  private counters: GpuRunStats;

  constructor(gpu: GpuDevice, weights: GpuWeights, options: GpuExecutorOptions = {}) {
    this.gpu = gpu;
    this.weights = weights;
    this.ownsDevice = options.ownsDevice ?? false;
    this.gemmChoice = options.kernels?.gemm ?? 'auto';
    // shader-f16 only where the device was granted it: elsewhere the packed-pair decode, which
    // every adapter runs (and SwiftShader, which has no f16, checks).
    this.shaderF16 = (options.kernels?.f16 ?? 'auto') === 'auto' && gpu.hasShaderF16;
    this.counters = this.freshStats();
  }

  /** The kernel choice and what the runs since the last reset recorded (a copy); `reset` starts afresh. */
  stats(reset = false): GpuRunStats {
    const copy = structuredClone(this.counters);
    if (reset) this.counters = this.freshStats();
    return copy;
  }

  private freshStats(): GpuRunStats {
    return { gemm: this.gemmChoice, shaderF16: this.shaderF16, gemmKernels: {}, runs: 0, dispatches: 0, passes: 0, submits: 0 };
  }

  /**
   * Compiles the pipelines `program` would use for buckets of each of `rowCounts` rows (the GEMM
   * tile may depend on them), so that a bucket's first run compiles nothing. Pipelines are cached
   * by kernel, so a bucket of another size reuses them.
   */
  compile(program: GpuProgram, rowCounts: number[]): Promise<void> {
    const result = this.tail.then(async () => {
      this.checkUsable();
      await this.reserve(program, 0);
      const plans = rowCounts.flatMap((rows) => this.plan(program, { tokens: rows, seqs: rows, markers: rows }));
      await Promise.all(plans.map((p) => this.pipeline(p.kernel)));
    });
    this.tail = result.catch(() => undefined);
    return result;
  }

  /** Runs `program` on `batch`; outputs have the batch's rows. Runs queue behind each other. */
  run(program: GpuProgram, batch: GpuBatch): Promise<GpuOutputs> {
    const result = this.tail.then(() => this.runNow(program, batch));
    this.tail = result.catch(() => undefined);
    return result;
  }

  /**
   * Starts (true) or stops (false) timing steps by kind with timestamp queries; starting resets the
   * profile. Throws unsupported_model where the device has no 'timestamp-query'.
   */
  setProfiling(on: boolean): void {
    this.profiler?.destroy();
    this.profiler = null;
    if (!on) return;
    if (!this.gpu.hasTimestamps) {
      throw new LayaError('unsupported_model', `profiling GPU steps needs the 'timestamp-query' feature, which adapter ${this.gpu.adapterName} lacks`);
    }
    this.profiler = new GpuProfiler(this.gpu.device);
  }

  /** Time and calls by step kind since profiling started (a copy), or null when not profiling. */
  profile(): GpuStepProfile | null {
    return this.profiler === null ? null : structuredClone(this.profiler.profile);
  }

  /**
   * Arena floats [offset, offset + floats) as the last run left them: for tests and debugging
   * (a kernel's output that is no program output).
   */
  readArena(offset: number, floats: number): Promise<Float32Array> {
    const result = this.tail.then(async () => {
      this.checkUsable();
      const arena = this.arena;
      if (arena === null || (offset + floats) * 4 > arena.size) {
        throw new LayaError('internal', `reading arena floats [${offset}, ${offset + floats}): the arena holds ${(arena?.size ?? 0) / 4}`);
      }
      const device = this.gpu.device;
      const bytes = Math.max(4, floats * 4);
      const staging = device.createBuffer({ size: bytes, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
      try {
        const encoder = device.createCommandEncoder();
        encoder.copyBufferToBuffer(arena, offset * 4, staging, 0, floats * 4);
        device.queue.submit([encoder.finish()]);
        await staging.mapAsync(GPUMapMode.READ);
        return new Float32Array(staging.getMappedRange().slice(0, floats * 4));
      } finally {
        staging.destroy();
      }
    });
    this.tail = result.catch(() => undefined);
    return result;
  }

  /** Destroys every buffer this executor made and the weights (idempotent); later runs reject. */
  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.arena?.destroy();
    this.batchTable?.destroy();
    this.readback?.destroy();
    this.profiler?.destroy();
    for (const t of this.ropeTables.values()) t.buffer.destroy();
    for (const p of this.prepared.values()) p.params.destroy();
    this.ropeTables.clear();
    this.prepared.clear();
    this.weights.destroy();
    if (this.ownsDevice) this.gpu.destroy();
  }

  private checkUsable(): void {
    if (this.destroyed) throw new LayaError('disposed', 'forward on the GPU: the executor was destroyed');
    this.gpu.checkUsable('forward on the GPU');
  }

  private async runNow(program: GpuProgram, batch: GpuBatch): Promise<GpuOutputs> {
    this.checkUsable();
    const packed = packBatch(batch, this.weights.model, program);
    const outputs = this.outputRegions(program, packed.rows);
    const readBytes = outputs.reduce((sum, o) => sum + o.floats * 4, 0);
    await this.reserve(program, readBytes);
    const prepared = await this.prepare(program);
    this.checkUsable();

    const device = this.gpu.device;
    const maxPerDimension = device.limits.maxComputeWorkgroupsPerDimension;
    device.pushErrorScope('validation');
    device.pushErrorScope('out-of-memory');
    device.queue.writeBuffer(this.batchTable!, 0, packed.words);
    const encoder = device.createCommandEncoder({ label: `laya ${program.graph} forward` });
    // One pass for the whole program (WebGPU orders each dispatch's writes before the next one's
    // reads), or one per step while profiling, so each can be stamped.
    const profiler = this.profiler;
    profiler?.begin(prepared.steps.length);
    const single = profiler === null ? encoder.beginComputePass() : null;
    const counters = this.counters;
    counters.runs += 1;
    prepared.steps.forEach((step, i) => {
      const workgroups = step.plan.workgroups(packed.rows);
      if (workgroups === 0) return;
      counters.dispatches += 1;
      counters.passes += single === null ? 1 : 0;
      const key = step.plan.kernel.key;
      if (key.startsWith('gemm')) counters.gemmKernels[key] = (counters.gemmKernels[key] ?? 0) + 1;
      const [x, y] = grid(workgroups, maxPerDimension);
      const pass = single ?? encoder.beginComputePass(profiler!.passFor(program.steps[i]!.op));
      pass.setPipeline(step.pipeline);
      pass.setBindGroup(0, step.bindGroup);
      pass.dispatchWorkgroups(x, y);
      if (single === null) pass.end();
    });
    single?.end();
    counters.passes += single === null ? 0 : 1;
    profiler?.finish(encoder);
    let at = 0;
    for (const o of outputs) {
      if (o.floats > 0) encoder.copyBufferToBuffer(this.arena!, o.offset * 4, this.readback!, at, o.floats * 4);
      at += o.floats * 4;
    }
    device.queue.submit([encoder.finish()]);
    counters.submits += 1;
    const oom = device.popErrorScope();
    const invalid = device.popErrorScope();

    const result: GpuOutputs = {};
    try {
      const [oomError, validationError] = await Promise.all([oom, invalid]);
      if (oomError !== null) throw new LayaError('out_of_memory', `forward on the GPU: out of memory (${oomError.message})`);
      if (validationError !== null) throw new LayaError('internal', `forward on the GPU: WebGPU rejected the run (${validationError.message})`);
      if (readBytes > 0) {
        await this.readback!.mapAsync(GPUMapMode.READ, 0, readBytes);
        const mapped = this.readback!.getMappedRange(0, readBytes);
        at = 0;
        for (const o of outputs) {
          result[o.name] = new Float32Array(mapped.slice(at, at + o.floats * 4));
          at += o.floats * 4;
        }
        this.readback!.unmap();
      } else {
        // No output to map: wait for the steps all the same, so a resolved run is a finished one.
        await device.queue.onSubmittedWorkDone();
      }
      await profiler?.collect();
    } catch (error) {
      this.checkUsable();
      if (error instanceof LayaError) throw error;
      throw new LayaError('internal', `forward on the GPU: reading the outputs back failed (${describeError(error)})`, { cause: error });
    }
    return result;
  }

  /** Where each output is and how many floats the batch gives it, checked against the arena. */
  private outputRegions(program: GpuProgram, rows: { tokens: number; seqs: number; markers: number }) {
    const regions: Array<{ name: keyof GpuOutputs; offset: number; floats: number }> = [];
    for (const name of ['logits', 'act', 'pooled'] as const) {
      const out = program.outputs[name];
      if (out === undefined) continue;
      const floats = rows[kOutputRows[name]] * out.width;
      const bucketFloats = program.bucket[kOutputRows[name]] * out.width;
      if (out.offset + bucketFloats > program.arenaFloats) {
        throw new LayaError('internal', `GPU program: output ${name} at [${out.offset}, ${out.offset + bucketFloats}) is outside the arena of ${program.arenaFloats} floats`);
      }
      regions.push({ name, offset: out.offset, floats });
    }
    return regions;
  }

  /** Grows the arena, batch table, RoPE tables and readback buffer to what `program` needs. */
  private async reserve(program: GpuProgram, readBytes: number): Promise<void> {
    const device = this.gpu.device;
    const bucket = `${program.bucket.tokens} tokens, ${program.bucket.seqs} sequences and ${program.bucket.markers} markers`;
    const arenaBytes = arenaBufferBytes(program.arenaFloats);
    const tableBytes = batchWords(program.bucket) * 4;
    const thetas = new Set<number>();
    for (const s of program.steps) if (s.op === 'rope') thetas.add(s.theta);
    const positions = Math.max(1, program.bucket.tokens);
    const grows = {
      arena: (this.arena?.size ?? 0) < arenaBytes,
      table: (this.batchTable?.size ?? 0) < tableBytes,
      readback: (this.readback?.size ?? 0) < readBytes,
      rope: [...thetas].filter((theta) => (this.ropeTables.get(theta)?.positions ?? 0) < positions),
    };
    if (!grows.arena && !grows.table && !grows.readback && grows.rope.length === 0) return;
    if (grows.arena) this.gpu.checkBufferSize(arenaBytes, `the activation arena for ${bucket}`);
    const storage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST;
    const made = await this.gpu.allocate(
      `the activation arena and batch tables for ${bucket}`,
      () => ({
        arena: grows.arena ? device.createBuffer({ size: arenaBytes, usage: storage | GPUBufferUsage.COPY_SRC, label: 'laya arena' }) : null,
        table: grows.table ? device.createBuffer({ size: tableBytes, usage: storage, label: 'laya batch' }) : null,
        readback: grows.readback ? device.createBuffer({ size: readBytes, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST, label: 'laya outputs' }) : null,
        rope: grows.rope.map((theta) => ({
          theta,
          buffer: device.createBuffer({ size: positions * 64 * 4, usage: storage, label: `laya rope ${theta}` }),
        })),
      }),
      (m) => [m.arena, m.table, m.readback, ...m.rope.map((r) => r.buffer)].forEach((b) => b?.destroy()),
    );
    if (made.arena !== null) {
      this.arena?.destroy();
      this.arena = made.arena;
    }
    if (made.table !== null) {
      this.batchTable?.destroy();
      this.batchTable = made.table;
    }
    if (made.readback !== null) {
      this.readback?.destroy();
      this.readback = made.readback;
    }
    for (const { theta, buffer } of made.rope) {
      device.queue.writeBuffer(buffer, 0, ropeTable(theta, positions));
      this.ropeTables.get(theta)?.buffer.destroy();
      this.ropeTables.set(theta, { buffer, positions });
    }
    if (made.arena !== null || made.table !== null || made.rope.length > 0) this.generation += 1;
  }

  private bindGroupLayout(extra: number): GPUBindGroupLayout {
    let layout = this.layouts.get(extra);
    if (layout === undefined) {
      const compute = GPUShaderStage.COMPUTE;
      const entries: GPUBindGroupLayoutEntry[] = [
        { binding: 0, visibility: compute, buffer: { type: 'uniform' } },
        { binding: 1, visibility: compute, buffer: { type: 'storage' } },
        { binding: 2, visibility: compute, buffer: { type: 'read-only-storage' } },
      ];
      for (let i = 0; i < extra; ++i) entries.push({ binding: 3 + i, visibility: compute, buffer: { type: 'read-only-storage' } });
      layout = this.gpu.device.createBindGroupLayout({ entries, label: `laya ${extra} extra bindings` });
      this.layouts.set(extra, layout);
    }
    return layout;
  }

  private pipeline(kernel: KernelSource): Promise<GPUComputePipeline> {
    let pipeline = this.pipelines.get(kernel.key);
    if (pipeline === undefined) {
      const device = this.gpu.device;
      const module = device.createShaderModule({ code: kernel.code, label: kernel.key });
      const layout = device.createPipelineLayout({ bindGroupLayouts: [this.bindGroupLayout(kernel.extraBindings)] });
      pipeline = device.createComputePipelineAsync({ layout, compute: { module, entryPoint: 'main' }, label: kernel.key }).catch(
        async (error: unknown) => {
          this.pipelines.delete(kernel.key);
          const info = await module.getCompilationInfo().catch(() => null);
          const messages = info?.messages.map((m) => `${m.lineNum}:${m.linePos} ${m.message}`).join('; ');
          throw new LayaError('internal', `GPU kernel ${kernel.key} failed to compile: ${messages || describeError(error)}`, { cause: error });
        },
      );
      this.pipelines.set(kernel.key, pipeline);
    }
    return pipeline;
  }

  /** Each step's plan for a bucket of `bucket` rows (reserve() has made its RoPE tables). */
  private plan(program: GpuProgram, bucket: GpuProgram['bucket']): StepPlan[] {
    return planSteps(program.steps, {
      weight: (index) => this.weights.tensor(index),
      ropeTable: (theta) => this.ropeTables.get(theta)!.buffer,
      gemm: (kind): GemmContext => ({ choice: this.gemmChoice, f16: this.shaderF16, bucketRows: bucket[kind] }),
    }, bucket);
  }

  /** The program's pipelines, parameters and bind groups, made on first use and after buffers grow. */
  private async prepare(program: GpuProgram): Promise<Prepared> {
    const key = JSON.stringify([program.arenaFloats, program.steps]);
    const cached = this.prepared.get(key);
    if (cached !== undefined) {
      this.prepared.delete(key);
      this.prepared.set(key, cached);
      if (cached.generation === this.generation) return cached;
    }
    const device = this.gpu.device;
    program.steps.forEach((step, i) => checkStepInArena(step, i, program));
    const plans = this.plan(program, program.bucket);
    const pipelines = await Promise.all(plans.map((p) => this.pipeline(p.kernel)));
    let params = cached?.params;
    if (params === undefined) {
      params = await this.gpu.allocate(
        `the step parameters of a ${program.graph} program`,
        () => device.createBuffer({ size: Math.max(1, plans.length) * kUniformSlot, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST, label: 'laya step params' }),
        (b) => b.destroy(),
      );
      plans.forEach((p, i) => device.queue.writeBuffer(params!, i * kUniformSlot, p.params.bytes()));
    }
    const steps = plans.map((plan, i): PreparedStep => {
      const entries: GPUBindGroupEntry[] = [
        { binding: 0, resource: { buffer: params!, offset: i * kUniformSlot, size: kUniformSlot } },
        { binding: 1, resource: { buffer: this.arena! } },
        { binding: 2, resource: { buffer: this.batchTable! } },
        ...plan.extra.map((buffer, j) => ({ binding: 3 + j, resource: { buffer } })),
      ];
      const layout = this.bindGroupLayout(plan.kernel.extraBindings);
      return { plan, pipeline: pipelines[i]!, bindGroup: device.createBindGroup({ layout, entries, label: `step ${i} ${program.steps[i]!.op}` }) };
    });
    const prepared: Prepared = { generation: this.generation, params, steps };
    this.prepared.set(key, prepared);
    if (this.prepared.size > kPreparedPrograms) {
      const [oldestKey, oldest] = this.prepared.entries().next().value!;
      // Runs are serialised and each waits for its results, so no GPU work still reads these.
      oldest.params.destroy();
      this.prepared.delete(oldestKey);
    }
    return prepared;
  }
}

/** The arena buffer's size for `floats` values: a multiple of 16 bytes, as the tiled GEMM binds it as array<vec4f>. */
export function arenaBufferBytes(floats: number): number {
  return Math.max(16, Math.ceil(floats / 4) * 16);
}
