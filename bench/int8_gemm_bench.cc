// Integer GEMM microbenchmark: the int8 kernel (kernels/int8_gemm.h: activations quantized to int16
// per row, then i32x4.dot_i16x8_s on q8 weights) against today's f32-compute kernels on the same
// shapes, q8 weights (gemm_q8_4x8_simd128) and F16 weights (gemm_f16_4x8_simd128), all with weights
// in 8-row panels as the loader leaves them, one thread. Laya's shapes: m = 128 and 512 token rows;
// k x n = 1024 x 1024 (attention projections), 1024 x 5248 (the GeGLU input, 2 · 2624) and
// 2624 x 1024 (the MLP output). Not a test.
// Build in the wasm tree (target int8_gemm_bench) and run: node --no-experimental-fetch int8_gemm_bench.js [m ...]
// Times are process CPU seconds, medians of repetitions taken in turn (cpu_timing.h); "int8"
// includes quantizing the activations (quantize_activations_i16_simd128), "kernel" is the GEMM alone. Ratios are measured in one process: compare ratios,
// not absolute numbers, on a shared machine.
#include <algorithm>
#include <array>
#include <cstdio>
#include <functional>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "graph/q8.h"
#include "graph/weights.h"
#include "kernels/gemm.h"
#include "kernels/int8_gemm.h"
#include "kernels/panels.h"

#include "cpu_timing.h"

#ifdef LAYA_SIMD128

