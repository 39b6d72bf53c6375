// Loading the weights into wasm memory, from a checked header to a bound model: the buffer the
// data section is streamed into, the GEMM matrices arranged into panels as their bytes arrive,
// and for WeightsMode::kQ8 the window a float checkpoint passes through to be quantized. It exists
// from planWeights to finishWeights and is consumed by finish, which yields the immutable model.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "engine/gemm_panels.h"
#include "kernels/compute.h"
#include "laya/config.h"
#include "laya/model.h"
#include "laya/q8_checkpoint.h"
#include "safetensors/header.h"
#include "session/cpu_backend.h"
#include "util/malloc_bytes.h"
#include "util/status.h"

namespace laya {

// Where the data section of model.safetensors goes: file byte i >= data_offset lives at
// pointer[i - data_offset].
struct WeightPlan {
  std::byte* pointer = nullptr;
  uint64_t data_offset = 0;
  uint64_t data_length = 0;
  // Quantizing while streaming (WeightsMode::kQ8 on a float checkpoint): the data section is not
  // written at `pointer` but passed through a staging window of `stage_bytes` at `stage`, one
  // window at a time, each reported with staged().
  std::byte* stage = nullptr;
  size_t stage_bytes = 0;
};

// How the weights are kept: as the file stores them, or quantized to q8 as they stream in
// (docs/q8-format.md; a checkpoint that already is q8 is kept as it is either way).
enum class WeightsMode { kAsStored, kQ8 };

// The staging window of WeightsMode::kQ8: the extra memory of quantizing while loading.
inline constexpr size_t kQ8StageBytes = size_t{1} << 20;

class WeightLoader {
 public:
  // Checks the header's tensors against the config (every problem in one error), plans the model
  // once, then allocates the buffer (out_of_memory if it cannot). `compute` goes to the bound model.
  static Result<std::unique_ptr<WeightLoader>> create(const LayaConfig& config, safetensors::Header header,
                                                      WeightsMode mode,
                                                      kernels::Compute compute = kernels::Compute::kF32);

  const WeightPlan& weight_plan() const { return weight_plan_; }
  // The buffer held for the data section.
  uint64_t bytes() const { return header_.data_length; }
  // kQ8 staging only: the next `bytes` (at most stage_bytes) of the data section are at `stage`.
  // They are quantized (or copied) into the weights buffer now, and the window may be reused.
  Status staged(size_t bytes);
  // Optional, as the data section arrives: its first `bytes` are written. GEMM matrices wholly
  // inside are arranged into panels now, overlapping the download.
  Status written(uint64_t bytes);
  // Binds the model's plan to the written weights, arranging the matrices not yet arranged.
  Result<std::unique_ptr<const BoundModel>> finish(const LayaConfig& config);

 private:
  WeightLoader() = default;

  safetensors::Header header_;  // of the data section held: the q8 one when quantizing
  WeightPlan weight_plan_;
  MallocBytes data_;
  std::unique_ptr<ModelPlan> plan_;
  std::unique_ptr<PanelArranger> panels_;
  std::unique_ptr<Q8Streamer> q8_streamer_;  // kQ8 staging only
  MallocBytes stage_;
  kernels::Compute compute_ = kernels::Compute::kF32;
};

}  // namespace laya
