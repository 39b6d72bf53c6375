// The choice of kernel table: the one place that asks whether this build has the SIMD128 kernels.
#include "kernels/kernel_table.h"

namespace laya::kernels {

const KernelTable& kernel_table(Isa isa) {
#ifdef LAYA_SIMD128
  if (isa == Isa::kSimd128) return simd128_kernel_table();
#endif
  return scalar_kernel_table();
}

}  // namespace laya::kernels
