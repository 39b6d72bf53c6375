// The wasm SIMD128 intrinsics (wasm_simd128.h's wasm_* functions and v128_t) for the SIMD kernels:
// Emscripten's header when compiling to wasm, natively SIMDe's implementation of the same intrinsics
// on SSE / NEON (Debian's libsimde-dev, found by CMake: LAYA_SIMDE). The native build exists so the
// kernels run under ASan / UBSan and in the native tests; SIMDe follows the wasm semantics lane for
// lane (pmin / pmax included), so results match the wasm module's bit for bit. Use under LAYA_SIMD128.
#pragma once

#include "kernels/isa.h"

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#elif defined(LAYA_SIMDE)
// Native aliases: the kernels spell wasm_f32x4_add, not simde_wasm_f32x4_add, in both builds.
#define SIMDE_ENABLE_NATIVE_ALIASES
#include <simde/wasm/simd128.h>
#endif
