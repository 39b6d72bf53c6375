// The activation quantizer and the scalar integer GEMM: hand-derived exact cases, and agreement with
// a double-precision GEMM of the same q8 weights within the bound the activation step allows.
#include "kernels/int8_gemm.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "q8_test_util.h"

namespace laya::kernels {
namespace {

// A q8 matrix in rows, from hand-chosen integers and one scale per (row, group).
struct HandQ8 {
  std::vector<int8_t> q;
  std::vector<float> scales;
  MatrixRef ref() const {
    return {reinterpret_cast<const std::byte*>(q.data()), DType::kI8, static_cast<int64_t>(scales.size()) /
            q8_groups(cols), cols, WeightLayout::kRows, reinterpret_cast<const std::byte*>(scales.data())};
  }
  int64_t cols = 0;
};

std::vector<float> run_scalar(const std::vector<float>& a, int64_t m, const MatrixRef& w, const float* bias,
                              Epilogue e = Epilogue::kNone) {
  std::vector<int16_t> q(quantized_activations_size(m, w.cols));
  std::vector<float> scales(static_cast<size_t>(m));
  quantize_activations_i16_scalar(a.data(), m, w.cols, q.data(), scales.data());
  std::vector<float> out(static_cast<size_t>(m * w.rows), 0.0f);
  int8_gemm_scalar({q.data(), scales.data(), m, w, bias, e, out.data()}, 0, w.rows, nullptr);
  return out;
}

}  // namespace

TEST_CASE("quantized activations lie in 4-row tiles, input pair by input pair") {
  // k = 5: 3 pairs (the last padded). Row 5, input 3: tile 1, pair 1, row 1 of the tile, second of the pair.
  CHECK(quantized_pairs(5) == 3);
  CHECK(quantized_index(5, 5, 3) == ((1 * 3 + 1) * 4 + 1) * 2 + 1);
  CHECK(quantized_index(5, 0, 0) == 0);
  CHECK(quantized_index(5, 3, 4) == (2 * 4 + 3) * 2);
  CHECK(quantized_activations_size(5, 5) == 2 * 3 * 4 * 2);  // rows 5-7 of the second tile are padding
}

TEST_CASE("quantize_activations_i16_scalar rounds a row to steps of its largest value / 32767, ties to even") {
  // Largest 32767 · 2^-10, so the step is exactly 2^-10 and every quotient below is exact.
  const float step = std::ldexp(1.0f, -10);
  const std::vector<float> a = {32767 * step, 1.5f * step, 2.5f * step, -3.5f * step, 0.0f, -32767 * step, 1000 * step};
  std::vector<int16_t> q(quantized_activations_size(1, 7), 99);
  float scale = 0.0f;
  quantize_activations_i16_scalar(a.data(), 1, 7, q.data(), &scale);
  CHECK(scale == step);
  // One tile of 4 pairs, [pair][row of the tile][2]: row 0's pairs (32767, 2) (2, -4) (0, -32767)
  // (1000, then the odd k's zero); the tile's rows 1-3 are padding.
  const std::vector<int16_t> laid_out = {32767, 2, 0, 0, 0, 0, 0, 0,  2, -4, 0, 0, 0, 0, 0, 0,
                                         0, -32767, 0, 0, 0, 0, 0, 0,  1000, 0, 0, 0, 0, 0, 0, 0};
  CHECK(q == laid_out);
}

TEST_CASE("a row of zeros quantizes to scale 0, and a row with a non-finite value to scale NaN") {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> a = {0.0f, -0.0f, 0.0f, 0.0f, 1.0f, inf, 2.0f, 3.0f, std::nanf("")};
  std::vector<int16_t> q(quantized_activations_size(3, 3), 99);
  float scales[3];
  quantize_activations_i16_scalar(a.data(), 3, 3, q.data(), scales);  // rows [0 -0 0] [0 1 inf] [2 3 nan]
  CHECK(scales[0] == 0.0f);
  CHECK(std::isnan(scales[1]));
  CHECK(std::isnan(scales[2]));
  CHECK(q == std::vector<int16_t>(quantized_activations_size(3, 3), 0));
}

TEST_CASE("the scalar integer GEMM sums integer products per group, scales, and adds the bias exactly") {
  // Activations whose largest value is 32767 have scale 1: q_a is the row itself.
  const std::vector<float> a = {32767, -3, 5, -32767, 100, 0};
  HandQ8 w{{1, 2, 3, -127, 0, 127}, {0.5f, 2.0f}, 3};
  const float bias[] = {1.0f, -2.0f};
  const auto out = run_scalar(a, 2, w.ref(), bias);
  // (32767 - 6 + 15) · 0.5 + 1;  (-32767 · 127 + 5 · 127) · 2 - 2;  (-32767 + 200) · 0.5 + 1;  32767 · 127 · 2 - 2
  CHECK(out == std::vector<float>{16389.0f, -8321550.0f, -16282.5f, 8322816.0f});
}

TEST_CASE("a full group of the largest products stays exact in int32, and each group gets its own scale") {
  // Group 0: 64 · 32767 · 127 = 266330176 at scale 1; group 1: the negative of it at scale 0.25.
  const int64_t k = 128;
  std::vector<float> a(k, 32767.0f);
  HandQ8 w;
  w.cols = k;
  w.q.assign(k, 127);
  std::fill(w.q.begin() + 64, w.q.end(), -127);
  w.scales = {1.0f, 0.25f};
  const auto out = run_scalar(a, 1, w.ref(), nullptr);
  CHECK(out[0] == 199747632.0f);  // 266330176 - 66582544 = 16 · 12484227 below 2^28: exact in f32
}

TEST_CASE("a shorter last group is summed on its own and epilogues apply after the row scale") {
  // k = 66: a full group of 1 · 1 and a group of two, at weight scales 1 and 0.5; row scale 1.
  const int64_t k = 66;
  std::vector<float> a(k, 1.0f);
  a[0] = 32767.0f;  // sets the row scale to 1
  a[65] = -4.0f;
  HandQ8 w;
  w.cols = k;
  w.q.assign(k, 1);
  w.q[64] = 127;
  w.q[65] = 3;
  w.scales = {1.0f, 0.5f};
  // Group 0: 32767 + 63 = 32830; group 1: (127 - 12) · 0.5 = 57.5.
  CHECK(run_scalar(a, 1, w.ref(), nullptr)[0] == 32887.5f);
  const float bias = -40000.0f;
  CHECK(run_scalar(a, 1, w.ref(), &bias, Epilogue::kRelu)[0] == 0.0f);
}

TEST_CASE("the scalar integer GEMM is within the activation step's bound of a double GEMM, outliers and odd shapes included") {
  std::mt19937 rng(3501);
  int cases = 0;
  for (int64_t m : {1, 3, 5}) {
    for (int64_t n : {1, 7, 8, 9, 16}) {
      for (int64_t k : {1, 2, 63, 65, 130, 200}) {
        auto a = testing::random_floats(rng, static_cast<size_t>(m * k));
        // A few outlier channels, 50x the rest, as trained encoders have.
        for (int64_t t = 0; t < k; t += 37) {
          for (int64_t i = 0; i < m; ++i) a[i * k + t] *= 50.0f;
        }
        // In 8-row panels (the loader's layout, whole panels only) every other time it can be.
        const auto w = testing::random_q8_matrix(rng, n, k, n % 8 == 0 && cases % 2 == 1);
        const auto out = run_scalar(a, m, w.ref, nullptr);
        const int64_t groups = q8_groups(k);
        for (int64_t i = 0; i < m; ++i) {
          double max = 0.0;
          for (int64_t t = 0; t < k; ++t) max = std::fmax(max, std::fabs(a[i * k + t]));
          const double step = max / 32767.0 * (1.0 + 1e-6);  // the f32 scale is within an ulp of this
          for (int64_t j = 0; j < n; ++j) {
            double want = 0.0, abs_w = 0.0, abs_aw = 0.0;
            for (int64_t t = 0; t < k; ++t) {
              const double wv = w.values[j * k + t];
              want += static_cast<double>(a[i * k + t]) * wv;
              abs_w += std::fabs(wv);
              abs_aw += (std::fabs(a[i * k + t]) + step) * std::fabs(wv);
            }
            // Each activation moves by at most half a step; then f32 rounds the conversion and the
            // product of each group, each add of the sum, and the row scale, each within 2^-24 of
            // a value at most the sum of |a · w|.
            const double bound = 0.5 * step * abs_w + (3.0 * static_cast<double>(groups) + 2.0) * 0x1p-24 * abs_aw;
            INFO("m " << m << " n " << n << " k " << k << " row " << i << " column " << j);
            REQUIRE(std::fabs(out[i * n + j] - want) <= bound);
          }
        }
        ++cases;
      }
    }
  }
  CHECK(cases == 3 * 5 * 6);
}

}  // namespace laya::kernels
