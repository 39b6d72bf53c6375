// GEMM ceiling of this machine for wasm SIMD128: an ideal 4x8 f32 register tile (8
// accumulators, 2 B vectors and 4 A splats per k step, mul + add as wasm has no baseline FMA) run
// in a tight loop on L1-resident panels, so the speed benchmark can report its GF/s as a fraction
// of what the ISA and this core allow. Built by scripts/bench-gemm-ceiling.sh, not the main CMake,
// twice: plain SIMD (mul + add) and with -mrelaxed-simd -DLAYA_RELAXED_SIMD, where the tile's
// multiply-adds are f32x4.relaxed_madd (the relaxed-SIMD module's kernels/madd.h).
// Timed in process CPU seconds (Node's process.cpuUsage): on a shared, loaded machine wall time
// counts the other processes' turns; CPU time counts only ours.
#include <wasm_simd128.h>

#include <chrono>
#include <cstdio>
#include <vector>

#include "cpu_timing.h"

namespace {

#ifdef LAYA_RELAXED_SIMD
constexpr const char* kVariant = "relaxed";
// Clang 14's prototype builtin; the script rewrites its opcode (scripts/relaxed-simd-rewrite.mjs).
inline v128_t madd(v128_t a, v128_t b, v128_t c) { return __builtin_wasm_fma_f32x4(a, b, c); }
#else
constexpr const char* kVariant = "plain";
inline v128_t madd(v128_t a, v128_t b, v128_t c) { return wasm_f32x4_add(wasm_f32x4_mul(a, b), c); }
#endif

constexpr int kDepth = 256;  // A panel 4x256 (4 KB) + B panel 256x8 (8 KB): L1-resident

// One 4x8 tile over kDepth, added into c (row-major 4x8).
// depth is a runtime value and the loop is not unrolled: with a constant trip count clang unrolls
// it, hoists many panel vectors and V8 spills accumulators (the slower code gemm_simd128.cc avoids).
// noinline: called once per tile, V8 tiers it up to optimized code (a loop inlined into main would
// stay in the baseline compiler, as V8 has no on-stack replacement for wasm).
__attribute__((noinline)) void tile_4x8(const float* a, const float* b, float* c, int depth) {
  v128_t c00 = wasm_v128_load(c + 0), c01 = wasm_v128_load(c + 4);
  v128_t c10 = wasm_v128_load(c + 8), c11 = wasm_v128_load(c + 12);
  v128_t c20 = wasm_v128_load(c + 16), c21 = wasm_v128_load(c + 20);
  v128_t c30 = wasm_v128_load(c + 24), c31 = wasm_v128_load(c + 28);
#pragma clang loop unroll(disable)
  for (int k = 0; k < depth; ++k) {
    const v128_t b0 = wasm_v128_load(b + 8 * k), b1 = wasm_v128_load(b + 8 * k + 4);
    const v128_t a0 = wasm_v128_load32_splat(a + 4 * k + 0), a1 = wasm_v128_load32_splat(a + 4 * k + 1);
    const v128_t a2 = wasm_v128_load32_splat(a + 4 * k + 2), a3 = wasm_v128_load32_splat(a + 4 * k + 3);
    c00 = madd(a0, b0, c00); c01 = madd(a0, b1, c01);
    c10 = madd(a1, b0, c10); c11 = madd(a1, b1, c11);
    c20 = madd(a2, b0, c20); c21 = madd(a2, b1, c21);
    c30 = madd(a3, b0, c30); c31 = madd(a3, b1, c31);
  }
  wasm_v128_store(c + 0, c00); wasm_v128_store(c + 4, c01);
  wasm_v128_store(c + 8, c10); wasm_v128_store(c + 12, c11);
  wasm_v128_store(c + 16, c20); wasm_v128_store(c + 20, c21);
  wasm_v128_store(c + 24, c30); wasm_v128_store(c + 28, c31);
}

}  // namespace

volatile int g_depth = kDepth;  // read at run time (see tile_4x8)

int main() {
  const int depth = g_depth;
  std::vector<float> a(4 * kDepth), b(8 * kDepth), c(32, 0.0f);
  for (int i = 0; i < 4 * kDepth; ++i) a[i] = 1e-3f * static_cast<float>(i % 17);
  for (int i = 0; i < 8 * kDepth; ++i) b[i] = 1e-3f * static_cast<float>(i % 13);
  constexpr long kTiles = 200000;  // 200000 * 256 * 64 flops = 3.3 GFLOP per rep
  const double flops = static_cast<double>(kTiles) * kDepth * 64;
  double best = 0, best_wall = 0;
  for (int rep = 0; rep < 5; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    const double c0 = process_cpu_seconds();
    for (long t = 0; t < kTiles; ++t) tile_4x8(a.data(), b.data(), c.data(), depth);
    const double cpu = process_cpu_seconds() - c0;
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("rep %d: %.2f GF/s CPU time, %.2f GF/s wall\n", rep, flops / cpu / 1e9, flops / wall / 1e9);
    if (flops / cpu / 1e9 > best) best = flops / cpu / 1e9;
    if (flops / wall / 1e9 > best_wall) best_wall = flops / wall / 1e9;
  }
  // Every output is printed through the checksum, so no accumulator can be optimized away.
  double checksum = 0;
  for (float v : c) checksum += v;
  std::printf("checksum %g\n", checksum);
  std::printf("ceiling_gflops=%.2f (%s SIMD, best of 5, process CPU time, one thread; wall best %.2f)\n", best, kVariant,
              best_wall);
  return 0;
}
