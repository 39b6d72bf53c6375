/// <reference types="@webgpu/types" />
// The WebGPU backend as an in-thread engine runs it (a ForwardRunner, engine/forward-runner.ts). The C++ session keeps everything a request is (rows,
// batching, shortlists, answers) and plans every bucket with the seed's planner; its weights were
// never in wasm memory but streamed to GPU buffers. A call runs by replay
// (cpp/session/outside_runs.h): the session's method runs, says which batches it waits for, the
// GPU runs them, their outputs go back, and the method runs again until nothing is pending.
import type { LayaSessionHandle } from '../core/laya-core.js';
import { expectEmptyResult, parseSessionJson } from '../core/session-result.js';
import { LayaError, throwIfAborted } from '../errors.js';
import type { OpenedFile } from '../sources/checkpoint-source.js';
import { readHeader } from '../weights-streamer.js';
import { requestGpuDevice, type GpuDevice } from './gpu-device.js';
import { GpuExecutor, type GpuKernelOptions } from './gpu-executor.js';
import { GpuWeights } from './gpu-weights.js';
import type { ForwardRunner } from '../engine/forward-runner.js';
import type { MemoryReport, StepProfile } from '../request.js';
import type { GpuBatch, GpuModel, GpuOutputs, GpuProgram } from './program.js';
import { stepGflop } from './step-gflop.js';

type GraphName = 'decision' | 'embedding';

/** A batch the session waits for, as outsidePending() lists it. */
interface PendingBatch {
  graph: GraphName;
  index: number;
  ids: number[];
  seqStarts: number[];
  markers: number[];
  markerStarts: number[];
  qtypes: number[];
}

/** Data-section bytes read per GPU write while loading: the only copy of the file JS ever holds. */
const kUploadWindow = 4 << 20;

/**
 * Row counts whose GEMM tiles load() compiles: the tiles 'auto' picks for questions of up to 512
 * tokens (a longer bucket's first run compiles any other tile it takes).
 */
const kCompiledRows = [1, 64, 128, 256, 512];

/** A request that needs more rounds than this is a replay that does not converge: a bug. */
const kMaxRounds = 16;

export class GpuSession implements ForwardRunner {
  readonly backend = 'webgpu';
  readonly gpu: GpuDevice;
  private readonly session: LayaSessionHandle;
  private readonly weights: GpuWeights;
  private readonly executor: GpuExecutor;
  /** Parsed programs by their text (one per bucket and graph). */
  private readonly programs = new Map<string, GpuProgram>();
  /** While profiling: GFLOP by step kind, and the batches' wall time when the GPU cannot stamp steps. */
  private profiling: { runs: number; ms: number; gflop: Map<string, number> } | null = null;

  constructor(session: LayaSessionHandle, gpu: GpuDevice, weights: GpuWeights, kernels: GpuKernelOptions = {}) {
    this.session = session;
    this.gpu = gpu;
    this.weights = weights;
    this.executor = new GpuExecutor(gpu, weights, { ownsDevice: true, kernels });
  }

  /**
   * Compiles every pipeline the decision graph's programs use for the bucket sizes of
   * kCompiledRows (the GEMM tile depends on the rows), so that a question pays for no compiling:
   * called once by load().
   */
  async compileKernels(): Promise<void> {
    const program = this.program('decision', 1, 1, 1);
    await this.executor.compile(program, kCompiledRows);
  }

  /** Bytes the weights take on the GPU. */
  get weightBytes(): number {
    return this.weights.bytes;
  }

  /** The session's report with the GPU's weights added (wasm memory holds none of them). */
  memory(report: MemoryReport): MemoryReport {
    return { ...report, gpuWeightsBytes: this.weightBytes };
  }

