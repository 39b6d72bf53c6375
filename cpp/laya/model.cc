// Binding walks the checkpoint layout once: each matched tensor becomes a WeightView, vectors
// converted to f32 as they are bound (laya-spec §1.5: F16 values converted exactly) and checked finite,
// matrices left in place for the GEMM to convert as it packs its panels.
#include "laya/model.h"

#include <cmath>
#include <span>
#include <string>
#include <vector>

#include "graph/half.h"
#include "graph/q8.h"
#include "laya/graphs.h"

namespace laya {

namespace {

// A norm weight or a bias that is NaN or Inf makes every output it feeds non-finite (LayerNorm and
// the GEMMs spread it across the row), so no question could be answered: the checkpoint is refused
// here, where the vectors are converted anyway. Matrices are not scanned (that would read the
// whole file again); a non-finite matrix value fails the questions it reaches (decide/answer.h).
Status check_finite_vector(const std::string& name, std::span<const float> values) {
  for (size_t i = 0; i < values.size(); ++i) {
    if (!std::isfinite(values[i])) {
      const char* value = std::isnan(values[i]) ? "nan" : values[i] > 0 ? "inf" : "-inf";
      return invalid_checkpoint("model.safetensors: " + name + " holds " + value + " at element " + std::to_string(i) +
                                "; a norm weight or bias that is not finite makes every output non-finite");
    }
  }
  return {};
}

// A q8 scale must be a finite number >= 0 (scale = max|w| / 127); anything else is a damaged or
// foreign file. The scales are a 64th of the matrix, so all of them are read (in whatever layout
// they are in by now: the check is on values, not positions). A zero scale reads its group as zeros.
Status check_q8_scales(const WeightView& view) {
  const int64_t count = view.shape[0] * q8_groups(view.shape[1]);
  for (int64_t i = 0; i < count; ++i) {
    const float s = load_scale(view.scales + i * sizeof(float));
    if (!(s >= 0.0f) || !std::isfinite(s)) {
      const std::string value = std::isnan(s) ? "nan" : std::isinf(s) ? (s > 0 ? "inf" : "-inf") : std::to_string(s);
      return invalid_checkpoint("model.safetensors: " + view.name + std::string(kQ8ScalesSuffix) + " holds a scale of " +
                                value + "; q8 scales must be finite and >= 0");
    }
  }
  return {};
}

}  // namespace

Result<ModelPlan> plan_model(const LayaConfig& config, const safetensors::Header& header, const std::byte* data) {
  CheckpointLayout layout = checkpoint_layout(config);
  LAYA_ASSIGN_OR_RETURN(auto entries, match_tensors(layout, header));
  ModelPlan plan;
  plan.ids = layout.weights;
  plan.weights.reserve(entries.size());
  for (const auto* entry : entries) {
    plan.weights.push_back({.name = entry->name, .dtype = entry->dtype, .shape = entry->shape});
    plan.bytes.push_back({.begin = entry->begin, .end = entry->end});
    if (entry->dtype == DType::kI8) {
      // match_tensors checked the scales are there, F32 and one per group.
      const safetensors::TensorEntry* scales = q8_scales_entry(header, entry->name);
      plan.bytes.back().scales_begin = scales->begin;
      plan.bytes.back().scales_end = scales->end;
    }
  }
  plan.decision = build_decision_graph(config, plan.ids);
  plan.embedding = build_embedding_graph(config, plan.ids);
  // The views' addresses come from `bytes`, in one place.
  if (data != nullptr) place_model(plan, data);
  return plan;
}

void place_model(ModelPlan& plan, const std::byte* data) {
  for (size_t i = 0; i < plan.weights.size(); ++i) {
    WeightView& view = plan.weights[i];
    view.data = data + plan.bytes[i].begin;
    view.scales = view.dtype == DType::kI8 ? data + plan.bytes[i].scales_begin : nullptr;
  }
}

Status check_vector(const WeightView& view, std::span<const std::byte> bytes) {
  if (view.shape.size() != 1) return internal_error("check_vector: " + view.name + " is not a vector");
  const auto count = static_cast<size_t>(view.shape[0]);
  if (bytes.size() != count * dtype_size(view.dtype)) {
    return invalid_request("check_vector: " + view.name + " has " + std::to_string(count * dtype_size(view.dtype)) +
                           " bytes, got " + std::to_string(bytes.size()));
  }
  std::vector<float> values(count);
  convert_to_f32(view.dtype, bytes.data(), count, values.data());
  return check_finite_vector(view.name, values);
}

Result<LayaModel> bind_model(const LayaConfig& config, const safetensors::Header& header, const std::byte* data) {
  if (data == nullptr && header.data_length > 0) {
    return internal_error("bind_model: the data section of model.safetensors is missing");
  }
  LAYA_ASSIGN_OR_RETURN(ModelPlan plan, plan_model(config, header, data));
  return bind_model(config, std::move(plan));
}

Result<LayaModel> bind_model(const LayaConfig& config, ModelPlan plan) {
  for (const WeightView& view : plan.weights) {
    if (view.data == nullptr && view.elements() > 0) {
      return internal_error("bind_model: " + view.name + " has no data; plan with the data section's address");
    }
  }
  size_t vector_floats = 0;
  for (const WeightView& view : plan.weights) {
    if (view.shape.size() == 1) vector_floats += static_cast<size_t>(view.shape[0]);
  }
  LayaModel model;
  model.config = config;
  model.ids = plan.ids;
  model.vectors = std::make_unique<float[]>(vector_floats);
  model.weights = std::move(plan.weights);
  model.decision = std::move(plan.decision);
  model.embedding = std::move(plan.embedding);
  size_t next_vector = 0;
  for (WeightView& view : model.weights) {
    if (view.dtype == DType::kI8) LAYA_RETURN_IF_ERROR(check_q8_scales(view));
    if (view.shape.size() != 1) continue;
    float* out = model.vectors.get() + next_vector;
    const auto count = static_cast<size_t>(view.shape[0]);
    convert_to_f32(view.dtype, view.data, count, out);
    LAYA_RETURN_IF_ERROR(check_finite_vector(view.name, std::span<const float>(out, count)));
    view.dtype = DType::kF32;
    view.data = reinterpret_cast<const std::byte*>(out);
    next_vector += count;
  }
  return model;
}

}  // namespace laya
