// Integer compute in the executor: which GEMMs it takes (q8 weights only, and only when asked), where
// the quantized activations live (the arena's shared scratch), and that a run gives the integer
// kernels' own results, identical for any thread count and either instruction set.
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "engine/executor.h"
#include "kernels/int8_gemm.h"
#include "kernels/kernel_test_util.h"
#include "kernels/q8_test_util.h"
#include "plan/bucket.h"

namespace laya {
namespace {

using kernels::Compute;

constexpr int64_t kVocab = 23;
constexpr int64_t kK = 200;  // three whole groups of 64 and a ragged one of 8
constexpr int64_t kN = 256;  // 32 panels: enough columns for 4 threads to split

// Embed (F32 table) -> GEMM on q8 weights in panels, with a bias -> GEMM on F32 weights, added to
// the first result -> mean pool. One-token sequences make the pooled rows the GEMMs' own rows.
struct Model {
  std::mt19937 rng{35};
  testing::RandomMatrix table = testing::random_matrix(rng, DType::kF32, kVocab, kK);
  testing::Q8Matrix wq = testing::random_q8_matrix(rng, kN, kK, /*panels=*/true);
  std::vector<float> bias = testing::random_floats(rng, kN, 0.1f);
  testing::RandomMatrix wf = testing::random_matrix(rng, DType::kF32, kN, kN, 0.05f);
  WeightTable weights;
  Graph g;

  explicit Model(bool with_f32_gemm = false) {
    weights.push_back({"table", DType::kF32, {kVocab, kK}, table.data()});
    weights.push_back({"wq", DType::kI8, {kN, kK}, wq.ref.data, WeightLayout::kPanels8, wq.ref.scales});
    weights.push_back({"bias", DType::kF32, {kN}, reinterpret_cast<const std::byte*>(bias.data())});
    weights.push_back({"wf", DType::kF32, {kN, kN}, wf.data()});
    const ValueId x = g.value(Rows::kTokens, kK);
    const ValueId y = g.value(Rows::kTokens, kN);
    const ValueId pooled = g.value(Rows::kSeqs, kN);
    g.push(ops::Embed{WeightId{0}, x});
    g.push(ops::Gemm{x, WeightId{1}, WeightId{2}, Epilogue::kNone, y});
    if (with_f32_gemm) g.push(ops::Gemm{y, WeightId{3}, std::nullopt, Epilogue::kAccumulate, y});
    g.push(ops::MeanPool{y, pooled});
    g.pooled = pooled;
  }
};

std::vector<std::string> gemm_kernels(const Model& m, kernels::Isa isa, Compute compute) {
  auto lowered = lower(m.g, m.weights, RowCounts{8, 8, 0}, isa, nullptr, compute);
  REQUIRE_MESSAGE(lowered.ok(), (lowered.ok() ? "" : lowered.error().message));
  std::vector<std::string> names;
  for (const Step& s : lowered.value()->steps) {
    if (std::holds_alternative<steps::Gemm>(s)) names.emplace_back(kernel_name(s));
  }
  return names;
}

std::vector<float> run_pooled(const Model& m, kernels::Isa isa, Compute compute, const std::vector<int32_t>& ids,
                              ThreadPool* pool = nullptr) {
  auto e = Executor::create(m.g, m.weights, isa, nullptr, compute);
  REQUIRE_MESSAGE(e.ok(), (e.ok() ? "" : e.error().message));
  e.value().set_thread_pool(pool);
  Batch b;
  for (const int32_t& id : ids) b.add(std::span<const int32_t>(&id, 1));
  auto checked = check_batch(b, e.value().limits());
  REQUIRE(checked.ok());
  const Status s = e.value().run(checked.value());
  REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message));
  auto out = e.value().output(*m.g.pooled);
  return {out.begin(), out.end()};
}

std::vector<int32_t> random_ids(std::mt19937& rng, int count) {
  std::vector<int32_t> ids;
  for (int i = 0; i < count; ++i) ids.push_back(static_cast<int32_t>(rng() % kVocab));
  return ids;
}

}  // namespace

TEST_CASE("integer compute takes the GEMMs on q8 weights, and only when asked") {
  const Model m(/*with_f32_gemm=*/true);
  CHECK(gemm_kernels(m, kernels::Isa::kScalar, Compute::kF32) == std::vector<std::string>{"gemm_scalar", "gemm_scalar"});
  CHECK(gemm_kernels(m, kernels::Isa::kScalar, Compute::kInt8) ==
        std::vector<std::string>{"int8_gemm_scalar", "gemm_scalar"});
  if (kernels::simd128_compiled()) {
    CHECK(gemm_kernels(m, kernels::Isa::kSimd128, Compute::kF32) ==
          std::vector<std::string>{"gemm_q8_4x8_simd128", "gemm_f32_4x8_simd128"});
    CHECK(gemm_kernels(m, kernels::Isa::kSimd128, Compute::kInt8) ==
          std::vector<std::string>{"int8_gemm_4x8_simd128", "gemm_f32_4x8_simd128"});
  }
}

