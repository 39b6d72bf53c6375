// GEMM microbenchmark: GF/s of the SIMD128 GEMM against the scalar GEMM at the encoder's shapes
// (M = 128 token rows, or argv[2], K = 1024, N = 1024..5248), F16, q8 (I8) and F32 weights arranged in panels
// as the loader leaves them, one thread. Not a test.
// Build in the wasm tree (target gemm_bench) and run: node --no-experimental-fetch gemm_bench.js
// Times are process CPU seconds. Prints the compiler, medians over repetitions and the SIMD / scalar ratio measured in the same
// process (timings on shared machines are noisy: compare ratios, not absolute numbers).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "graph/q8.h"
#include "graph/weights.h"
#include "kernels/gemm.h"
#include "kernels/kernel_table.h"
#include "kernels/panels.h"

#include "cpu_timing.h"

namespace {

using laya::DType;
using namespace laya::kernels;

struct Weights {
  std::vector<std::byte> bytes;
  MatrixRef ref;
};

// q8 (docs/q8-format.md): the same kind of values quantized with the project's rounding, values
// and scales arranged in panels as the loader leaves them.
Weights make_q8_weights(int64_t n, int64_t k, std::mt19937& rng) {
  std::normal_distribution<float> dist(0.0f, 0.03f);
  std::vector<float> v(static_cast<size_t>(n * k)), row(static_cast<size_t>(k));
  for (float& x : v) x = dist(rng);
  const int64_t groups = laya::q8_groups(k);
  Weights w;
  w.bytes.resize(static_cast<size_t>(n * k + n * groups * 4));
  std::byte* scales = w.bytes.data() + n * k;
  std::vector<float> s(static_cast<size_t>(n * groups));
  laya::quantize_rows_q8(DType::kF32, reinterpret_cast<const std::byte*>(v.data()), n, k,
                         reinterpret_cast<int8_t*>(w.bytes.data()), s.data(), row.data());
  std::memcpy(scales, s.data(), s.size() * sizeof(float));
  std::vector<std::byte> scratch(panel_scratch_bytes(k, 4));
  arrange_panels_in_place(w.bytes.data(), n, k, 1, scratch.data());
  arrange_panels_in_place(scales, n, groups, 4, scratch.data());
  w.ref = {w.bytes.data(), DType::kI8, n, k, laya::WeightLayout::kPanels8, scales};
  return w;
}

Weights make_weights(DType dtype, int64_t n, int64_t k, std::mt19937& rng) {
  if (dtype == DType::kI8) return make_q8_weights(n, k, rng);
  std::normal_distribution<float> dist(0.0f, 0.03f);
  Weights w;
  w.bytes.resize(static_cast<size_t>(n * k) * laya::dtype_size(dtype));
  for (int64_t i = 0; i < n * k; ++i) {
    const float v = dist(rng);
    if (dtype == DType::kF32) {
      std::memcpy(w.bytes.data() + 4 * i, &v, 4);
    } else {  // F16 by truncation: fine for timing
      uint32_t f;
      std::memcpy(&f, &v, 4);
      const int e = static_cast<int>((f >> 23) & 0xFF) - 112;
      const uint16_t h = static_cast<uint16_t>(((f >> 16) & 0x8000) | (e > 0 ? (e << 10) | ((f >> 13) & 0x3FF) : 0));
      std::memcpy(w.bytes.data() + 2 * i, &h, 2);
    }
  }
  w.ref = {w.bytes.data(), dtype, n, k};
  if (n % laya::kPanelRows == 0) {
    // As the loader leaves GEMM weights: in 8-row panels (engine/gemm_panels.h).
    std::vector<std::byte> scratch(panel_scratch_bytes(k, laya::dtype_size(dtype)));
    arrange_panels_in_place(w.bytes.data(), n, k, laya::dtype_size(dtype), scratch.data());
    w.ref.layout = laya::WeightLayout::kPanels8;
  }
  return w;
}

}  // namespace

int main(int argc, char** argv) {
  const bool with_scalar = !(argc > 1 && std::strcmp(argv[1], "--simd-only") == 0);
#ifdef __VERSION__
  std::printf("compiler: %s\n", __VERSION__);
#endif
  std::printf("simd128 compiled: %s\n", simd128_compiled() ? "yes" : "no");
  std::printf("%-6s %5s %5s %5s  %10s %10s %7s\n", "dtype", "M", "K", "N", "simd GF/s", "scalar", "ratio");
  std::mt19937 rng(1);
  const int64_t m = argc > 2 ? std::atoi(argv[2]) : 128, k = 1024;
  std::vector<float> a(static_cast<size_t>(m * k));
  std::normal_distribution<float> dist(0.0f, 1.0f);
  for (float& x : a) x = dist(rng);
  for (DType dtype : {DType::kF16, DType::kI8, DType::kF32}) {
    for (int64_t n : {1024, 3072, 4096, 5248}) {
      const Weights w = make_weights(dtype, n, k, rng);
      std::vector<float> out(static_cast<size_t>(m * n));
      const GemmArgs args{a.data(), m, w.ref, nullptr, laya::Epilogue::kNone, out.data()};
      const double flops = 2.0 * m * n * k;
      const KernelTable &simd_table = kernel_table(best_isa()), &scalar_table = kernel_table(Isa::kScalar);
      std::vector<float> scratch(std::max(simd_table.gemm_scratch_floats(m, k), scalar_table.gemm_scratch_floats(m, k)));
      const GemmFn simd_fn = simd_table.gemm.of(dtype).fn, scalar_fn = scalar_table.gemm.of(dtype).fn;
      const double simd = flops / median_cpu_seconds([&] { simd_fn(args, 0, n, scratch.data()); }, 9) / 1e9;
      double scalar = NAN;
      if (with_scalar && n == 1024) {
        scalar = flops / median_cpu_seconds([&] { scalar_fn(args, 0, n, scratch.data()); }, 3) / 1e9;
      }
      std::printf("%-6s %5lld %5lld %5lld  %10.1f %10.2f %7.1f\n", laya::dtype_name(dtype), static_cast<long long>(m),
                  static_cast<long long>(k), static_cast<long long>(n), simd, scalar, simd / scalar);
    }
  }
  return 0;
}