  /**
   * `call` is a synchronous session method (predict, embed, forward, ...) returning its text; it is
   * run until the session waits for no batch, each round's batches run on the GPU in between.
   */
  async run(call: () => string, what: string, signal?: AbortSignal): Promise<string> {
    const session = this.session;
    expectEmptyResult(session.outsideBeginRequest(), what);
    for (let round = 0; round < kMaxRounds; ++round) {
      throwIfAborted(signal);
      expectEmptyResult(session.outsideBeginReplay(), what);
      const result = call();
      const pending = parseSessionJson<PendingBatch[]>(session.outsidePending(), what);
      if (pending.length === 0) return result;
      for (const p of pending) {
        throwIfAborted(signal);
        const outputs = await this.runBatch(p);
        expectEmptyResult(session.outsideSupply(p.graph, p.index, outputs), what);
      }
    }
    throw new LayaError('internal', `${what}: the request still waited for GPU batches after ${kMaxRounds} rounds`);
  }

  /**
   * Time by step kind from the GPU's timestamps where the adapter has 'timestamp-query'; else one
   * "gpu_batches" entry: the batches' wall time, submission to read-back, with all their GFLOP.
   */
  setProfiling(on: boolean): void {
    this.executor.setProfiling(on && this.gpu.hasTimestamps);
    this.executor.stats(true);
    this.profiling = on ? { runs: 0, ms: 0, gflop: new Map() } : null;
  }

  profile(): StepProfile {
    const p = this.profiling;
    if (p === null) return { runs: 0, steps: [] };
    const stamped = this.executor.profile();
    if (stamped === null) {
      const gflop = [...p.gflop.values()].reduce((a, b) => a + b, 0);
      return { runs: p.runs, steps: p.runs === 0 ? [] : [{ kind: 'gpu_batches', calls: p.runs, ms: p.ms, gflop }], gpu: this.executor.stats() };
    }
    const steps = Object.entries(stamped.byOp).map(([kind, t]) => ({
      kind, calls: t?.calls ?? 0, ms: (t?.seconds ?? 0) * 1e3, gflop: p.gflop.get(kind) ?? 0,
    }));
    return { runs: stamped.runs, steps, gpu: this.executor.stats() };
  }

  /** Destroys every GPU buffer and the device. Idempotent. */
  destroy(): void {
    this.executor.destroy();
    this.weights.destroy();
    this.gpu.destroy();
  }

  private async runBatch(p: PendingBatch): Promise<Float32Array> {
    const batch: GpuBatch = {
      ids: Int32Array.from(p.ids),
      seqStarts: Int32Array.from(p.seqStarts),
      markers: Int32Array.from(p.markers),
      markerStarts: Int32Array.from(p.markerStarts),
      qtypes: Int32Array.from(p.qtypes),
    };
    const program = this.program(p.graph, p.ids.length, p.qtypes.length, p.markers.length);
    const started = performance.now();
    const out = await this.executor.run(program, batch);
    const profiling = this.profiling;
    if (profiling !== null) {
      profiling.runs += 1;
      profiling.ms += performance.now() - started;
      for (const step of program.steps) {
        profiling.gflop.set(step.op, (profiling.gflop.get(step.op) ?? 0) + stepGflop(step, batch));
      }
    }
    return p.graph === 'decision' ? concat(need(out, 'logits', p), need(out, 'act', p)) : need(out, 'pooled', p);
  }

  /**
   * The program for a batch's rows. C++ rounds them to a bucket and plans each bucket once, giving
   * the same text for every batch of it, so the parsed programs are kept by that text: one per
   * bucket, however many row counts arrive.
   */
  private program(graph: GraphName, tokens: number, seqs: number, markers: number): GpuProgram {
    const text = this.session.outsideProgram(graph, tokens, seqs, markers);
    const known = this.programs.get(text);
    if (known !== undefined) return known;
    const program = parseSessionJson<GpuProgram>(text, `${graph} program`);
    this.programs.set(text, program);
    return program;
  }
}

