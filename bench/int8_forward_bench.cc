// Whole-forward benchmark of integer compute: an encoder of ModernBERT-large's layer shapes (d = 1024,
// 16 heads of 64, GeGLU MLP of 2 x 2624; LayerNorm, RoPE, full attention) with random q8 weights
// in 8-row panels as the loader leaves them, run by two executors on the same weights, one with f32
// compute (q8 converted as read: gemm_q8_4x8_simd128) and one with integer compute
// (kernels/compute.h: int8_gemm_4x8_simd128, activations quantized per row), one thread, one
// sequence of m tokens. Not a test.
// Build (target int8_forward_bench) and run: [node --no-experimental-fetch] int8_forward_bench[.js] [layers [m ...]]
// Times are process CPU seconds, medians of runs taken in turn (cpu_timing.h): compare the ratio,
// measured in one process, rather than absolute numbers on a shared machine.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "engine/executor.h"
#include "graph/q8.h"
#include "kernels/panels.h"

#include "cpu_timing.h"

namespace {

using namespace laya;

constexpr int64_t kD = 1024;
constexpr int64_t kInter = 2624;
constexpr int64_t kVocab = 512;

// Owns the weights and builds the encoder's graph over them.
struct Encoder {
  std::mt19937 rng{35};
  std::vector<std::unique_ptr<std::vector<std::byte>>> storage;
  WeightTable weights;
  Graph g;

  std::vector<float> normal(size_t count, float sigma, float mean = 0.0f) {
    std::normal_distribution<float> dist(mean, sigma);
    std::vector<float> v(count);
    for (float& x : v) x = dist(rng);
    return v;
  }
  WeightId add(const std::string& name, DType dtype, std::vector<int64_t> shape, std::vector<std::byte> bytes,
               WeightLayout layout = WeightLayout::kRows, size_t scales_at = 0) {
    storage.push_back(std::make_unique<std::vector<std::byte>>(std::move(bytes)));
    const std::byte* data = storage.back()->data();
    weights.push_back({name, dtype, std::move(shape), data, layout, dtype == DType::kI8 ? data + scales_at : nullptr});
    return WeightId{static_cast<uint32_t>(weights.size() - 1)};
  }
  WeightId floats(const std::string& name, std::vector<int64_t> shape, const std::vector<float>& v) {
    std::vector<std::byte> bytes(v.size() * sizeof(float));
    std::memcpy(bytes.data(), v.data(), bytes.size());
    return add(name, DType::kF32, std::move(shape), std::move(bytes));
  }
  // An [n, k] Linear weight in q8, values and scales in panels.
  WeightId q8(const std::string& name, int64_t n, int64_t k) {
    const std::vector<float> v = normal(static_cast<size_t>(n * k), 1.0f / std::sqrt(static_cast<float>(k)));
    const int64_t groups = q8_groups(k);
    std::vector<std::byte> bytes(static_cast<size_t>(n * k + n * groups * 4));
    std::vector<float> s(static_cast<size_t>(n * groups)), row(static_cast<size_t>(k));
    quantize_rows_q8(DType::kF32, reinterpret_cast<const std::byte*>(v.data()), n, k,
                     reinterpret_cast<int8_t*>(bytes.data()), s.data(), row.data());
    std::byte* scales = bytes.data() + n * k;
    std::memcpy(scales, s.data(), s.size() * sizeof(float));
    std::vector<std::byte> scratch(kernels::panel_scratch_bytes(k, 4));
    kernels::arrange_panels_in_place(bytes.data(), n, k, 1, scratch.data());
    kernels::arrange_panels_in_place(scales, n, groups, 4, scratch.data());
    return add(name, DType::kI8, {n, k}, std::move(bytes), WeightLayout::kPanels8, static_cast<size_t>(n * k));
  }
  ValueId norm(ValueId x, const std::string& name) {
    const ValueId out = g.value(Rows::kTokens, kD);
    g.push(ops::LayerNorm{x, floats(name, {kD}, normal(kD, 0.1f, 1.0f)), std::nullopt, 1e-5, out});
    return out;
  }

