#include "decide/numpy_math.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "upstream_fixture.h"
#include "util/float_bits.h"

using laya::decide::numpy_exp_f32;
using laya::decide::numpy_log_f32;
using laya::decide::pairwise_sum;
using laya::decide::testing::parse_or_fail;
using laya::decide::testing::read_lines;

namespace {

const std::string kData = std::string(LAYA_TEST_DATA_DIR) + "/decide/";

float hex_float(const laya::json::Value& v) {
  return laya::float_from_bits(static_cast<uint32_t>(std::strtoul(v.as_string().c_str(), nullptr, 16)));
}

// NaNs compare equal to NaNs of the same sign; everything else bit for bit.
bool same(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b) && std::signbit(a) == std::signbit(b);
  return laya::float_bits(a) == laya::float_bits(b);
}

}  // namespace

TEST_CASE("numpy_exp_f32 and numpy_log_f32 give numpy's bits on the reference table") {
  // tests/data/decide/numpy_exp_log.jsonl: np.exp / np.log of float32 arrays, computed by numpy's
  // AVX512F loops (scripts/decide_reference_tables.py).
  int exps = 0, logs = 0, mismatches = 0;
  for (const std::string& line : read_lines(kData + "numpy_exp_log.jsonl")) {
    const auto row = parse_or_fail(line, "numpy_exp_log.jsonl");
    const float x = hex_float(*row.find("x")), want = hex_float(*row.find("y"));
    const bool is_exp = row.find("f")->as_string() == "exp";
    const float got = is_exp ? numpy_exp_f32(x) : numpy_log_f32(x);
    (is_exp ? exps : logs)++;
    if (!same(got, want) && ++mismatches <= 10) {
      MESSAGE(line << " got " << std::hex << laya::float_bits(got));
    }
  }
  CHECK(exps > 6000);
  CHECK(logs > 6000);
  CHECK(mismatches == 0);
}

TEST_CASE("numpy_exp_f32 and numpy_log_f32 handle the special values as numpy does") {
  CHECK(numpy_exp_f32(0.0f) == 1.0f);
  CHECK(std::isinf(numpy_exp_f32(88.72283935546875f)));
  CHECK(numpy_exp_f32(-103.97208404541015625f) == 0.0f);
  CHECK(numpy_exp_f32(-INFINITY) == 0.0f);
  CHECK(std::isnan(numpy_exp_f32(NAN)));
  CHECK(numpy_log_f32(1.0f) == 0.0f);
  CHECK(numpy_log_f32(0.0f) == -INFINITY);
  CHECK(std::isinf(numpy_log_f32(INFINITY)));
  CHECK((std::isnan(numpy_log_f32(-1.0f)) && std::signbit(numpy_log_f32(-1.0f))));
}

TEST_CASE("pairwise_sum adds in numpy's order, in float32 and float64") {
  // tests/data/decide/numpy_sums.jsonl: ndarray.sum() of random arrays of 1..1030 values.
  int rows = 0, mismatches = 0;
  for (const std::string& line : read_lines(kData + "numpy_sums.jsonl")) {
    const auto row = parse_or_fail(line, "numpy_sums.jsonl");
    bool ok;
    if (row.find("dtype")->as_string() == "f32") {
      std::vector<float> x;
      for (const auto& v : row.find("x")->items()) x.push_back(hex_float(v));
      ok = same(pairwise_sum(x), hex_float(*row.find("sum")));
    } else {
      std::vector<double> x;
      for (const auto& v : row.find("x")->items()) x.push_back(std::strtod(v.as_string().c_str(), nullptr));
      ok = pairwise_sum(x) == std::strtod(row.find("sum")->as_string().c_str(), nullptr);
    }
    if (!ok) ++mismatches;
    ++rows;
  }
  CHECK(rows == 66);
  CHECK(mismatches == 0);
}

TEST_CASE("pairwise_sum is not a left-to-right sum from 8 values on") {
  // 1 + 7 * 2^-24: sequentially each 2^-24 is lost against 1 (a tie, rounded to even); numpy's
  // interleaved accumulators add the small ones together first.
  std::vector<float> x(8, 0x1p-24f);
  x[0] = 1.0f;
  float sequential = 0.0f;
  for (float v : x) sequential += v;
  CHECK(sequential == 1.0f);
  CHECK(pairwise_sum(x) == 1.0f + 0x1p-22f + 0x1p-23f);
}
