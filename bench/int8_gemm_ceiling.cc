// Integer GEMM ceiling of this machine for wasm SIMD128, beside bench/gemm_ceiling.cc's f32 one: an
// ideal 4x8 register tile of the integer GEMM (kernels/int8_gemm.h) run in a tight loop on
// L1-resident panels: per pair of inputs 2 weight vectors (int16, 4 rows x 2 inputs each), 4
// activation pairs splatted, 8 i32x4.dot_i16x8_s and 8 i32x4.add into 8 int32x4 accumulators;
// no group flush. The GEMM's GOP/s over this is its share of what the ISA and this core allow.
// Built with em++ as the f32 ceiling is (scripts/bench-gemm-ceiling.sh):
//   em++ -O3 -msimd128 -std=c++20 -sEXIT_RUNTIME=1 bench/int8_gemm_ceiling.cc -o int8-gemm-ceiling.cjs
//   node --no-experimental-fetch int8-gemm-ceiling.cjs
// and with the relaxed-SIMD tile too (placeholder opcode rewritten, see tile_4x8_relaxed):
//   em++ -O3 -msimd128 -mrelaxed-simd -DLAYA_RELAXED_SIMD -std=c++20 -sEXIT_RUNTIME=1 bench/int8_gemm_ceiling.cc \
//     -o int8-gemm-ceiling-relaxed.cjs
//   python3 -c "import sys; p = sys.argv[1]; b = open(p, 'rb').read(); old = bytes([0xfd, 0xb0, 1]); \
//     assert b.count(old) == int(sys.argv[2]); open(p, 'wb').write(b.replace(old, bytes([0xfd, 0x93, 2])))" \
//     int8-gemm-ceiling-relaxed.wasm "$(wasm-dis int8-gemm-ceiling-relaxed.wasm | grep -c relaxed_fms)"
//   (every f32x4.relaxed_fms, 0xfd 0xb0 0x01, to the standard relaxed dot-add's 0xfd 0x93 0x02, as
//   many as wasm-dis counts; binaryen 108 knows the op but writes the pre-standard 0xfd 0x94 0x02,
//   which V8 rejects)
//   node --experimental-wasm-relaxed-simd --no-experimental-fetch int8-gemm-ceiling-relaxed.cjs
// Timed in process CPU seconds (cpu_timing.h).
#include <wasm_simd128.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#include "cpu_timing.h"

namespace {

constexpr int kPairs = 128;  // 256 inputs: A 4x256 int16 (2 KB) + B 256x8 int16 (4 KB): L1-resident

// One 4x8 tile over `pairs` input pairs, added into c (row-major 4x8). A is [pair][row][2], B is
// [pair][8 rows][2] int16. A runtime trip count and noinline, as in gemm_ceiling.cc.
__attribute__((noinline)) void tile_4x8(const int16_t* a, const int16_t* b, int32_t* c, int pairs) {
  v128_t c00 = wasm_v128_load(c + 0), c01 = wasm_v128_load(c + 4);
  v128_t c10 = wasm_v128_load(c + 8), c11 = wasm_v128_load(c + 12);
  v128_t c20 = wasm_v128_load(c + 16), c21 = wasm_v128_load(c + 20);
  v128_t c30 = wasm_v128_load(c + 24), c31 = wasm_v128_load(c + 28);
#pragma clang loop unroll(disable)
  for (int p = 0; p < pairs; ++p) {
    const v128_t b0 = wasm_v128_load(b + 16 * p), b1 = wasm_v128_load(b + 16 * p + 8);
    const v128_t a0 = wasm_v128_load32_splat(a + 8 * p + 0), a1 = wasm_v128_load32_splat(a + 8 * p + 2);
    const v128_t a2 = wasm_v128_load32_splat(a + 8 * p + 4), a3 = wasm_v128_load32_splat(a + 8 * p + 6);
    c00 = wasm_i32x4_add(c00, wasm_i32x4_dot_i16x8(a0, b0)); c01 = wasm_i32x4_add(c01, wasm_i32x4_dot_i16x8(a0, b1));
    c10 = wasm_i32x4_add(c10, wasm_i32x4_dot_i16x8(a1, b0)); c11 = wasm_i32x4_add(c11, wasm_i32x4_dot_i16x8(a1, b1));
    c20 = wasm_i32x4_add(c20, wasm_i32x4_dot_i16x8(a2, b0)); c21 = wasm_i32x4_add(c21, wasm_i32x4_dot_i16x8(a2, b1));
    c30 = wasm_i32x4_add(c30, wasm_i32x4_dot_i16x8(a3, b0)); c31 = wasm_i32x4_add(c31, wasm_i32x4_dot_i16x8(a3, b1));
  }
  wasm_v128_store(c + 0, c00); wasm_v128_store(c + 4, c01);
  wasm_v128_store(c + 8, c10); wasm_v128_store(c + 12, c11);
  wasm_v128_store(c + 16, c20); wasm_v128_store(c + 20, c21);
  wasm_v128_store(c + 24, c30); wasm_v128_store(c + 28, c31);
}

#ifdef LAYA_RELAXED_SIMD
// The relaxed-SIMD counterpart: i32x4.relaxed_dot_i8x16_i7x16_add_s, 4 inputs x 4 weight rows per
// instruction, its add included. Clang 14 has no builtin for it: the tile is written with
// f32x4.relaxed_fms (same operands: three v128, one result, 3 bytes) as a placeholder, and the linked
// .wasm's opcodes are rewritten (see the build lines at the top). B is [quad of
// inputs][8 rows][4] int8 (the signed first operand), A [quad][row][4] in [0, 127] (the second,
// where every CPU gives the same sums).
typedef float RelaxedPlaceholder __attribute__((vector_size(16)));
inline v128_t dot_add(v128_t weights, v128_t activations, v128_t acc) {
  return (v128_t)__builtin_wasm_fms_f32x4((RelaxedPlaceholder)weights, (RelaxedPlaceholder)activations,
                                          (RelaxedPlaceholder)acc);
}

__attribute__((noinline)) void tile_4x8_relaxed(const int8_t* a, const int8_t* b, int32_t* c, int quads) {
  v128_t c00 = wasm_v128_load(c + 0), c01 = wasm_v128_load(c + 4);
  v128_t c10 = wasm_v128_load(c + 8), c11 = wasm_v128_load(c + 12);
  v128_t c20 = wasm_v128_load(c + 16), c21 = wasm_v128_load(c + 20);
  v128_t c30 = wasm_v128_load(c + 24), c31 = wasm_v128_load(c + 28);
#pragma clang loop unroll(disable)
  for (int q = 0; q < quads; ++q) {
    const v128_t b0 = wasm_v128_load(b + 32 * q), b1 = wasm_v128_load(b + 32 * q + 16);
    const v128_t a0 = wasm_v128_load32_splat(a + 16 * q + 0), a1 = wasm_v128_load32_splat(a + 16 * q + 4);
    const v128_t a2 = wasm_v128_load32_splat(a + 16 * q + 8), a3 = wasm_v128_load32_splat(a + 16 * q + 12);
    c00 = dot_add(b0, a0, c00); c01 = dot_add(b1, a0, c01);
    c10 = dot_add(b0, a1, c10); c11 = dot_add(b1, a1, c11);
    c20 = dot_add(b0, a2, c20); c21 = dot_add(b1, a2, c21);
    c30 = dot_add(b0, a3, c30); c31 = dot_add(b1, a3, c31);
  }
  wasm_v128_store(c + 0, c00); wasm_v128_store(c + 4, c01);
  wasm_v128_store(c + 8, c10); wasm_v128_store(c + 12, c11);
  wasm_v128_store(c + 16, c20); wasm_v128_store(c + 20, c21);
  wasm_v128_store(c + 24, c30); wasm_v128_store(c + 28, c31);
}
#endif

}  // namespace

