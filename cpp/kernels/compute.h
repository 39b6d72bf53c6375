// How a session multiplies its weight matrices. kF32: every GEMM in f32, whatever the weights'
// dtype (q8 weights converted as they are read): upstream's answers, the default. kInt8: the GEMMs
// whose weights are q8 in integers (kernels/int8_gemm.h), activations quantized per row; the other
// ops, and GEMMs on float weights, stay f32.
#pragma once

namespace laya::kernels {

enum class Compute { kF32, kInt8 };

inline const char* compute_name(Compute compute) { return compute == Compute::kInt8 ? "int8" : "f32"; }

}  // namespace laya::kernels
