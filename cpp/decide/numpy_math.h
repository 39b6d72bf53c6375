// numpy's float32 exp and log as its x86 SIMD loops compute them (AVX2+FMA3 and AVX512F give the
// same bits), and numpy's pairwise summation: upstream's softmax and entropy run through these,
// and libm's last-bit differences move a 4-decimal probability often enough to matter
// (laya-spec §5.2, §7.21). Scalar, one lane at a time, with std::fma wherever numpy uses fmadd.
#pragma once

#include <span>

namespace laya::decide {

// np.exp on a float32 array (simd_exp_FLOAT in loops_exponent_log.dispatch.c.src).
float numpy_exp_f32(float x);

// np.log on a float32 array (simd_log_FLOAT).
float numpy_log_f32(float x);

// ndarray.sum() of a contiguous 1-D array: pairwise_sum with its 8 interleaved accumulators over
// blocks of up to 128 values, split at a multiple of 8 above that.
float pairwise_sum(std::span<const float> values);
double pairwise_sum(std::span<const double> values);

}  // namespace laya::decide
