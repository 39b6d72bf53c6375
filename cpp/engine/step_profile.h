// Where a run's time goes, by step kind: the executor adds each step's wall time (and a GEMM's or
// an attention's arithmetic) while profiling is on, so benchmarks can report time by kind and the
// GF/s of the GEMM steps alone. Off by default; when off a run reads no clock.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <variant>

#include "engine/lower.h"

namespace laya {

struct StepProfile {
  static constexpr size_t kKinds = std::variant_size_v<Step>;
  std::array<double, kKinds> seconds{};
  std::array<int64_t, kKinds> calls{};
  std::array<double, kKinds> flops{};  // 2·m·n·k per GEMM, 4·queries·keys·64 per attention head; 0 elsewhere
  int64_t runs = 0;

  // The step kind of variant index `kind`: "gemm", "attention", "layer_norm", ...
  static const char* kind_name(size_t kind);
  StepProfile& operator+=(const StepProfile& other);
  // {"runs":2,"steps":[{"kind":"gemm","calls":..,"ms":..,"gflop":..}, ...]}, kinds never run left out.
  std::string to_json() const;
};

// The arithmetic of one step on the batch's real rows, as counted in StepProfile::flops.
double step_flops(const Step& step, const RowCounts& rows, const kernels::Packing& packing);

}  // namespace laya
