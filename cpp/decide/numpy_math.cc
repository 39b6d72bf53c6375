// Transcribed from the algorithm of numpy's loops_exponent_log.dispatch.c.src (exp: Cody-Waite
// reduction by ln 2, a 5/2 rational approximation, 2^k put into the exponent bits; log: mantissa
// into (sqrt(1/2), sqrt(2)], a 5/5 rational approximation of log(1 + m), plus k ln 2) and of
// pairwise_sum in loops_utils.h.src. Constants are numpy's decimal literals rounded to float.
#include "decide/numpy_math.h"
#include "util/float_bits.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

// a*b+c must stay two roundings wherever numpy does not use fmadd.
#ifdef __clang__
#pragma clang fp contract(off)
#endif

namespace laya::decide {
namespace {

constexpr float kLog2e = 1.442695040888963407359924681001892137f;     // NPY_LOG2Ef
constexpr float kLn2 = 0.693147180559945309417232121458176568f;       // NPY_LOGE2f
constexpr float kSqrtHalf = 0.707106781186547524400844362104849039f;  // NPY_SQRT1_2f
constexpr float kRintMagic = 0x1.800000p+23f;                         // NPY_RINT_CVT_MAGICf
constexpr float kLn2High = -6.93145752e-1f;                           // NPY_CODY_WAITE_LOGE_2_HIGHf
constexpr float kLn2Low = -1.42860677e-6f;                            // NPY_CODY_WAITE_LOGE_2_LOWf
constexpr float kExpMax = 88.72283935546875f;
constexpr float kExpMin = -103.97208404541015625f;

constexpr float kExpP[6] = {
    9.999999999980870924916e-01f, 7.257664613233124478488e-01f, 2.473615434895520810817e-01f,
    5.114512081637298353406e-02f, 6.757896990527504603057e-03f, 5.082762527590693718096e-04f};
constexpr float kExpQ[3] = {1.000000000000000000000e+00f, -2.742335390411667452936e-01f,
                            2.159509375685829852307e-02f};
constexpr float kLogP[6] = {
    0.000000000000000000000e+00f, 9.999999999999998702752e-01f, 2.112677543073053063722e+00f,
    1.480000633576506585156e+00f, 3.808837741388407920751e-01f, 2.589979117907922693523e-02f};
constexpr float kLogQ[6] = {
    1.000000000000000000000e+00f, 2.612677543073109236779e+00f, 2.453006071784736363091e+00f,
    9.864942958519418960339e-01f, 1.546476374983906719538e-01f, 5.875095403124574342950e-03f};


// Horner's rule with fused multiply-adds, highest coefficient first, as numpy writes it.
template <int N>
float horner_fma(const float (&c)[N], float x) {
  float acc = std::fma(c[N - 1], x, c[N - 2]);
  for (int i = N - 3; i >= 0; --i) acc = std::fma(acc, x, c[i]);
  return acc;
}

// poly * 2^quadrant by adding to the exponent bits (fma_scalef_ps); below 2^-125 the result is a
// subnormal, made by one correctly rounded division.
float scale_by_power_of_two(float poly, float quadrant) {
  const auto add_exponent = [](float p, int q) {
    return float_from_bits(float_bits(p) + (static_cast<uint32_t>(q) << 23));
  };
  if (quadrant <= -125.0f) {
    const int diff = static_cast<int>(-(quadrant + 125.0f));
    return add_exponent(poly, -125) / static_cast<float>(1u << diff);
  }
  return add_exponent(poly, static_cast<int>(quadrant));
}

template <class T>
T pairwise(const T* a, size_t n) {
  if (n < 8) {
    T res = -0.0;  // numpy 2 starts from -0.0 so that a sum of -0.0 stays -0.0
    for (size_t i = 0; i < n; ++i) res += a[i];
    return res;
  }
  if (n <= 128) {
    T r[8];
    for (size_t j = 0; j < 8; ++j) r[j] = a[j];
    size_t i = 8;
    for (; i < n - n % 8; i += 8) {
      for (size_t j = 0; j < 8; ++j) r[j] += a[i + j];
    }
    T res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) res += a[i];
    return res;
  }
  size_t n2 = n / 2;
  n2 -= n2 % 8;
  return pairwise(a, n2) + pairwise(a + n2, n - n2);
}

}  // namespace

float numpy_exp_f32(float x) {
  if (std::isnan(x)) return std::numeric_limits<float>::quiet_NaN();
  if (x >= kExpMax) return std::numeric_limits<float>::infinity();
  if (x <= kExpMin) return 0.0f;
  float quadrant = x * kLog2e;
  quadrant = (quadrant + kRintMagic) - kRintMagic;  // round to nearest, ties to even
  float r = std::fma(quadrant, kLn2High, x);
  r = std::fma(quadrant, kLn2Low, r);
  r = std::fma(quadrant, 0.0f, r);  // numpy's third Cody-Waite term is zero; kept for -0.0
  const float poly = horner_fma(kExpP, r) / horner_fma(kExpQ, r);
  return scale_by_power_of_two(poly, quadrant);
}

float numpy_log_f32(float x) {
  if (std::isnan(x)) return std::numeric_limits<float>::quiet_NaN();
  if (x < 0.0f) return -std::numeric_limits<float>::quiet_NaN();
  if (x == 0.0f) return -std::numeric_limits<float>::infinity();
  if (std::isinf(x)) return x;
  // Subnormals are scaled by 2^100 first so the exponent field is meaningful.
  const bool subnormal = x < std::numeric_limits<float>::min();
  const float scaled = subnormal ? x * 0x1p100f : x;
  const uint32_t bits = float_bits(scaled);
  float exponent = static_cast<float>(static_cast<int>(bits >> 23) - 126) - (subnormal ? 100.0f : 0.0f);
  float m = float_from_bits((bits & 0x7fffffu) | (126u << 23));  // in [0.5, 1)
  if (m <= kSqrtHalf) {
    m = m + m;
    exponent = exponent - 1.0f;
  }
  m = m - 1.0f;
  const float poly = horner_fma(kLogP, m) / horner_fma(kLogQ, m);
  return std::fma(exponent, kLn2, poly);
}

float pairwise_sum(std::span<const float> values) { return pairwise(values.data(), values.size()); }
double pairwise_sum(std::span<const double> values) { return pairwise(values.data(), values.size()); }

}  // namespace laya::decide
