/// <reference types="@webgpu/types" />
// WGSL readers of a weight in its stored dtype, bound as array<u32>: F32 raw, F16 and BF16 as packed
// pairs, I8 as packed bytes times its group's F32 scale (docs/q8-format.md). Every reader converts
// exactly, as graph/half.h does: F16 is decoded with integer operations rather than unpack2x16float,
// so subnormal halves stay exact whatever the driver's denormal mode.
import type { GpuTensor } from '../gpu-weights.js';
import type { GpuDtype } from '../program.js';

/**
 * `fn <name>_at(r: u32, c: u32, cols: u32) -> f32`, element (r, c) of a [rows, cols] weight at
 * binding `binding` (its q8 scales, for I8, at `binding + 1`).
 */
export function weightReader(name: string, dtype: GpuDtype, binding: number): string {
  const decl = `@group(0) @binding(${binding}) var<storage, read> ${name}: array<u32>;`;
  switch (dtype) {
    case 'F32':
      return `${decl}
fn ${name}_at(r: u32, c: u32, cols: u32) -> f32 { return bitcast<f32>(${name}[r * cols + c]); }`;
    case 'BF16':
      return `${decl}
fn ${name}_at(r: u32, c: u32, cols: u32) -> f32 {
  let i = r * cols + c;
  let word = ${name}[i >> 1u];
  return bitcast<f32>(select(word << 16u, word & 0xffff0000u, (i & 1u) == 1u));
}`;
    case 'F16':
      return `${decl}
fn ${name}_at(r: u32, c: u32, cols: u32) -> f32 {
  let i = r * cols + c;
  return f16_bits_to_f32((${name}[i >> 1u] >> ((i & 1u) * 16u)) & 0xffffu);
}`;
    case 'I8':
      return `${decl}
@group(0) @binding(${binding + 1}) var<storage, read> ${name}_scales: array<u32>;
fn ${name}_at(r: u32, c: u32, cols: u32) -> f32 {
  let i = r * cols + c;
  let q = extractBits(bitcast<i32>(${name}[i >> 2u]), (i & 3u) * 8u, 8u);
  let scale = bitcast<f32>(${name}_scales[r * ((cols + 63u) / 64u) + c / 64u]);
  return f32(q) * scale;
}`;
  }
}

/** Bindings a weight of `dtype` takes: I8 has its scales beside it. */
export function weightBindings(dtype: GpuDtype): number {
  return dtype === 'I8' ? 2 : 1;
}

/** The buffers weightReader's bindings take, in order. */
export function weightBuffers(t: GpuTensor): GPUBuffer[] {
  return t.scales === null ? [t.buffer] : [t.buffer, t.scales];
}

/** The exact IEEE half to f32 conversion the F16 reader needs (include once per shader). */
export const kF16Decode = `
fn f16_bits_to_f32(h: u32) -> f32 {
  let sign = (h & 0x8000u) << 16u;
  let exponent = (h >> 10u) & 0x1fu;
  let mantissa = h & 0x3ffu;
  if (exponent == 0u) {
    // Zero or subnormal: mantissa · 2^-24, exact (a normal f32 result).
    let magnitude = f32(mantissa) * 5.9604644775390625e-8;
    return bitcast<f32>(bitcast<u32>(magnitude) | sign);
  }
  if (exponent == 31u) { return bitcast<f32>(sign | 0x7f800000u | (mantissa << 13u)); }
  return bitcast<f32>(sign | ((exponent + 112u) << 23u) | (mantissa << 13u));
}
`;