namespace {

using laya::DType;
using namespace laya::kernels;

struct Weights {
  std::vector<std::byte> bytes;
  MatrixRef ref;
};

std::vector<float> normal_floats(std::mt19937& rng, size_t count, float sigma) {
  std::normal_distribution<float> dist(0.0f, sigma);
  std::vector<float> v(count);
  for (float& x : v) x = dist(rng);
  return v;
}

// q8 with the project's rounding, values and scales in panels.
Weights q8_weights(const std::vector<float>& v, int64_t n, int64_t k) {
  const int64_t groups = laya::q8_groups(k);
  Weights w;
  w.bytes.resize(static_cast<size_t>(n * k + n * groups * 4));
  std::byte* scales = w.bytes.data() + n * k;
  std::vector<float> s(static_cast<size_t>(n * groups)), row(static_cast<size_t>(k));
  laya::quantize_rows_q8(DType::kF32, reinterpret_cast<const std::byte*>(v.data()), n, k,
                         reinterpret_cast<int8_t*>(w.bytes.data()), s.data(), row.data());
  std::memcpy(scales, s.data(), s.size() * sizeof(float));
  std::vector<std::byte> scratch(panel_scratch_bytes(k, 4));
  arrange_panels_in_place(w.bytes.data(), n, k, 1, scratch.data());
  arrange_panels_in_place(scales, n, groups, 4, scratch.data());
  w.ref = {w.bytes.data(), DType::kI8, n, k, laya::WeightLayout::kPanels8, scales};
  return w;
}

// F16 by truncation (fine for timing), in panels.
Weights f16_weights(const std::vector<float>& v, int64_t n, int64_t k) {
  Weights w;
  w.bytes.resize(static_cast<size_t>(n * k) * 2);
  for (size_t i = 0; i < v.size(); ++i) {
    uint32_t f;
    std::memcpy(&f, &v[i], 4);
    const int e = static_cast<int>((f >> 23) & 0xFF) - 112;
    const uint16_t h = static_cast<uint16_t>(((f >> 16) & 0x8000) | (e > 0 ? (e << 10) | ((f >> 13) & 0x3FF) : 0));
    std::memcpy(w.bytes.data() + 2 * i, &h, 2);
  }
  std::vector<std::byte> scratch(panel_scratch_bytes(k, 2));
  arrange_panels_in_place(w.bytes.data(), n, k, 2, scratch.data());
  w.ref = {w.bytes.data(), DType::kF16, n, k, laya::WeightLayout::kPanels8};
  return w;
}

// The median CPU seconds of each of `runs`, timed in turn `reps` times after 0.2 s of warm-up each
// (cpu_timing.h: V8 swaps in optimized code only for later calls).
template <size_t N>
std::array<double, N> round_robin_median_cpu_seconds(const std::function<void()> (&runs)[N], int reps) {
  for (const auto& run : runs) {
    for (const double start = process_cpu_seconds(); process_cpu_seconds() - start < 0.2;) run();
  }
  std::array<std::vector<double>, N> times;
  for (int r = 0; r < reps; ++r) {
    for (size_t i = 0; i < N; ++i) {
      const double start = process_cpu_seconds();
      runs[i]();
      times[i].push_back(process_cpu_seconds() - start);
    }
  }
  std::array<double, N> medians;
  for (size_t i = 0; i < N; ++i) {
    std::sort(times[i].begin(), times[i].end());
    medians[i] = times[i][times[i].size() / 2];
  }
  return medians;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int64_t> ms;
  for (int i = 1; i < argc; ++i) ms.push_back(std::atoi(argv[i]));
  if (ms.empty()) ms = {128, 512};
#ifdef __VERSION__
  std::printf("compiler: %s\n", __VERSION__);
#endif
  std::printf("%5s %5s %5s  %8s %8s %8s %8s  %12s %12s\n", "M", "K", "N", "q8 GF/s", "f16", "int8", "kernel",
              "int8 / q8", "int8 / f16");
  std::mt19937 rng(35);
  const int64_t shapes[][2] = {{1024, 1024}, {1024, 5248}, {2624, 1024}};
  for (const int64_t m : ms) {
    for (const auto& shape : shapes) {
      const int64_t k = shape[0], n = shape[1];
      const std::vector<float> a = normal_floats(rng, static_cast<size_t>(m * k), 1.0f);
      const std::vector<float> values = normal_floats(rng, static_cast<size_t>(n * k), 0.03f);
      const Weights q8 = q8_weights(values, n, k), f16 = f16_weights(values, n, k);
      std::vector<float> out(static_cast<size_t>(m * n));
      std::vector<float> scratch(std::max(gemm_scratch_floats_simd128(m, k), int8_gemm_scratch_floats_simd128(m)));
      std::vector<int16_t> qa(quantized_activations_size(m, k));
      std::vector<float> a_scales(static_cast<size_t>(m));
      const GemmArgs q8_args{a.data(), m, q8.ref, nullptr, laya::Epilogue::kNone, out.data()};
      const GemmArgs f16_args{a.data(), m, f16.ref, nullptr, laya::Epilogue::kNone, out.data()};
      const Int8GemmArgs int8_args{qa.data(), a_scales.data(), m, q8.ref, nullptr, laya::Epilogue::kNone, out.data()};
      // Round robin, so that the four see the same conditions on a shared machine.
      const std::function<void()> runs[] = {
          [&] { gemm_q8_4x8_simd128(q8_args, 0, n, scratch.data()); },
          [&] { gemm_f16_4x8_simd128(f16_args, 0, n, scratch.data()); },
          [&] {
            quantize_activations_i16_simd128(a.data(), m, k, qa.data(), a_scales.data());
            int8_gemm_4x8_simd128(int8_args, 0, n, scratch.data());
          },
          [&] { int8_gemm_4x8_simd128(int8_args, 0, n, scratch.data()); },
      };
      const auto seconds = round_robin_median_cpu_seconds(runs, 7);
      const double t_q8 = seconds[0], t_f16 = seconds[1], t_int8 = seconds[2], t_kernel = seconds[3];
      const double gflop = 2.0 * static_cast<double>(m * n * k) / 1e9;
      std::printf("%5lld %5lld %5lld  %8.1f %8.1f %8.1f %8.1f  %12.2f %12.2f\n", static_cast<long long>(m),
                  static_cast<long long>(k), static_cast<long long>(n), gflop / t_q8, gflop / t_f16, gflop / t_int8,
                  gflop / t_kernel, t_q8 / t_int8, t_f16 / t_int8);
      std::fflush(stdout);
    }
  }
  return 0;
}

#else
int main() {
  std::printf("int8_gemm_bench needs the SIMD128 kernels (wasm SIMD, or SIMDe natively)\n");
  return 1;
}
#endif
