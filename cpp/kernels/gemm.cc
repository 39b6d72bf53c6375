// The scalar GEMM (the oracle: one dot product per output, k in order). The SIMD GEMM is in
// gemm_simd128.cc; kernels/kernel_table.h picks between them.
#include "kernels/gemm.h"

#include "kernels/geglu.h"  // gelu_scalar, the GELU epilogue
#include "kernels/madd.h"

namespace laya::kernels {

float apply_epilogue(Epilogue epilogue, float v, float old) {
  switch (epilogue) {
    case Epilogue::kNone: return v;
    case Epilogue::kGelu: return gelu_scalar(v);
    case Epilogue::kRelu: return v > 0.0f ? v : 0.0f;
    case Epilogue::kAccumulate: return old + v;
  }
  return v;
}

void gemm_scalar(const GemmArgs& g, int64_t n_begin, int64_t n_end, float* w_row) {
  const int64_t k = g.w.cols;
  const int64_t n = g.w.rows;
  for (int64_t j = n_begin; j < n_end; ++j) {
    g.w.convert_row(j, w_row);
    for (int64_t i = 0; i < g.m; ++i) {
      const float* a = g.a + i * k;
      float sum = 0.0f;
      // madd: a multiply and an add, or in the relaxed-SIMD build the SIMD kernels' relaxed_madd.
      for (int64_t t = 0; t < k; ++t) sum = madd(a[t], w_row[t], sum);
      if (g.bias != nullptr) sum += g.bias[j];
      float& o = g.out[i * n + j];
      o = apply_epilogue(g.epilogue, sum, o);
    }
  }
}

size_t gemm_scratch_floats_scalar(int64_t, int64_t k) {
  return static_cast<size_t>(k);  // one weight row converted to f32
}

}  // namespace laya::kernels
