// The activation quantizer and the scalar integer GEMM (the oracle of int8_gemm_simd128.cc): the
// scheme of kernels/int8_gemm.h written out one output at a time.
#include "kernels/int8_gemm.h"

#include <algorithm>
#include <cmath>

#include "graph/q8.h"
#include "kernels/gemm.h"  // apply_epilogue

namespace laya::kernels {

void quantize_activations_i16_scalar(const float* a, int64_t m, int64_t k, int16_t* q, float* scales) {
  // Zero first: the padding rows and inputs, and the rows that quantize to zero.
  std::fill(q, q + quantized_activations_size(m, k), int16_t{0});
  for (int64_t i = 0; i < m; ++i) {
    const float* row = a + i * k;
    float max = 0.0f;
    bool finite = true;
    for (int64_t t = 0; t < k; ++t) {
      finite = finite && std::isfinite(row[t]);
      max = std::fmax(max, std::fabs(row[t]));
    }
    if (!finite || max == 0.0f) {
      scales[i] = finite ? 0.0f : NAN;
      continue;
    }
    const float scale = max / static_cast<float>(kActivationQMax);
    scales[i] = scale;
    for (int64_t t = 0; t < k; ++t) {
      // row[t] / scale is at most a rounding past 32767 in magnitude: the clamp keeps it symmetric.
      const float v = std::nearbyint(row[t] / scale);
      q[quantized_index(k, i, t)] = static_cast<int16_t>(std::fmax(-kActivationQMax, std::fmin(kActivationQMax, v)));
    }
  }
}

size_t int8_gemm_scratch_floats_scalar(int64_t) { return 0; }

void int8_gemm_scalar(const Int8GemmArgs& g, int64_t n_begin, int64_t n_end, float*) {
  const int64_t k = g.w.cols;
  const int64_t n = g.w.rows;
  for (int64_t j = n_begin; j < n_end; ++j) {
    for (int64_t i = 0; i < g.m; ++i) {
      float total = 0.0f;
      for (int64_t t0 = 0; t0 < k; t0 += kQ8Group) {
        const int64_t t1 = t0 + kQ8Group < k ? t0 + kQ8Group : k;
        int32_t sum = 0;
        for (int64_t t = t0; t < t1; ++t) {
          sum += static_cast<int32_t>(g.a[quantized_index(k, i, t)]) * static_cast<int8_t>(*g.w.element(j, t));
        }
        const float product = static_cast<float>(sum) * load_scale(g.w.scale(j, t0 / kQ8Group));
        total = total + product;
      }
      float v = total * g.a_scales[i];
      if (g.bias != nullptr) v += g.bias[j];
      float& o = g.out[i * n + j];
      o = apply_epilogue(g.epilogue, v, o);
    }
  }
}

}  // namespace laya::kernels
