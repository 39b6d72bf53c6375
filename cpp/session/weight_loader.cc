// Streaming the weights into wasm memory and binding them (see weight_loader.h).
#include "session/weight_loader.h"

#include <cstdlib>
#include <string>
#include <utility>

#include "laya/checkpoint.h"

namespace laya {

Result<std::unique_ptr<WeightLoader>> WeightLoader::create(const LayaConfig& config, safetensors::Header header,
                                                           WeightsMode mode, kernels::Compute compute) {
  std::unique_ptr<WeightLoader> loader(new WeightLoader());
  loader->compute_ = compute;
  // Quantizing while loading: the buffer holds the q8 data section, planned from the header alone,
  // and the bytes pass through a staging window; a q8 checkpoint is kept as it is.
  std::optional<safetensors::Header> source;
  std::optional<Q8Plan> q8;
  if (mode == WeightsMode::kQ8 && !is_q8_checkpoint(header)) {
    LAYA_RETURN_IF_ERROR(check_tensors(config, header));  // the file's tensors, before quantizing them
    LAYA_ASSIGN_OR_RETURN(Q8Plan planned, plan_q8(header));
    source = std::move(header);
    header = planned.header;
    q8 = std::move(planned);
  }
  // The model's plan, derived once: its check of the tensors comes before any allocation.
  LAYA_ASSIGN_OR_RETURN(ModelPlan plan, plan_model(config, header, nullptr));

  // 64-byte aligned so the data section starts on a cache line; at least one byte so an empty
  // data section still gets a distinct pointer.
  const uint64_t length = header.data_length;
  if (length > SIZE_MAX - 64) {
    return out_of_memory("model.safetensors: a data section of " + std::to_string(length) +
                         " bytes does not fit in this address space");
  }
  void* p = std::aligned_alloc(64, (static_cast<size_t>(length) + 64) / 64 * 64);
  if (p == nullptr) {
    return out_of_memory("model.safetensors: cannot allocate " + std::to_string(length) +
                         " bytes of wasm memory for the weights");
  }
  loader->data_.reset(static_cast<std::byte*>(p));
  place_model(plan, loader->data_.get());
  // Which matrices become GEMM panels, from the plan.
  const Graph* graphs[] = {&plan.decision, &plan.embedding};
  LAYA_ASSIGN_OR_RETURN(PanelArranger panels,
                        PanelArranger::create(graphs, plan.weights, {loader->data_.get(), static_cast<size_t>(length)}));
  loader->panels_ = std::make_unique<PanelArranger>(std::move(panels));
  loader->plan_ = std::make_unique<ModelPlan>(std::move(plan));
  if (q8) {
    loader->stage_.reset(static_cast<std::byte*>(std::malloc(kQ8StageBytes)));
    if (!loader->stage_) {
      return out_of_memory("model.safetensors: cannot allocate the " + std::to_string(kQ8StageBytes) +
                           "-byte window that quantizes the weights to q8 as they arrive");
    }
    loader->q8_streamer_ = std::make_unique<Q8Streamer>(*source, *q8, loader->data_.get());
    loader->weight_plan_ = {loader->data_.get(), source->data_offset, source->data_length, loader->stage_.get(),
                            kQ8StageBytes};
  } else {
    loader->weight_plan_ = {loader->data_.get(), header.data_offset, header.data_length};
  }
  loader->header_ = std::move(header);
  return loader;
}

Status WeightLoader::staged(size_t bytes) {
  if (!q8_streamer_) return invalid_request("weightsStaged: the weights were not planned to be quantized while loading");
  if (bytes > kQ8StageBytes) {
    return invalid_request("weightsStaged: " + std::to_string(bytes) + " bytes is more than the " +
                           std::to_string(kQ8StageBytes) + "-byte window");
  }
  LAYA_RETURN_IF_ERROR(q8_streamer_->consume({stage_.get(), bytes}));
  panels_->arrange_written(static_cast<size_t>(q8_streamer_->target_written()));
  return {};
}

Status WeightLoader::written(uint64_t bytes) {
  if (q8_streamer_) return invalid_request("weightsWritten: these weights are quantized while loading: use weightsStaged");
  panels_->arrange_written(static_cast<size_t>(std::min(bytes, header_.data_length)));
  return {};
}

Result<std::unique_ptr<const BoundModel>> WeightLoader::finish(const LayaConfig& config) {
  if (q8_streamer_ && !q8_streamer_->done()) {
    return invalid_checkpoint("model.safetensors: the data section ended before every weight was quantized");
  }
  LAYA_ASSIGN_OR_RETURN(LayaModel model, bind_model(config, std::move(*plan_)));
  panels_->finish(model.weights);
  auto bound = std::make_unique<BoundModel>();
  bound->data = std::move(data_);
  bound->data_length = header_.data_length;
  bound->model = std::move(model);
  bound->compute = compute_;
  return std::unique_ptr<const BoundModel>(std::move(bound));
}

}  // namespace laya