  explicit Encoder(int layers) {
    const ValueId h = g.value(Rows::kTokens, kD);
    g.push(ops::Embed{floats("embed", {kVocab, kD}, normal(static_cast<size_t>(kVocab * kD), 1.0f)), h});
    for (int l = 0; l < layers; ++l) {
      const std::string p = "layer" + std::to_string(l);
      const ValueId qkv = g.value(Rows::kTokens, 3 * kD);
      g.push(ops::Gemm{norm(h, p + ".attn_norm"), q8(p + ".wqkv", 3 * kD, kD), std::nullopt, Epilogue::kNone, qkv});
      g.push(ops::Rope{qkv, 160000.0});
      const ValueId o = g.value(Rows::kTokens, kD);
      g.push(ops::Attention{qkv, std::nullopt, o});
      g.push(ops::Gemm{o, q8(p + ".wo", kD, kD), std::nullopt, Epilogue::kAccumulate, h});
      const ValueId u = g.value(Rows::kTokens, 2 * kInter);
      g.push(ops::Gemm{norm(h, p + ".mlp_norm"), q8(p + ".wi", 2 * kInter, kD), std::nullopt, Epilogue::kNone, u});
      const ValueId gg = g.value(Rows::kTokens, kInter);
      g.push(ops::GeGlu{u, gg});
      g.push(ops::Gemm{gg, q8(p + ".mlp_wo", kD, kInter), std::nullopt, Epilogue::kAccumulate, h});
    }
    const ValueId pooled = g.value(Rows::kSeqs, kD);
    g.push(ops::MeanPool{norm(h, "final_norm"), pooled});
    g.pooled = pooled;
  }
};

Executor make_executor(const Encoder& e, kernels::Compute compute) {
  auto x = Executor::create(e.g, e.weights, kernels::best_isa(), nullptr, compute);
  if (!x.ok()) {
    std::fprintf(stderr, "%s\n", x.error().message.c_str());
    std::exit(1);
  }
  return std::move(x).value();
}

}  // namespace

int main(int argc, char** argv) {
  const int layers = argc > 1 ? std::atoi(argv[1]) : 2;
  std::vector<int64_t> ms;
  for (int i = 2; i < argc; ++i) ms.push_back(std::atoi(argv[i]));
  if (ms.empty()) ms = {128, 512};
  std::printf("isa %s, %d layers of d %lld, MLP 2 x %lld\n", kernels::isa_name(kernels::best_isa()), layers,
              static_cast<long long>(kD), static_cast<long long>(kInter));
  std::printf("%5s  %10s %10s  %10s  %s\n", "m", "f32 ms", "int8 ms", "f32/int8", "max |pooled diff| / max |pooled|");
  Encoder encoder(layers);
  Executor f32 = make_executor(encoder, kernels::Compute::kF32);
  Executor int8 = make_executor(encoder, kernels::Compute::kInt8);
  for (const int64_t m : ms) {
    Batch batch;
    std::vector<int32_t> ids;
    for (int64_t t = 0; t < m; ++t) ids.push_back(static_cast<int32_t>(encoder.rng() % kVocab));
    batch.add(ids);
    auto checked = check_batch(batch, f32.limits());
    if (!checked.ok()) {
      std::fprintf(stderr, "%s\n", checked.error().message.c_str());
      return 1;
    }
    auto run = [&](Executor& e) {
      if (!e.run(checked.value()).ok()) std::exit(1);
    };
    // In turn, so both see the same conditions on a shared machine.
    std::vector<double> t_f32, t_int8;
    run(f32);
    run(int8);
    for (int r = 0; r < 5; ++r) {
      for (auto [e, t] : {std::pair{&f32, &t_f32}, std::pair{&int8, &t_int8}}) {
        const double start = process_cpu_seconds();
        run(*e);
        t->push_back(process_cpu_seconds() - start);
      }
    }
    std::sort(t_f32.begin(), t_f32.end());
    std::sort(t_int8.begin(), t_int8.end());
    run(f32);
    const std::vector<float> want(f32.output(*encoder.g.pooled).begin(), f32.output(*encoder.g.pooled).end());
    run(int8);
    auto got = int8.output(*encoder.g.pooled);
    double diff = 0, largest = 0;
    for (size_t i = 0; i < want.size(); ++i) {
      diff = std::max(diff, static_cast<double>(std::fabs(got[i] - want[i])));
      largest = std::max(largest, static_cast<double>(std::fabs(want[i])));
    }
    std::printf("%5lld  %10.1f %10.1f  %10.2f  %.3g\n", static_cast<long long>(m), 1e3 * t_f32[2], 1e3 * t_int8[2],
                t_f32[2] / t_int8[2], diff / largest);
    // One more run of each, timed step by step (wall time): the GEMMs' share of the forward.
    for (auto [e, name] : {std::pair{&f32, "f32"}, std::pair{&int8, "int8"}}) {
      e->reset_profile();
      e->set_profiling(true);
      run(*e);
      e->set_profiling(false);
      const StepProfile& p = e->profile();
      double total = 0;
      for (double t : p.seconds) total += t;
      const size_t gemm = Step(steps::Gemm{}).index();
      std::printf("       %s: GEMM steps %.0f%% of %.1f ms\n", name, 100 * p.seconds[gemm] / total, 1e3 * total);
    }
    std::fflush(stdout);
  }
  return 0;
}
