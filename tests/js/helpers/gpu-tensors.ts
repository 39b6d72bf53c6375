// Random tensors in every dtype the GPU backend reads, with their exact f32 values, and a data
// section (tensors at odd offsets, gaps between them) with the GpuModel describing it.
import type { GpuDtype, GpuModel, GpuWeight } from '../../../web/src/webgpu/program.js';

/** A seeded uniform [0, 1) generator (mulberry32), so failures reproduce. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Uniform f32 values in [-scale, scale). */
export function randomFloats(rand: () => number, count: number, scale = 1): Float32Array {
  const out = new Float32Array(count);
  for (let i = 0; i < count; ++i) out[i] = (rand() * 2 - 1) * scale;
  return out;
}

/** An IEEE half's exact value (graph/half.h). */
export function f16ToF32(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exponent = (h >> 10) & 0x1f;
  const mantissa = h & 0x3ff;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  if (exponent === 31) return mantissa === 0 ? sign * Infinity : NaN;
  return sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
}

export interface TestTensor {
  name: string;
  dtype: GpuDtype;
  shape: number[];
  /** As the file stores it. */
  bytes: Uint8Array;
  /** I8: the F32 scales [n, ceil(k / 64)] as stored. */
  scalesBytes?: Uint8Array;
  /** Every element's exact f32 value, row-major. */
  values: Float32Array;
}

/**
 * A tensor of random values of about `scale` in `dtype`: F16 from random bits (a few subnormals
 * among them), BF16 as the top half of random f32s, I8 as random q8 values and scales.
 */
export function randomTensor(rand: () => number, name: string, dtype: GpuDtype, shape: number[], scale = 1): TestTensor {
  const count = shape.reduce((a, b) => a * b, 1);
  const values = new Float32Array(count);
  if (dtype === 'F32') {
    values.set(randomFloats(rand, count, scale));
    return { name, dtype, shape, bytes: new Uint8Array(values.buffer.slice(0)), values };
  }
  if (dtype === 'F16' || dtype === 'BF16') {
    const halves = new Uint16Array(count);
    for (let i = 0; i < count; ++i) {
      if (dtype === 'F16') {
        const subnormal = rand() < 0.02;
        // Exponents around scale's: about scale / 8 to scale.
        const exponent = subnormal ? 0 : Math.max(1, Math.min(30, 15 + Math.round(Math.log2(scale)) - 1 - Math.floor(rand() * 3)));
        halves[i] = (rand() < 0.5 ? 0x8000 : 0) | (exponent << 10) | Math.floor(rand() * 1024);
        values[i] = f16ToF32(halves[i]!);
      } else {
        const f = new Float32Array([(rand() * 2 - 1) * scale]);
        halves[i] = new Uint32Array(f.buffer)[0]! >>> 16;
        values[i] = new Float32Array(new Uint32Array([halves[i]! << 16]).buffer)[0]!;
      }
    }
    return { name, dtype, shape, bytes: new Uint8Array(halves.buffer), values };
  }
  // I8: q in [-127, 127], one positive scale per row and group of 64 (docs/q8-format.md).
  const [n, k] = shape as [number, number];
  const groups = Math.ceil(k / 64);
  const q = new Int8Array(count);
  const scales = new Float32Array(n * groups);
  for (let i = 0; i < scales.length; ++i) scales[i] = (0.5 + rand()) * scale / 127;
  for (let r = 0; r < n; ++r) {
    for (let c = 0; c < k; ++c) {
      q[r * k + c] = Math.floor(rand() * 255) - 127;
      values[r * k + c] = Math.fround(q[r * k + c]! * scales[r * groups + Math.floor(c / 64)]!);
    }
  }
  return { name, dtype, shape, bytes: new Uint8Array(q.buffer), scalesBytes: new Uint8Array(scales.buffer), values };
}

/** A data section holding `tensors` with 1 to 3 byte gaps before each (odd offsets on purpose). */
export function buildModel(
  tensors: TestTensor[],
  options: { vocabSize?: number; typeCount?: number } = {},
): { model: GpuModel; data: Uint8Array } {
  const parts: Array<{ at: number; bytes: Uint8Array }> = [];
  let at = 0;
  const place = (bytes: Uint8Array) => {
    at += 1 + (parts.length % 3);
    parts.push({ at, bytes });
    const offset = at;
    at += bytes.length;
    return offset;
  };
  const weights: GpuWeight[] = tensors.map((t) => {
    const weight: GpuWeight = { name: t.name, dtype: t.dtype, shape: t.shape, byteOffset: place(t.bytes), byteLength: t.bytes.length };
    if (t.scalesBytes !== undefined) weight.scales = { byteOffset: place(t.scalesBytes), byteLength: t.scalesBytes.length };
    return weight;
  });
  const data = new Uint8Array(at + 5);
  for (const p of parts) data.set(p.bytes, p.at);
  return {
    model: { dataOffset: 1000, dataLength: data.length, weights, vocabSize: options.vocabSize ?? 1 << 20, typeCount: options.typeCount ?? 0 },
    data,
  };
}
