// Which instruction set a kernel is written for. Every op has a plain scalar kernel (the executable
// spec and the test oracle); the hot ones also have a wasm SIMD128 twin, compiled where LAYA_SIMD128
// is defined (below). Asking for kSimd128 where it is not compiled gives the scalar kernels
// (kernels/kernel_table.h), and each kernel's name says which one was chosen.
#pragma once

// The one switch for the SIMD128 kernels: on when compiling to wasm SIMD, and natively when CMake
// found SIMDe (LAYA_SIMDE, see kernels/simd128.h), so the native, sanitizer and fuzz builds run the
// same kernel sources the wasm module ships.
#if defined(__wasm_simd128__) || defined(LAYA_SIMDE)
#define LAYA_SIMD128 1
#endif

namespace laya::kernels {

enum class Isa { kScalar, kSimd128 };

const char* isa_name(Isa isa);  // "scalar", "simd128"

// Whether this build has the SIMD128 kernels.
constexpr bool simd128_compiled() {
#ifdef LAYA_SIMD128
  return true;
#else
  return false;
#endif
}

// The fastest instruction set this build has.
constexpr Isa best_isa() { return simd128_compiled() ? Isa::kSimd128 : Isa::kScalar; }

// A kernel picked once at lowering: the function and its name, which is the function's own
// (LAYA_KERNEL): `<op>_<dtype>[_<tile>]_<isa>`, without the dtype for a kernel that reads every one.
template <class Fn>
struct Kernel {
  Fn fn = nullptr;
  const char* name = "";
};

}  // namespace laya::kernels

// The Kernel of function `fn`, named by the preprocessor after it: a step's kernel name is always a
// function one can look up, and renaming the function renames the label.
#define LAYA_KERNEL(fn) ::laya::kernels::Kernel<decltype(&fn)>{&fn, #fn}
