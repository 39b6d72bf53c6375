// Which weights are arranged into GEMM panels, that the arrangement keeps every value, and its errors.
#include "engine/gemm_panels.h"

#include <doctest/doctest.h>

#include <cstring>
#include <random>
#include <vector>

#include "kernels/kernel_test_util.h"
#include "kernels/matrix.h"

namespace laya {
namespace {

// One buffer holding an embedding table [5, 16], a GEMM weight [16, 16], a head [2, 16], a GEMM
// weight [8, 16] that is also read as a lookup table, and a GEMM weight [24, 16].
struct Fixture {
  std::vector<std::byte> buffer;
  WeightTable weights;
  std::vector<std::vector<float>> values;
  Graph g;

  Fixture() {
    std::mt19937 rng(3);
    const std::vector<std::pair<int64_t, int64_t>> shapes = {{5, 16}, {16, 16}, {2, 16}, {8, 16}, {24, 16}};
    size_t total = 0;
    for (auto [n, k] : shapes) total += static_cast<size_t>(n * k) * 2;
    buffer.resize(total + 1);
    size_t at = 1;  // unaligned, as tensors may be
    for (size_t i = 0; i < shapes.size(); ++i) {
      auto [n, k] = shapes[i];
      const auto m = testing::random_matrix(rng, DType::kF16, n, k);
      std::memcpy(buffer.data() + at, m.data(), static_cast<size_t>(n * k) * 2);
      weights.push_back({"w" + std::to_string(i), DType::kF16, {n, k}, buffer.data() + at});
      values.push_back(m.values);
      at += static_cast<size_t>(n * k) * 2;
    }
    const ValueId x = g.value(Rows::kTokens, 16);
    g.push(ops::Embed{WeightId{0}, x});
    const ValueId y = g.value(Rows::kTokens, 16);
    g.push(ops::Gemm{x, WeightId{1}, std::nullopt, Epilogue::kNone, y});
    const ValueId z = g.value(Rows::kTokens, 2);
    g.push(ops::Gemm{y, WeightId{2}, std::nullopt, Epilogue::kNone, z});
    const ValueId u = g.value(Rows::kTokens, 8);
    g.push(ops::Gemm{y, WeightId{3}, std::nullopt, Epilogue::kNone, u});
    g.push(ops::AddType{y, WeightId{3}});
    const ValueId v = g.value(Rows::kTokens, 24);
    g.push(ops::Gemm{y, WeightId{4}, std::nullopt, Epilogue::kNone, v});
  }
};

// Every element of every weight still reads back as the value it was made with.
void require_values_kept(const Fixture& f) {
  for (size_t i = 0; i < f.weights.size(); ++i) {
    const WeightView& w = f.weights[i];
    const kernels::MatrixRef m{w.data, w.dtype, w.shape[0], w.shape[1], w.layout};
    for (int64_t r = 0; r < w.shape[0]; ++r) {
      for (int64_t c = 0; c < w.shape[1]; ++c) {
        INFO(w.name << " (" << r << ", " << c << ")");
        REQUIRE(testing::same_bits(m.at(r, c), f.values[i][static_cast<size_t>(r * w.shape[1] + c)]));
      }
    }
  }
}

}  // namespace

TEST_CASE("only weights read by GEMMs alone, with whole panels of rows, are chosen") {
  Fixture f;
  const Graph* graphs[] = {&f.g};
  // w0 is a lookup table, w2 has 2 rows (not a whole panel), w3 is a GEMM weight also used as a table.
  CHECK(gemm_panel_weights(graphs, f.weights) == std::vector<size_t>{1, 4});
}

TEST_CASE("arranging as the data arrives waits for each matrix's last byte, then keeps every value") {
  Fixture f;
  const Graph* graphs[] = {&f.g};
  const std::vector<std::byte> rows = f.buffer;
  auto arranger = PanelArranger::create(graphs, f.weights, f.buffer);
  REQUIRE(arranger.ok());
  PanelArranger& a = arranger.value();
  CHECK(a.pending() == 2);
  const size_t w1_end = static_cast<size_t>(f.weights[2].data - f.buffer.data());  // w1 ends where w2 begins
  a.arrange_written(w1_end - 1);
  CHECK(a.pending() == 2);
  CHECK(f.buffer == rows);
  a.arrange_written(w1_end);
  CHECK(a.pending() == 1);
  CHECK(f.buffer != rows);
  a.finish(f.weights);
  CHECK(a.pending() == 0);
  CHECK(f.weights[0].layout == WeightLayout::kRows);
  CHECK(f.weights[1].layout == WeightLayout::kPanels8);
  CHECK(f.weights[2].layout == WeightLayout::kRows);
  CHECK(f.weights[3].layout == WeightLayout::kRows);
  CHECK(f.weights[4].layout == WeightLayout::kPanels8);
  require_values_kept(f);
}

TEST_CASE("arranging everything at finish gives the same bytes as arranging while streaming") {
  Fixture streamed, at_once;
  const Graph* graphs[] = {&streamed.g};
  auto a = PanelArranger::create(graphs, streamed.weights, streamed.buffer);
  REQUIRE(a.ok());
  for (size_t written = 0; written <= streamed.buffer.size(); written += 37) a.value().arrange_written(written);
  a.value().finish(streamed.weights);
  const Graph* graphs2[] = {&at_once.g};
  auto b = PanelArranger::create(graphs2, at_once.weights, at_once.buffer);
  REQUIRE(b.ok());
  b.value().finish(at_once.weights);
  CHECK(streamed.buffer == at_once.buffer);
  require_values_kept(at_once);
}

TEST_CASE("a GEMM weight outside the writable buffer is an internal error") {
  Fixture f;
  const Graph* graphs[] = {&f.g};
  const auto a = PanelArranger::create(graphs, f.weights, std::span<std::byte>(f.buffer).first(100));
  REQUIRE_FALSE(a.ok());
  CHECK(a.error().code == ErrorCode::kInternal);
  CHECK(a.error().message == "arranging GEMM panels: weight 'w1' lies outside the weights buffer");
}

}  // namespace laya
