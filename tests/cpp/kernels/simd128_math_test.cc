// The vector exp, erf, GELU, row reductions, 4x4 transpose and F16 / BF16 conversions of
// simd128_math.h against the C library and the scalar conversions. Runs wherever the SIMD kernels
// are built (LAYA_SIMD128: wasm, and natively on SIMDe).
#include "kernels/simd128_math.h"

#include <doctest/doctest.h>

#ifdef LAYA_SIMD128

#include <cmath>
#include <cstdint>
#include <cstring>

#include "graph/half.h"
#include "kernel_test_util.h"

namespace laya::kernels::simd {
namespace {

float lane0(v128_t v) { return wasm_f32x4_extract_lane(v, 0); }

// The error of `got` in units of the last place of the f32 nearest to the exact `want`.
double ulps(float got, double want) {
  const float w = static_cast<float>(want);
  const double ulp = std::nextafter(std::fabs(w), INFINITY) - std::fabs(w);
  return std::fabs(got - want) / ulp;
}

}  // namespace

TEST_CASE("vector exp is within 1 ulp of e^x over its whole range") {
  double worst = 0;
  for (double x = -87.0; x <= 88.0; x += 0.000731) {
    const float xf = static_cast<float>(x);
    worst = std::fmax(worst, ulps(lane0(exp_f32x4(wasm_f32x4_splat(xf))), std::exp(static_cast<double>(xf))));
  }
  CHECK(worst <= 1.0);
  CHECK(lane0(exp_f32x4(wasm_f32x4_splat(0.0f))) == 1.0f);
  CHECK(lane0(exp_f32x4(wasm_f32x4_splat(-INFINITY))) == 0.0f);
  CHECK(lane0(exp_f32x4(wasm_f32x4_splat(-100.0f))) == 0.0f);
}

TEST_CASE("vector exp sends -inf and inputs below the normal range to 0 and keeps NaN NaN") {
  CHECK(lane0(exp_f32x4(wasm_f32x4_splat(-INFINITY))) == 0.0f);
  CHECK(lane0(exp_f32x4(wasm_f32x4_splat(-90.0f))) == 0.0f);
  CHECK(lane0(exp_f32x4(wasm_f32x4_splat(0.0f))) == 1.0f);
  CHECK(std::isnan(lane0(exp_f32x4(wasm_f32x4_splat(NAN)))));
  CHECK(std::isnan(lane0(erf_f32x4(wasm_f32x4_splat(NAN)))));
  CHECK(std::isnan(lane0(gelu_f32x4(wasm_f32x4_splat(NAN)))));
}

TEST_CASE("vector erf is within 2 ulp of erf, and odd, over a dense range") {
  double worst = 0;
  for (double x = -6.0; x <= 6.0; x += 0.0000371) {
    const float xf = static_cast<float>(x);
    const float got = lane0(erf_f32x4(wasm_f32x4_splat(xf)));
    worst = std::fmax(worst, ulps(got, std::erf(static_cast<double>(xf))));
    REQUIRE(got == -lane0(erf_f32x4(wasm_f32x4_splat(-xf))));
  }
  for (double x = 1e-30; x < 1.0; x *= 1.01) {  // tiny arguments: relative accuracy near 0
    const float xf = static_cast<float>(x);
    worst = std::fmax(worst, ulps(lane0(erf_f32x4(wasm_f32x4_splat(xf))), std::erf(static_cast<double>(xf))));
  }
  CHECK(worst <= 2.0);
  CHECK(lane0(erf_f32x4(wasm_f32x4_splat(INFINITY))) == 1.0f);
  CHECK(lane0(erf_f32x4(wasm_f32x4_splat(0.0f))) == 0.0f);
}

TEST_CASE("vector GELU is within 2e-7 · max(1, |y|) of the exact GELU") {
  double worst = 0;
  for (double x = -12.0; x <= 12.0; x += 0.0000917) {
    const float xf = static_cast<float>(x);
    const double exact = 0.5 * xf * (1.0 + std::erf(xf / std::sqrt(2.0)));
    const float got = lane0(gelu_f32x4(wasm_f32x4_splat(xf)));
    worst = std::fmax(worst, std::fabs(got - exact) / std::fmax(1.0, std::fabs(exact)));
  }
  CHECK(worst <= 2e-7);
}

TEST_CASE("F16 and BF16 lanes convert exactly, for all 65536 encodings") {
  for (uint32_t bits = 0; bits < 65536; bits += 4) {
    const v128_t h = wasm_i32x4_make(bits, bits + 1, bits + 2, bits + 3);
    float f16[4], bf16[4];
    wasm_v128_store(f16, f16_to_f32x4(h));
    wasm_v128_store(bf16, bf16_to_f32x4(h));
    for (uint32_t i = 0; i < 4; ++i) {
      INFO("bits " << bits + i);
      REQUIRE(testing::same_bits(f16[i], f16_to_f32(static_cast<uint16_t>(bits + i))));
      REQUIRE(testing::same_bits(bf16[i], bf16_to_f32(static_cast<uint16_t>(bits + i))));
    }
  }
}

TEST_CASE("eight halves at once convert exactly, whichever lane holds an infinity or NaN") {
  // Every half once in a lane of its own vector position, then every special half (exponent all
  // ones) placed among normal lanes, which takes the exact per-lane path for the whole vector.
  const auto check = [](const uint16_t (&lanes)[8]) {
    const v128_t h = wasm_v128_load(lanes);
    v128_t low, high;
    f16x8_to_f32x4x2(h, low, high);
    float out[8];
    wasm_v128_store(out, low);
    wasm_v128_store(out + 4, high);
    for (int i = 0; i < 8; ++i) {
      INFO("bits " << lanes[i] << " in lane " << i);
      REQUIRE(testing::same_bits(out[i], f16_to_f32(lanes[i])));
    }
  };
  for (uint32_t bits = 0; bits < 65536; bits += 8) {
    uint16_t lanes[8];
    for (uint32_t i = 0; i < 8; ++i) lanes[i] = static_cast<uint16_t>(bits + i);
    check(lanes);
  }
  for (uint32_t special = 0x7C00; special < 0x10000; special = special == 0x7FFF ? 0xFC00 : special + 1) {
    uint16_t lanes[8] = {0x3C00, 0x8001, 0x0000, 0xBC00, 0x7BFF, 0x8000, 0x0400, 0xFBFF};
    lanes[special % 8] = static_cast<uint16_t>(special);
    check(lanes);
  }
}

TEST_CASE("row sums and maxes reduce each row into its own lane, seeing every lane of it") {
  const v128_t rows[4] = {wasm_f32x4_make(1.0f, -2.0f, 8.0f, 0.5f), wasm_f32x4_make(-1.0f, -3.0f, -0.5f, -7.0f),
                          wasm_f32x4_make(0.0f, 0.0f, 0.0f, 4.0f), wasm_f32x4_make(16.0f, 2.0f, 1.0f, 32.0f)};
  float sums[4], maxes[4];
  wasm_v128_store(sums, row_sums(rows));
  wasm_v128_store(maxes, row_maxes(rows));
  CHECK(sums[0] == 7.5f);
  CHECK(sums[1] == -11.5f);
  CHECK(sums[2] == 4.0f);
  CHECK(sums[3] == 51.0f);
  CHECK(maxes[0] == 8.0f);
  CHECK(maxes[1] == -0.5f);
  CHECK(maxes[2] == 4.0f);
  CHECK(maxes[3] == 32.0f);
}

TEST_CASE("a 4x4 transpose turns rows into columns") {
  v128_t r[4];
  for (int i = 0; i < 4; ++i) r[i] = wasm_f32x4_make(4.0f * i, 4.0f * i + 1, 4.0f * i + 2, 4.0f * i + 3);
  transpose4x4(r);
  for (int c = 0; c < 4; ++c) {
    float col[4];
    wasm_v128_store(col, r[c]);
    for (int i = 0; i < 4; ++i) CHECK(col[i] == 4.0f * i + c);
  }
}

}  // namespace laya::kernels::simd

#endif  // LAYA_SIMD128
