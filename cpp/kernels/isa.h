// Which instruction set a kernel is written for. Every op has a plain scalar kernel (the executable
// spec and the test oracle); the hot ones also have a wasm SIMD128 twin, compiled only when the
// compiler targets it (__wasm_simd128__). Asking for kSimd128 where it is not compiled gives the
// scalar kernel, and the kernel's name says which one was chosen.
#pragma once

namespace laya::kernels {

enum class Isa { kScalar, kSimd128 };

const char* isa_name(Isa isa);  // "scalar", "simd128"

// Whether this build has the SIMD128 kernels.
constexpr bool simd128_compiled() {
#ifdef __wasm_simd128__
  return true;
#else
  return false;
#endif
}

// The fastest instruction set this build has.
constexpr Isa best_isa() { return simd128_compiled() ? Isa::kSimd128 : Isa::kScalar; }

// A kernel picked once at lowering: the function and its name, `<op>_<dtype>[_<tile>]_<isa>`.
template <class Fn>
struct Kernel {
  Fn fn = nullptr;
  const char* name = "";
};

}  // namespace laya::kernels