volatile int g_pairs = kPairs;  // read at run time (see tile_4x8)

// GOP/s (2 per multiply-add) of `tile` run kTiles times over `macs_per_tile`, best of 5.
template <class Tile>
double best_gops(const char* name, Tile tile, double macs_per_tile) {
  constexpr long kTiles = 400000;
  double best = 0;
  for (int rep = 0; rep < 5; ++rep) {
    const double c0 = process_cpu_seconds();
    for (long t = 0; t < kTiles; ++t) tile();
    const double gops = 2.0 * macs_per_tile * kTiles / (process_cpu_seconds() - c0) / 1e9;
    std::printf("%s rep %d: %.2f GOP/s CPU time\n", name, rep, gops);
    if (gops > best) best = gops;
  }
  return best;
}

int main() {
  const int pairs = g_pairs;
  std::vector<int16_t> a(8 * kPairs), b(16 * kPairs);
  std::vector<int32_t> c(32, 0);
  for (int i = 0; i < 8 * kPairs; ++i) a[i] = static_cast<int16_t>(i % 17 - 8);
  for (int i = 0; i < 16 * kPairs; ++i) b[i] = static_cast<int16_t>(i % 13 - 6);
  const double best =
      best_gops("dot_i16x8", [&] { tile_4x8(a.data(), b.data(), c.data(), pairs); }, 4.0 * 8 * 2 * kPairs);
  long long checksum = 0;  // every accumulator feeds the output: none is optimized away
  for (int32_t v : c) checksum += v;
  std::printf("checksum %lld\n", checksum);
  std::printf("int8_ceiling_gops=%.2f (dot_i16x8 4x8 tile, best of 5, process CPU time, one thread)\n", best);
#ifdef LAYA_RELAXED_SIMD
  // The same 256 inputs: 64 quads.
  const int quads = pairs / 2;
  std::vector<int8_t> a8(16 * (kPairs / 2)), b8(32 * (kPairs / 2));
  for (size_t i = 0; i < a8.size(); ++i) a8[i] = static_cast<int8_t>(i % 128);
  for (size_t i = 0; i < b8.size(); ++i) b8[i] = static_cast<int8_t>(i % 255 - 127);
  // The sums checked against plain integer arithmetic, so a wrong rewrite cannot pass unnoticed:
  // on the first call (V8's baseline tier, Liftoff) and after the timed calls (optimized code).
  std::vector<int32_t> want(32, 0);
  for (int q = 0; q < quads; ++q) {
    for (int r = 0; r < 4; ++r) {
      for (int col = 0; col < 8; ++col) {
        for (int e = 0; e < 4; ++e) want[r * 8 + col] += a8[16 * q + 4 * r + e] * b8[32 * q + 4 * col + e];
      }
    }
  }
  const auto check = [&](const char* when) {
    std::vector<int32_t> c8(32, 0);
    tile_4x8_relaxed(a8.data(), b8.data(), c8.data(), quads);
    std::printf("relaxed dot sums %s: %s\n", when, c8 == want ? "exact" : "WRONG");
  };
  check("first call");
  std::vector<int32_t> c8(32, 0);
  const double relaxed =
      best_gops("relaxed_dot", [&] { tile_4x8_relaxed(a8.data(), b8.data(), c8.data(), quads); }, 4.0 * 8 * 4 * quads);
  check("after the timed calls");
  std::printf("int8_relaxed_ceiling_gops=%.2f (relaxed_dot_i8x16_i7x16_add_s 4x8 tile; relaxed / dot_i16x8 %.2f)\n",
              relaxed, relaxed / best);
#endif
  return 0;
}
