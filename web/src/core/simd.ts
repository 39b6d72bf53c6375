// Which build of the module a load runs: the relaxed-SIMD one (laya-core-relaxed.js,
// laya-core-mt-relaxed.js: the GEMM and attention multiply-adds are f32x4.relaxed_madd, fused where
// the CPU has FMA) where the engine accepts relaxed SIMD, the plain-SIMD one (laya-core.js,
// laya-core-mt.js) elsewhere. A module holding one relaxed opcode fails to compile where relaxed
// SIMD is absent (Safari; Node 20 without --experimental-wasm-relaxed-simd), so the choice is made
// up front with WebAssembly.validate on a probe that uses exactly that instruction.

/** The option: 'auto' (default) runs relaxed SIMD where the engine has it. */
export type SimdOption = 'auto' | 'relaxed' | 'plain';
/** The build a model runs. */
export type SimdVariant = 'relaxed' | 'plain';

const v128Zero = [0xfd, 0x0c, ...new Array<number>(16).fill(0)]; // v128.const 0

/**
 * A minimal module whose one function, () -> v128, pushes three zero vectors and runs `instruction`
 * (a SIMD op taking three v128 operands) on them.
 */
export function moduleRunningTernarySimdOp(instruction: readonly number[]): Uint8Array<ArrayBuffer> {
  const body = [0x00, ...v128Zero, ...v128Zero, ...v128Zero, ...instruction, 0x0b]; // no locals ... end
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // magic, version 1
    0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7b, // type section: () -> v128
    0x03, 0x02, 0x01, 0x00, // function section: one function of type 0
    0x0a, body.length + 2, 0x01, body.length, ...body, // code section
  ]);
}

/** f32x4.relaxed_madd (0xfd 0x85 0x02), the one relaxed instruction the kernels use. */
export const kRelaxedMadd = [0xfd, 0x85, 0x02] as const;
/** The probe: a module running f32x4.relaxed_madd. */
export const kRelaxedSimdProbe: Uint8Array<ArrayBuffer> = moduleRunningTernarySimdOp(kRelaxedMadd);

export type ValidateFunction = (bytes: Uint8Array) => boolean;

/** Whether this engine compiles relaxed SIMD (the probe validates). */
export function relaxedSimdSupported(validate?: ValidateFunction): boolean {
  try {
    const check = validate ?? ((bytes: Uint8Array<ArrayBuffer>) => typeof WebAssembly === 'object' && WebAssembly.validate(bytes));
    return check(kRelaxedSimdProbe);
  } catch {
    return false;
  }
}

/** The reason relaxed SIMD cannot run here, in words for onWarning. */
export function relaxedUnavailableReason(runtime: 'node' | 'browser'): string {
  return runtime === 'node'
    ? 'this Node does not compile relaxed SIMD (Node 20 needs --experimental-wasm-relaxed-simd; Node 22+ has it)'
    : 'this browser does not compile relaxed SIMD (Chrome 114+, Firefox 146+ do; Safari does not yet)';
}

/**
 * The build to load for the option: `simd`, and `warning` when 'relaxed' was asked for explicitly
 * but cannot run (auto falls back silently).
 */
export function chooseSimd(option: SimdOption, supported: boolean, why: string): { simd: SimdVariant; warning?: string } {
  if (option === 'plain') return { simd: 'plain' };
  if (supported) return { simd: 'relaxed' };
  if (option === 'relaxed') return { simd: 'plain', warning: `laya-wasm: running the plain-SIMD module, not the relaxed-SIMD one asked for: ${why}` };
  return { simd: 'plain' };
}

/** laya-core.js -> laya-core-relaxed.js (any folder, URL or path; a query or hash is kept). */
export function relaxedSibling(moduleUrl: string): string {
  return moduleUrl.replace(/(\.js)?([?#].*)?$/, (_m, _js: string | undefined, rest: string | undefined) => `-relaxed.js${rest ?? ''}`);
}