/**
 * The device for backend 'webgpu', or for 'auto' null with the reason when WebGPU cannot run here
 * (no WebGPU, no adapter, limits below the kernels' needs).
 */
export async function chooseGpu(backend: 'webgpu' | 'auto', gpu: unknown): Promise<{ device: GpuDevice } | { device: null; why: string }> {
  try {
    return { device: await requestGpuDevice(gpu === undefined ? {} : { gpu: gpu as GPU }) };
  } catch (error) {
    if (backend === 'webgpu' || !(error instanceof LayaError)) throw error;
    return { device: null, why: error.message };
  }
}

/**
 * Plans the model for the GPU from model.safetensors' header (C++ validates it as for wasm), then
 * streams the data section to the tensors' GPU buffers window by window: the file is never whole in
 * JavaScript or wasm memory.
 */
export async function loadWeightsToGpu(session: LayaSessionHandle, opened: OpenedFile, signal: AbortSignal | undefined,
                                       gpu: GpuDevice, kernels: GpuKernelOptions = {}): Promise<GpuSession> {
  let weights: GpuWeights | null = null;
  try {
    const { header, size } = await readHeader(session, opened);
    throwIfAborted(signal);
    const model = parseSessionJson<GpuModel>(session.planOutside(header, size),
                                             `${opened.file} header`);
    weights = await GpuWeights.create(gpu, model);
    const vectors = new VectorCopies(model);
    const window = new Uint8Array(Math.min(kUploadWindow, Math.max(1, model.dataLength)));
    for (let at = 0; at < model.dataLength; at += window.byteLength) {
      throwIfAborted(signal);
      const n = Math.min(window.byteLength, model.dataLength - at);
      await opened.reader.readInto(() => window, 0, n);
      weights.write(at, window.subarray(0, n));
      vectors.take(at, window.subarray(0, n));
    }
    await opened.reader.expectEnd();
    // A NaN or Inf norm weight or bias makes every output non-finite: refused at load, as on wasm,
    // by the engine's own check.
    vectors.forEach((index, bytes) => {
      expectEmptyResult(session.outsideCheckVector(index, bytes), 'loading the weights');
    });
    await weights.finish();
    const loaded = new GpuSession(session, gpu, weights, kernels);
    weights = null;
    try {
      await loaded.compileKernels();
    } catch (error) {
      loaded.destroy();
      throw error;
    }
    return loaded;
  } catch (error) {
    weights?.destroy();
    gpu.destroy();
    throw error;
  }
}

/**
 * Copies of the 1-D weights (norm weights, biases: a few hundred kB for the largest model) taken
 * from the upload windows as they pass, so the engine can check them.
 */
class VectorCopies {
  private readonly copies: Array<{ index: number; start: number; bytes: Uint8Array }> = [];

  constructor(model: GpuModel) {
    model.weights.forEach((w, index) => {
      if (w.shape.length === 1) this.copies.push({ index, start: w.byteOffset, bytes: new Uint8Array(w.byteLength) });
    });
  }

  /** Takes what falls inside a vector from data-section bytes [at, at + chunk.length). */
  take(at: number, chunk: Uint8Array): void {
    const end = at + chunk.byteLength;
    for (const c of this.copies) {
      const from = Math.max(at, c.start);
      const to = Math.min(end, c.start + c.bytes.byteLength);
      if (from < to) c.bytes.set(chunk.subarray(from - at, to - at), from - c.start);
    }
  }

  forEach(visit: (index: number, bytes: Uint8Array) => void): void {
    for (const c of this.copies) visit(c.index, c.bytes);
  }
}


function need(out: GpuOutputs, key: keyof GpuOutputs, p: PendingBatch): Float32Array {
  const v = out[key];
  if (v === undefined) throw new LayaError('internal', `the GPU's ${p.graph} program has no ${key} output`);
  return v;
}

function concat(a: Float32Array, b: Float32Array): Float32Array {
  const out = new Float32Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}
