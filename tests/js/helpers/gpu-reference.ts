// The GPU kernels' reference: a line-by-line JavaScript port of the scalar C++ kernels
// (cpp/kernels/*.cc) over a Float32Array arena, f32 arithmetic emulated with Math.fround where the
// C++ computes in float and plain doubles where it computes in double. Independent of the WGSL.
import type { GpuEpilogue } from '../../../web/src/webgpu/program.js';

const f = Math.fround;

/** erf in double: its Maclaurin series below 3, the continued fraction of erfc above. */
export function erf(x: number): number {
  const a = Math.abs(x);
  if (a < 3) {
    let term = x;
    let sum = x;
    for (let n = 1; n < 200 && Math.abs(term) > 1e-17 * Math.abs(sum); ++n) {
      term *= (-x * x) / n;
      sum += term / (2 * n + 1);
    }
    return (2 / Math.sqrt(Math.PI)) * sum;
  }
  let fraction = a;
  for (let k = 80; k >= 1; --k) fraction = a + k / 2 / fraction;
  const erfc = Math.exp(-a * a) / (Math.sqrt(Math.PI) * fraction);
  return Math.sign(x) * (1 - erfc);
}

/** kernels/geglu.h gelu_scalar: 0.5f * x * (1.0f + erf(x * kSqrtHalf)), in float. */
export function gelu(x: number): number {
  return f(f(0.5 * x) * f(1 + f(erf(f(x * f(Math.SQRT1_2))))));
}

/** A packed batch as the reference reads it. */
export interface RefBatch {
  ids: Int32Array;
  seqStarts: Int32Array;
  markers: Int32Array;
  markerStarts: Int32Array;
  qtypes: Int32Array;
}

export function embed(arena: Float32Array, table: Float32Array, ids: Int32Array, out: number, width: number): void {
  ids.forEach((id, t) => arena.set(table.subarray(id * width, (id + 1) * width), out + t * width));
}

export function layerNorm(arena: Float32Array, x: number, out: number, rows: number, width: number,
                          w: Float32Array, b: Float32Array | null, eps: number): void {
  for (let r = 0; r < rows; ++r) {
    const row = arena.slice(x + r * width, x + (r + 1) * width);
    let sum = 0;
    for (const v of row) sum += v;
    const mean = sum / width;
    let sq = 0;
    for (const v of row) sq += (v - mean) * (v - mean);
    const rstd = 1 / Math.sqrt(sq / width + f(eps));
    for (let j = 0; j < width; ++j) {
      let y = (row[j]! - mean) * rstd * w[j]!;
      if (b !== null) y += b[j]!;
      arena[out + r * width + j] = y;
    }
  }
}

export function gemm(arena: Float32Array, a: number, out: number, rows: number, k: number, n: number,
                     w: Float32Array, b: Float32Array | null, epilogue: GpuEpilogue): void {
  for (let j = 0; j < n; ++j) {
    for (let i = 0; i < rows; ++i) {
      let sum = 0;
      for (let t = 0; t < k; ++t) sum = f(f(arena[a + i * k + t]! * w[j * k + t]!) + sum);
      if (b !== null) sum = f(sum + b[j]!);
      const o = out + i * n + j;
      arena[o] = epilogue === 'gelu' ? gelu(sum) : epilogue === 'relu' ? (sum > 0 ? sum : 0)
        : epilogue === 'accumulate' ? f(arena[o]! + sum) : sum;
    }
  }
}

export function rope(arena: Float32Array, qkv: number, heads: number, seqStarts: Int32Array, theta: number): void {
  const invFreq: number[] = [];
  for (let j = 0; j < 32; ++j) invFreq.push(f(1 / f(Math.pow(f(theta), f((2 * j) / 64)))));
  const width = 3 * heads * 64;
  for (let s = 0; s + 1 < seqStarts.length; ++s) {
    for (let p = 0; p < seqStarts[s + 1]! - seqStarts[s]!; ++p) {
      const row = qkv + (seqStarts[s]! + p) * width;
      for (let h = 0; h < 2 * heads; ++h) {
        for (let j = 0; j < 32; ++j) {
          const angle = f(p * invFreq[j]!);
          const c = f(Math.cos(angle));
          const sn = f(Math.sin(angle));
          const x = row + h * 64;
          const lo = arena[x + j]!;
          const hi = arena[x + j + 32]!;
          arena[x + j] = f(f(lo * c) - f(hi * sn));
          arena[x + j + 32] = f(f(hi * c) + f(lo * sn));
        }
      }
    }
  }
}

