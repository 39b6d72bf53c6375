/// <reference types="@webgpu/types" />
// The model's tensors on the GPU, streamed in: one storage buffer per tensor (and one per q8 scales
// tensor), each written with queue.writeBuffer as the data section's chunks arrive, so the file is
// never whole in JS. Tensors keep their stored dtype (F16 / BF16 as packed 16-bit pairs, I8 as packed
// bytes); the kernels convert as they read (kernels/weight-reader.ts).
import { LayaError } from '../errors.js';
import type { GpuDevice } from './gpu-device.js';
import type { GpuDtype, GpuModel, GpuWeight } from './program.js';

const kFile = 'model.safetensors';

const kDtypeBytes: Record<GpuDtype, number> = { F32: 4, F16: 2, BF16: 2, I8: 1 };

/** One tensor as the kernels bind it. */
export interface GpuTensor {
  weight: GpuWeight;
  buffer: GPUBuffer;
  /** I8 only: the F32 scales [n, ceil(k / 64)]. */
  scales: GPUBuffer | null;
}

/**
 * A byte range of the data section bound for one buffer, with the bytes of a partial 4-byte word:
 * writeBuffer takes only whole words, and chunks end anywhere.
 */
interface Region {
  name: string;
  start: number;
  end: number;
  buffer: GPUBuffer;
  /** Bytes already handed to writeBuffer (a multiple of 4). */
  flushed: number;
  /** Bytes of this region received so far. */
  received: number;
  partial: Uint8Array<ArrayBuffer>;
  partialLength: number;
}

function elementsOf(shape: number[]): number {
  return shape.reduce((a, b) => a * b, 1);
}

function roundUp4(bytes: number): number {
  // A zero-sized buffer cannot be bound; an empty tensor gets one word nothing reads.
  return Math.max(4, Math.ceil(bytes / 4) * 4);
}

/** Checks one tensor's place and size against its dtype and shape; messages name the tensor. */
function checkWeight(w: GpuWeight, dataLength: number): void {
  const fault = (what: string) => new LayaError('invalid_checkpoint', `tensor '${w.name}': ${what}`, { file: kFile });
  const size = kDtypeBytes[w.dtype];
  if (size === undefined) throw fault(`dtype ${String(w.dtype)} is not one the WebGPU backend reads`);
  const expected = elementsOf(w.shape) * size;
  if (w.byteLength !== expected) {
    throw fault(`${w.byteLength} bytes for shape [${w.shape.join(', ')}] of ${w.dtype}, expected ${expected}`);
  }
  const ranges: Array<[string, number, number]> = [['data', w.byteOffset, w.byteLength]];
  if (w.dtype === 'I8') {
    if (w.shape.length !== 2 || w.scales === undefined) throw fault('I8 but not a q8 matrix with scales');
    const scales = (w.shape[0] ?? 0) * Math.ceil((w.shape[1] ?? 0) / 64) * 4;
    if (w.scales.byteLength !== scales) throw fault(`q8 scales are ${w.scales.byteLength} bytes, expected ${scales}`);
    ranges.push(['q8 scales', w.scales.byteOffset, w.scales.byteLength]);
  }
  for (const [what, offset, length] of ranges) {
    if (!Number.isSafeInteger(offset) || offset < 0 || offset + length > dataLength) {
      throw fault(`${what} at bytes [${offset}, ${offset + length}) lie outside the data section of ${dataLength} bytes`);
    }
  }
}

export class GpuWeights {
  private readonly gpu: GpuDevice;
  /** The model whose tensors these are. */
  readonly model: GpuModel;
  private readonly tensors: GpuTensor[];
  /** Every region in data-section order. */
  private readonly regions: Region[];
  /** Regions before this index are complete. */
  private firstOpen = 0;
  /** The data-section byte the next chunk must start at. */
  private next = 0;
  private destroyed = false;

  private constructor(gpu: GpuDevice, model: GpuModel, tensors: GpuTensor[], regions: Region[]) {
    this.gpu = gpu;
    this.model = model;
    this.tensors = tensors;
    this.regions = regions;
  }

  /** Checks every tensor against the model and the device's limits, then makes its buffers. */
  static async create(gpu: GpuDevice, model: GpuModel): Promise<GpuWeights> {
    gpu.checkUsable('uploading weights');
    for (const w of model.weights) {
      checkWeight(w, model.dataLength);
      gpu.checkBufferSize(roundUp4(w.byteLength), `tensor '${w.name}'`);
      if (w.scales !== undefined) gpu.checkBufferSize(roundUp4(w.scales.byteLength), `tensor '${w.name}.q8_scales'`);
    }
    const total = model.weights.reduce((sum, w) => sum + w.byteLength + (w.scales?.byteLength ?? 0), 0);
    const made: GPUBuffer[] = [];
    const tensors = await gpu.allocate(
      `uploading ${model.weights.length} tensors (${total} bytes) to the GPU`,
      () => model.weights.map((weight): GpuTensor => {
        const buffer = (bytes: number, label: string) => {
          // COPY_SRC: so tests (and debugging) can read a tensor back.
          const b = gpu.device.createBuffer({ size: roundUp4(bytes), usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC, label });
          made.push(b);
          return b;
        };
        return {
          weight,
          buffer: buffer(weight.byteLength, weight.name),
          scales: weight.scales === undefined ? null : buffer(weight.scales.byteLength, `${weight.name}.q8_scales`),
        };
      }),
      () => made.forEach((b) => b.destroy()),
    );
    const regions: Region[] = [];
    const region = (name: string, start: number, length: number, buffer: GPUBuffer): Region => ({
      name, start, end: start + length, buffer, flushed: 0, received: 0, partial: new Uint8Array(4), partialLength: 0,
    });
    for (const t of tensors) {
      regions.push(region(t.weight.name, t.weight.byteOffset, t.weight.byteLength, t.buffer));
      if (t.scales !== null && t.weight.scales !== undefined) {
        regions.push(region(`${t.weight.name}.q8_scales`, t.weight.scales.byteOffset, t.weight.scales.byteLength, t.scales));
      }
    }
    regions.sort((a, b) => a.start - b.start || a.end - b.end);
    return new GpuWeights(gpu, model, tensors, regions);
  }

