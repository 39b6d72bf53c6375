// Where a run's time goes, by step kind: the executor adds each step's wall time (and a GEMM's or
// an attention's arithmetic) while profiling is on, so benchmarks can report time by kind and the
// GF/s of the GEMM steps alone. Off by default; when off a run reads no clock.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <variant>

#include "engine/steps.h"

namespace laya {

struct StepProfile {
  static constexpr size_t kKinds = std::variant_size_v<Step>;
  std::array<double, kKinds> seconds{};
  std::array<int64_t, kKinds> calls{};
  std::array<double, kKinds> flops{};  // each op's flops() (graph/ops.cc): GEMMs and attention; 0 elsewhere
  int64_t runs = 0;

  // The step kind of variant index `kind`: "gemm", "attention", "layer_norm", ...
  static const char* kind_name(size_t kind);
  StepProfile& operator+=(const StepProfile& other);
  // {"runs":2,"steps":[{"kind":"gemm","calls":..,"ms":..,"gflop":..}, ...]}, kinds never run left out.
  std::string to_json() const;
};

}  // namespace laya
