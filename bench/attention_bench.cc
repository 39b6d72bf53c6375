// Attention microbenchmark: GF/s of the SIMD128 attention against the scalar one for one sequence
// of the English model's shape (16 heads of 64), at 64..512 tokens, with the local window (±64) and
// without (global layers), one thread. FLOPs count only visible (query, key) pairs: 4·64 per pair
// per head (q·k and p·v), as npm run bench counts them. Not a test.
// Build in the wasm tree (target attention_bench) and run: node --no-experimental-fetch attention_bench.js
// Times are process CPU seconds, medians of repetitions.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "kernels/attention.h"
#include "kernels/kernel_table.h"
#include "kernels/rope.h"

#include "cpu_timing.h"

namespace {

using namespace laya::kernels;

double visible_pairs(int64_t len, int64_t window) {
  double pairs = 0;
  for (int64_t i = 0; i < len; ++i) {
    pairs += window < 0 ? len : std::min(len - 1, i + window) - std::max<int64_t>(0, i - window) + 1;
  }
  return pairs;
}

}  // namespace

int main() {
  constexpr int64_t kHeads = 16;
  std::printf("simd128 compiled: %s\n", simd128_compiled() ? "yes" : "no");
  std::printf("%6s %7s  %10s %10s %7s\n", "tokens", "window", "simd GF/s", "scalar", "ratio");
  std::mt19937 rng(1);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  for (int64_t len : {64, 128, 256, 512}) {
    std::vector<float> qkv(static_cast<size_t>(len * 3 * kHeads * kHeadDim));
    for (float& x : qkv) x = dist(rng);
    std::vector<float> out(static_cast<size_t>(len * kHeads * kHeadDim));
    const int32_t starts[2] = {0, static_cast<int32_t>(len)};
    for (int64_t window : {int64_t{64}, int64_t{-1}}) {
      const AttentionArgs args{qkv.data(), out.data(), kHeads, starts, window};
      std::vector<float> scratch(std::max(kernel_table(best_isa()).attention_scratch_floats(len),
                                          kernel_table(Isa::kScalar).attention_scratch_floats(len)));
      const double flops = 4.0 * kHeadDim * kHeads * visible_pairs(len, window);
      const auto gflops = [&](Isa isa, int reps) {
        const AttentionFn fn = kernel_table(isa).attention.fn;
        return flops / median_cpu_seconds([&] { fn(args, 0, kHeads, scratch.data()); }, reps) / 1e9;
      };
      const double simd = gflops(best_isa(), 9);
      const double scalar = gflops(Isa::kScalar, 3);
      std::printf("%6lld %7s  %10.1f %10.2f %7.1f\n", static_cast<long long>(len), window < 0 ? "all" : "±64", simd,
                  scalar, simd / scalar);
    }
  }
  return 0;
}