export function attention(arena: Float32Array, qkv: number, out: number, heads: number, seqStarts: Int32Array,
                          window: number | null): void {
  const d = heads * 64;
  const stride = 3 * d;
  for (let s = 0; s + 1 < seqStarts.length; ++s) {
    const start = seqStarts[s]!;
    const len = seqStarts[s + 1]! - start;
    for (let h = 0; h < heads; ++h) {
      for (let i = 0; i < len; ++i) {
        const lo = window === null ? 0 : Math.max(0, i - window);
        const hi = window === null ? len : Math.min(len, i + window + 1);
        const scores = new Float64Array(len);
        let max = -Infinity;
        for (let j = lo; j < hi; ++j) {
          let dot = 0;
          for (let t = 0; t < 64; ++t) {
            dot = f(f(arena[qkv + (start + i) * stride + h * 64 + t]! * arena[qkv + (start + j) * stride + d + h * 64 + t]!) + dot);
          }
          scores[j] = f(dot * 0.125);
          max = Math.max(max, scores[j]!);
        }
        let sum = 0;
        for (let j = lo; j < hi; ++j) {
          scores[j] = f(Math.exp(f(scores[j]! - max)));
          sum = f(sum + scores[j]!);
        }
        for (let t = 0; t < 64; ++t) {
          let acc = 0;
          for (let j = lo; j < hi; ++j) acc = f(f(scores[j]! * arena[qkv + (start + j) * stride + 2 * d + h * 64 + t]!) + acc);
          arena[out + (start + i) * d + h * 64 + t] = acc / sum;
        }
      }
    }
  }
}

export function geglu(arena: Float32Array, x: number, out: number, rows: number, n: number): void {
  for (let r = 0; r < rows; ++r) {
    for (let j = 0; j < n; ++j) {
      arena[out + r * n + j] = f(gelu(arena[x + r * 2 * n + j]!) * arena[x + r * 2 * n + n + j]!);
    }
  }
}

export function addType(arena: Float32Array, h: number, table: Float32Array, width: number, batch: RefBatch): void {
  for (let s = 0; s < batch.qtypes.length; ++s) {
    for (let t = batch.seqStarts[s]!; t < batch.seqStarts[s + 1]!; ++t) {
      for (let j = 0; j < width; ++j) arena[h + t * width + j] = f(arena[h + t * width + j]! + table[batch.qtypes[s]! * width + j]!);
    }
  }
}

export function gatherMarkers(arena: Float32Array, h: number, out: number, width: number, batch: RefBatch): void {
  for (let s = 0; s < batch.qtypes.length; ++s) {
    for (let m = batch.markerStarts[s]!; m < batch.markerStarts[s + 1]!; ++m) {
      const row = batch.seqStarts[s]! + batch.markers[m]!;
      arena.copyWithin(out + m * width, h + row * width, h + (row + 1) * width);
    }
  }
}

export function actFeatures(arena: Float32Array, h: number, logits: number, out: number, width: number, batch: RefBatch): void {
  for (let s = 0; s < batch.qtypes.length; ++s) {
    const row = out + s * (width + 4);
    arena.copyWithin(row, h + batch.seqStarts[s]! * width, h + (batch.seqStarts[s]! + 1) * width);
    const first = batch.markerStarts[s]!;
    const k = batch.markerStarts[s + 1]! - first;
    const l = arena.slice(logits + first, logits + first + k);
    let max = l[0]!;
    for (const v of l) max = Math.max(max, v);
    let sum = 0;
    for (const v of l) sum = f(sum + f(Math.exp(f(v - max))));
    let top1 = 0;
    let top2 = 0;
    let entropy = 0;
    for (const v of l) {
      const p = f(f(Math.exp(f(v - max))) / sum);
      entropy = f(entropy + f(p * f(Math.log(Math.max(p, f(1e-9))))));
      if (p > top1) {
        top2 = top1;
        top1 = p;
      } else if (p > top2) {
        top2 = p;
      }
    }
    const kEff = Math.max(k, 2);
    arena[row + width] = top1;
    arena[row + width + 1] = f(top1 - top2);
    arena[row + width + 2] = f(-entropy / f(Math.log(kEff)));
    arena[row + width + 3] = f(kEff / 255);
  }
}

export function meanPool(arena: Float32Array, h: number, out: number, width: number, batch: RefBatch): void {
  for (let s = 0; s < batch.qtypes.length; ++s) {
    const first = batch.seqStarts[s]!;
    const len = batch.seqStarts[s + 1]! - first;
    for (let j = 0; j < width; ++j) {
      let sum = 0;
      for (let t = 0; t < len; ++t) sum += arena[h + (first + t) * width + j]!;
      arena[out + s * width + j] = sum / Math.max(len, 1);
    }
  }
}

/** max |got − want| / max(1, |want|) over two arrays of equal length (Infinity if lengths differ). */
export function worstError(got: ArrayLike<number>, want: ArrayLike<number>): number {
  if (got.length !== want.length) return Infinity;
  let worst = 0;
  for (let i = 0; i < want.length; ++i) {
    const e = Math.abs(got[i]! - want[i]!) / Math.max(1, Math.abs(want[i]!));
    if (!(e <= worst)) worst = Number.isNaN(e) ? Infinity : e;
  }
  return worst;
}
