// Names of the instruction sets, for kernel names and reports.
#include "kernels/isa.h"

namespace laya::kernels {

const char* isa_name(Isa isa) {
  switch (isa) {
    case Isa::kScalar: return "scalar";
    case Isa::kSimd128: return "simd128";
  }
  return "?";
}

}  // namespace laya::kernels