TEST_CASE("f32 compute plans no shared scratch; integer compute plans the row scales and quantized rows there") {
  const Model m;
  const RowCounts bucket{8, 8, 0};
  auto f32 = lower(m.g, m.weights, bucket, kernels::best_isa(), nullptr, Compute::kF32);
  auto int8 = lower(m.g, m.weights, bucket, kernels::best_isa(), nullptr, Compute::kInt8);
  REQUIRE(f32.ok());
  REQUIRE(int8.ok());
  CHECK(f32.value()->shared_floats == 0);
  CHECK(f32.value()->scratch_at() == f32.value()->shared_at());
  // 8 rows of 200 inputs: 16 floats of row scales (8, rounded to 64 bytes), then 2 tiles of 4 rows
  // x 100 input pairs x 2 int16 = 1600 int16 = 800 floats.
  CHECK(int8.value()->shared_floats == 16 + 800);
  CHECK(int8.value()->shared_at() == f32.value()->shared_at());
  CHECK(int8.value()->scratch_at() == int8.value()->shared_at() + 816);
  CHECK(int8.value()->scratch_at() % 16 == 0);
}

TEST_CASE("an integer-compute run gives the integer kernels' results, for 1 to 4 threads and either instruction set") {
  const Model m;
  std::mt19937 rng(7);
  const std::vector<int32_t> ids = random_ids(rng, 11);  // 11 rows: a ragged last tile of 3
  // The oracle: the table's rows quantized and multiplied by the scalar kernels.
  std::vector<float> rows;
  for (int32_t id : ids) rows.insert(rows.end(), m.table.values.begin() + id * kK, m.table.values.begin() + (id + 1) * kK);
  const int64_t count = static_cast<int64_t>(ids.size());
  std::vector<int16_t> q(kernels::quantized_activations_size(count, kK));
  std::vector<float> scales(ids.size());
  kernels::quantize_activations_i16_scalar(rows.data(), count, kK, q.data(), scales.data());
  std::vector<float> want(ids.size() * kN);
  kernels::int8_gemm_scalar({q.data(), scales.data(), count, m.wq.ref, m.bias.data(), Epilogue::kNone, want.data()}, 0,
                            kN, nullptr);

  std::vector<kernels::Isa> isas{kernels::Isa::kScalar};
  if (kernels::simd128_compiled()) isas.push_back(kernels::Isa::kSimd128);
  for (kernels::Isa isa : isas) {
    for (int threads = 1; threads <= (kThreadsAvailable ? 4 : 1); ++threads) {
      INFO(kernels::isa_name(isa) << ", " << threads << " threads");
      ThreadPool pool(threads);
      const std::vector<float> got = run_pooled(m, isa, Compute::kInt8, ids, threads > 1 ? &pool : nullptr);
      REQUIRE(got.size() == want.size());
      for (size_t i = 0; i < got.size(); ++i) {
        INFO("element " << i << ": " << got[i] << " vs " << want[i]);
        REQUIRE(testing::same_bits(got[i], want[i]));
      }
    }
  }
}

TEST_CASE("integer compute stays within a few steps of the f32 compute on the same q8 weights, and f32 is the default") {
  const Model m;
  std::mt19937 rng(8);
  const std::vector<int32_t> ids = random_ids(rng, 6);
  const kernels::Isa isa = kernels::best_isa();
  const std::vector<float> f32 = run_pooled(m, isa, Compute::kF32, ids);
  const std::vector<float> int8 = run_pooled(m, isa, Compute::kInt8, ids);
  auto by_default = Executor::create(m.g, m.weights, isa);
  REQUIRE(by_default.ok());
  CHECK(by_default.value().compute() == Compute::kF32);
  // Each output sums 200 products of an activation (16-bit step: |a|max / 32767) and an exact q8
  // weight (|w| <= 0.2 · 4.5 for these normal weights): the difference is far below 1e-3.
  REQUIRE(f32.size() == int8.size());
  bool any_differs = false;
  for (size_t i = 0; i < f32.size(); ++i) {
    CHECK(std::fabs(f32[i] - int8[i]) <= 1e-3f);
    any_differs = any_differs || f32[i] != int8[i];
  }
  CHECK(any_differs);  // the integer path really ran
}

}  // namespace laya
