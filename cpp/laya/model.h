// A Laya model bound to its weights (laya-spec §3, architecture "Weights stay where the loader streamed
// them"): matrices are views into the checkpoint's data section in their stored dtype; every 1-D
// weight (norm weights, biases) is converted to f32 once, into a side buffer the model owns. The
// decision and embedding graphs refer to the weights by id.
#pragma once

#include <cstddef>
#include <memory>
#include <span>

#include "graph/graph.h"
#include "graph/weights.h"
#include "laya/checkpoint.h"
#include "laya/config.h"
#include "safetensors/header.h"
#include "util/status.h"

namespace laya {

// Where a weight's bytes sit in the data section, [begin, end), and for a q8 matrix its scales'.
struct TensorBytes {
  uint64_t begin = 0;
  uint64_t end = 0;
  uint64_t scales_begin = 0;
  uint64_t scales_end = 0;
};

// The model before its weights are read, from the configs and the header alone: the graphs, and a
// table viewing every tensor in the data section as stored (1-D weights not yet converted). The
// loader plans with it how to arrange the matrices while their bytes stream in; a backend whose
// weights live elsewhere (the GPU) uploads them by `bytes`.
struct ModelPlan {
  LayaWeights ids;      // which weight is which
  WeightTable weights;  // weights[id.index], viewing `data` in the stored dtype and layout
  std::vector<TensorBytes> bytes;  // bytes[id.index]
  Graph decision;
  Graph embedding;
};

// Checks the header against the config (every mismatch in one error) and plans. `data` is where
// the data section is or will be; nothing is read from it. Null: the data section is not in this
// memory (the views then have no data, and `bytes` says where each tensor is).
Result<ModelPlan> plan_model(const LayaConfig& config, const safetensors::Header& header, const std::byte* data);

// Points a plan's views at a data section now at `data` (planned with null before the buffer
// existed): each view's data and scales are `data` plus its `bytes`.
void place_model(ModelPlan& plan, const std::byte* data);

// A 1-D weight's stored bytes (`view.dtype`, `view.shape[0]` elements), checked as binding checks
// them: a NaN or Inf is invalid_checkpoint naming the tensor. For a backend that keeps the vectors
// itself (the GPU) and shows them to the engine only to be checked.
Status check_vector(const WeightView& view, std::span<const std::byte> bytes);

// Move-only: the weight table points into `vectors` (and into the caller's data section, which
// must outlive the model).
struct LayaModel {
  LayaConfig config;
  LayaWeights ids;      // which weight is which
  WeightTable weights;  // weights[id.index]; matrices view the data section, vectors view `vectors`
  std::unique_ptr<float[]> vectors;  // f32 copies of every 1-D weight, back to back
  Graph decision;
  Graph embedding;
};

// Binds a plan whose views have their data (plan_model with the data section's address): the
// model's plan is derived once, at planning, and the binder converts its vectors.
Result<LayaModel> bind_model(const LayaConfig& config, ModelPlan plan);

// Plans (plan_model), then binds. `data` points at the data section (header.data_offset bytes into
// the file) with all header.data_length bytes present. A 1-D weight holding NaN or Inf is
// invalid_checkpoint, naming it.
Result<LayaModel> bind_model(const LayaConfig& config, const safetensors::Header& header, const std::byte* data);

}  // namespace laya
