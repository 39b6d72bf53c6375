// A Laya model bound to its weights (laya-spec §3, architecture "Weights stay where the loader streamed
// them"): matrices are views into the checkpoint's data section in their stored dtype; every 1-D
// weight (norm weights, biases) is converted to f32 once, into a side buffer the model owns. The
// decision and embedding graphs refer to the weights by id.
#pragma once

#include <cstddef>
#include <memory>

#include "graph/graph.h"
#include "graph/weights.h"
#include "laya/checkpoint.h"
#include "laya/config.h"
#include "safetensors/header.h"
#include "util/status.h"

namespace laya {

// The model before its weights are read, from the configs and the header alone: the graphs, and a
// table viewing every tensor in the data section as stored (1-D weights not yet converted). The
// loader plans with it how to arrange the matrices while their bytes stream in.
struct ModelPlan {
  LayaWeights ids;      // which weight is which
  WeightTable weights;  // weights[id.index], viewing `data` in the stored dtype and layout
  Graph decision;
  Graph embedding;
};

// Checks the header against the config (every mismatch in one error) and plans. `data` is where
// the data section is or will be; nothing is read from it.
Result<ModelPlan> plan_model(const LayaConfig& config, const safetensors::Header& header, const std::byte* data);

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

// Plans (plan_model), then binds. `data` points at the data section (header.data_offset bytes into
// the file) with all header.data_length bytes present. A 1-D weight holding NaN or Inf is
// invalid_checkpoint, naming it.
Result<LayaModel> bind_model(const LayaConfig& config, const safetensors::Header& header, const std::byte* data);

}  // namespace laya
