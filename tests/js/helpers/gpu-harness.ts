// Runs hand-built GPU programs for the backend's tests: uploads test tensors through GpuWeights in
// odd-sized chunks, runs the steps on a batch, and reads arena values back.
import { GpuDevice } from '../../../web/src/webgpu/gpu-device.js';
import { GpuExecutor, type GpuKernelOptions } from '../../../web/src/webgpu/gpu-executor.js';
import { GpuWeights } from '../../../web/src/webgpu/gpu-weights.js';
import type { GpuBatch, GpuOutputs, GpuProgram, GpuStep } from '../../../web/src/webgpu/program.js';
import { type TestTensor, buildModel } from './gpu-tensors.js';

/** Sequences of 1, 7 and 70 tokens packed end to end, with markers and question types. */
export function awkwardBatch(): GpuBatch {
  const lengths = [1, 7, 70];
  const tokens = lengths.reduce((a, b) => a + b, 0);
  return {
    ids: Int32Array.from({ length: tokens }, (_, t) => t),
    seqStarts: Int32Array.from([0, 1, 8, 78]),
    markers: Int32Array.from([0, 0, 3, 6, 5, 69, 10, 33]),
    markerStarts: Int32Array.from([0, 1, 4, 8]),
    qtypes: Int32Array.from([2, 0, 1]),
  };
}

export function rowsOfBatch(batch: GpuBatch): { tokens: number; seqs: number; markers: number } {
  return { tokens: batch.ids.length, seqs: batch.qtypes.length, markers: batch.markers.length };
}

/** Streams `data` into `weights` in chunks of 1, 2, 3, ... bytes up to `largest`, then repeating. */
export function writeInChunks(weights: GpuWeights, data: Uint8Array, largest = 997): void {
  let size = 1;
  for (let at = 0; at < data.length; at += size, size = size % largest + 1) {
    weights.write(at, data.subarray(at, Math.min(data.length, at + size)));
  }
}

export async function uploadTensors(gpu: GpuDevice, tensors: TestTensor[], options: { vocabSize?: number; typeCount?: number } = {}): Promise<GpuWeights> {
  const { model, data } = buildModel(tensors, options);
  const weights = await GpuWeights.create(gpu, model);
  writeInChunks(weights, data);
  await weights.finish();
  return weights;
}

export interface ProgramRun {
  executor: GpuExecutor;
  outputs: GpuOutputs;
  read(offset: number, floats: number): Promise<Float32Array>;
}

/** Runs `steps` over `tensors` on `batch` (a bucket of the batch's own rows unless given), then `check`. */
export async function runProgram(
  gpu: GpuDevice,
  tensors: TestTensor[],
  program: { steps: GpuStep[]; arenaFloats: number; outputs?: GpuProgram['outputs']; bucket?: GpuProgram['bucket'] },
  batch: GpuBatch,
  check: (run: ProgramRun) => Promise<void>,
  options: { typeCount?: number; kernels?: GpuKernelOptions } = {},
): Promise<void> {
  const weights = await uploadTensors(gpu, tensors, options);
  const executor = new GpuExecutor(gpu, weights, options.kernels === undefined ? {} : { kernels: options.kernels });
  try {
    const full: GpuProgram = {
      graph: 'decision',
      bucket: program.bucket ?? rowsOfBatch(batch),
      arenaFloats: program.arenaFloats,
      steps: program.steps,
      outputs: program.outputs ?? {},
    };
    const outputs = await executor.run(full, batch);
    await check({ executor, outputs, read: (offset, floats) => executor.readArena(offset, floats) });
  } finally {
    executor.destroy();
  }
}