  /** The tensor the steps call weight `index`. */
  tensor(index: number): GpuTensor {
    const t = this.tensors[index];
    if (t === undefined) {
      throw new LayaError('internal', `a GPU step reads weight ${index} but the model has ${this.tensors.length} weights`);
    }
    return t;
  }

  /** Bytes held on the GPU. */
  get bytes(): number {
    return this.tensors.reduce((sum, t) => sum + t.buffer.size + (t.scales?.size ?? 0), 0);
  }

  /**
   * The data section's bytes [offset, offset + chunk.length), in order: each chunk must start where
   * the previous one ended (the first at 0). Bytes no tensor uses are skipped.
   */
  write(offset: number, chunk: Uint8Array): void {
    if (this.destroyed) throw new LayaError('disposed', 'uploading weights: the GPU weights were destroyed');
    this.gpu.checkUsable('uploading weights');
    if (offset !== this.next) {
      throw new LayaError('internal', `uploading weights: a chunk starts at data byte ${offset}, expected ${this.next} (chunks must arrive in order)`);
    }
    const end = offset + chunk.length;
    if (end > this.model.dataLength) {
      throw new LayaError('invalid_checkpoint', `${kFile} has more data than its header's ${this.model.dataLength} bytes`, { file: kFile });
    }
    for (let i = this.firstOpen; i < this.regions.length; ++i) {
      const r = this.regions[i]!;
      if (r.start >= end) break;
      const lo = Math.max(offset, r.start);
      const hi = Math.min(end, r.end);
      if (lo < hi) this.feed(r, chunk.subarray(lo - offset, hi - offset));
    }
    while (this.firstOpen < this.regions.length && this.regions[this.firstOpen]!.end <= end) this.firstOpen += 1;
    this.next = end;
  }

  /**
   * The same as write() for bytes counted from the start of the file: the header's bytes (before
   * model.dataOffset) are skipped, so a loader can pass the file's chunks as they come.
   */
  writeFile(fileOffset: number, chunk: Uint8Array): void {
    const skip = Math.max(0, this.model.dataOffset - fileOffset);
    if (skip >= chunk.length) return;
    this.write(fileOffset + skip - this.model.dataOffset, chunk.subarray(skip));
  }

  private feed(r: Region, bytes: Uint8Array): void {
    const queue = this.gpu.device.queue;
    // writeBuffer accepts views of any buffer (AllowShared in the WebGPU IDL); the TypeScript types
    // only list ArrayBuffer-backed ones.
    const source = bytes as Uint8Array<ArrayBuffer>;
    let i = 0;
    if (r.partialLength > 0) {
      while (r.partialLength < 4 && i < bytes.length) r.partial[r.partialLength++] = bytes[i++]!;
      if (r.partialLength === 4) {
        queue.writeBuffer(r.buffer, r.flushed, r.partial);
        r.flushed += 4;
        r.partialLength = 0;
      }
    }
    const whole = (bytes.length - i) & ~3;
    if (whole > 0) {
      queue.writeBuffer(r.buffer, r.flushed, source, i, whole);
      r.flushed += whole;
      i += whole;
    }
    while (i < bytes.length) r.partial[r.partialLength++] = bytes[i++]!;
    r.received += bytes.length;
    if (r.start + r.received === r.end && r.partialLength > 0) {
      // The tensor's last word: its missing bytes are the padding the buffer was rounded up with.
      r.partial.fill(0, r.partialLength);
      queue.writeBuffer(r.buffer, r.flushed, r.partial);
      r.flushed += 4;
      r.partialLength = 0;
    }
  }

  /** Checks every tensor arrived whole and waits until the GPU holds it. */
  async finish(): Promise<void> {
    const missing = this.regions.find((r) => r.start + r.received !== r.end);
    if (missing !== undefined) {
      throw new LayaError(
        'invalid_checkpoint',
        `${kFile} ended at data byte ${this.next} before tensor '${missing.name}' was complete (${missing.received} of ${missing.end - missing.start} bytes)`,
        { file: kFile },
      );
    }
    this.gpu.checkUsable('uploading weights');
    await this.gpu.device.queue.onSubmittedWorkDone();
    this.gpu.checkUsable('uploading weights');
  }

  /** Destroys every buffer (idempotent). */
  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    for (const t of this.tensors) {
      t.buffer.destroy();
      t.scales?.destroy();
    }
  }
}
