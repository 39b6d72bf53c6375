// Tensor names and shapes follow laya-spec §1.5 (PyTorch Linear weights are [out, in]). Matching is by
// exact name, or by one of the alternative spellings of MLX conversions; a file holding a tensor
// under two spellings is ambiguous and rejected.
#include "laya/checkpoint.h"

#include <unordered_map>
#include <unordered_set>

namespace laya {

namespace {

constexpr size_t kMaxListedProblems = 500;

class LayoutBuilder {
 public:
  WeightId add(std::string name, std::vector<int64_t> shape, std::vector<std::string> aliases = {}) {
    layout_.tensors.push_back(ExpectedTensor{std::move(name), std::move(aliases), std::move(shape)});
    return WeightId{static_cast<uint32_t>(layout_.tensors.size() - 1)};
  }
  CheckpointLayout& layout() { return layout_; }

 private:
  CheckpointLayout layout_;
};

}  // namespace

CheckpointLayout checkpoint_layout(const LayaConfig& config) {
  const EncoderConfig& e = config.encoder;
  const int64_t d = e.hidden_size;
  LayoutBuilder b;
  LayaWeights& w = b.layout().weights;

  w.tok_embeddings = b.add("encoder.embeddings.tok_embeddings.weight", {e.vocab_size, d});
  w.embeddings_norm = b.add("encoder.embeddings.norm.weight", {d});
  for (int64_t i = 0; i < e.num_layers; ++i) {
    const std::string p = "encoder.layers." + std::to_string(i) + ".";
    EncoderLayerWeights layer;
    if (i > 0) layer.attn_norm = b.add(p + "attn_norm.weight", {d});
    layer.wqkv = b.add(p + "attn.Wqkv.weight", {3 * d, d});
    layer.wo = b.add(p + "attn.Wo.weight", {d, d});
    layer.mlp_norm = b.add(p + "mlp_norm.weight", {d});
    layer.wi = b.add(p + "mlp.Wi.weight", {2 * e.intermediate_size, d});
    layer.mlp_wo = b.add(p + "mlp.Wo.weight", {d, e.intermediate_size});
    w.encoder_layers.push_back(layer);
  }
  w.final_norm = b.add("encoder.final_norm.weight", {d});
  w.type_emb = b.add("type_emb.weight", {3, d});

  for (int64_t j = 0; j < config.head_layers; ++j) {
    const std::string p = "head.layers." + std::to_string(j) + ".";
    HeadLayerWeights layer;
    layer.in_proj_w = b.add(p + "self_attn.in_proj_weight", {3 * d, d}, {p + "self_attn.in_proj.weight"});
    layer.in_proj_b = b.add(p + "self_attn.in_proj_bias", {3 * d}, {p + "self_attn.in_proj.bias"});
    layer.out_proj_w = b.add(p + "self_attn.out_proj.weight", {d, d});
    layer.out_proj_b = b.add(p + "self_attn.out_proj.bias", {d});
    layer.linear1_w = b.add(p + "linear1.weight", {4 * d, d});
    layer.linear1_b = b.add(p + "linear1.bias", {4 * d});
    layer.linear2_w = b.add(p + "linear2.weight", {d, 4 * d});
    layer.linear2_b = b.add(p + "linear2.bias", {d});
    layer.norm1_w = b.add(p + "norm1.weight", {d});
    layer.norm1_b = b.add(p + "norm1.bias", {d});
    layer.norm2_w = b.add(p + "norm2.weight", {d});
    layer.norm2_b = b.add(p + "norm2.bias", {d});
    w.head_layers.push_back(layer);
  }

  // nn.Sequential children by index; MLX conversions name them layers.<index>.
  auto sequential = [&](const std::string& module, int index, const std::string& param, std::vector<int64_t> shape) {
    const std::string i = std::to_string(index);
    return b.add(module + "." + i + "." + param, std::move(shape), {module + ".layers." + i + "." + param});
  };
  w.scorer_norm_w = sequential("scorer", 0, "weight", {d});
  w.scorer_norm_b = sequential("scorer", 0, "bias", {d});
  w.scorer_hidden_w = sequential("scorer", 1, "weight", {d, d});
  w.scorer_hidden_b = sequential("scorer", 1, "bias", {d});
  w.scorer_out_w = sequential("scorer", 3, "weight", {1, d});
  w.scorer_out_b = sequential("scorer", 3, "bias", {1});
  w.act_hidden_w = sequential("act_head", 0, "weight", {kActHeadHidden, d + 4});
  w.act_hidden_b = sequential("act_head", 0, "bias", {kActHeadHidden});
  w.act_out_w = sequential("act_head", 2, "weight", {config.act_outputs(), kActHeadHidden});
  w.act_out_b = sequential("act_head", 2, "bias", {config.act_outputs()});
  return std::move(b.layout());
}

const std::string* quantization_marker(const safetensors::Header& header) {
  for (const auto& [key, value] : header.metadata) {
    if (key == kQuantizationKey) return &value;
  }
  return nullptr;
}

bool is_q8_checkpoint(const safetensors::Header& header) {
  const std::string* marker = quantization_marker(header);
  return marker != nullptr && *marker == kQ8Marker;
}

const safetensors::TensorEntry* q8_scales_entry(const safetensors::Header& header, std::string_view name) {
  return header.find(std::string(name) + std::string(kQ8ScalesSuffix));
}

namespace {

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// Quantized layouts of other tools, told apart from a damaged file before the tensors are matched.
Status check_quantization(const safetensors::Header& header) {
  constexpr std::string_view kHint =
      "; laya-wasm reads F32, F16 and BF16 checkpoints and its own q8 format (docs/q8-format.md): quantize the "
      "original checkpoint with `laya-wasm quantize`";
  static constexpr std::pair<std::string_view, std::string_view> kForeign[] = {
      {".qweight", "GPTQ / AWQ"}, {".qzeros", "GPTQ / AWQ"}, {".g_idx", "GPTQ"},
      {".SCB", "bitsandbytes"},   {".weight_format", "bitsandbytes"}, {".absmax", "bitsandbytes"},
      {".quant_map", "bitsandbytes"}};
  for (const auto& t : header.tensors) {
    for (const auto& [suffix, tool] : kForeign) {
      if (ends_with(t.name, suffix)) {
        return unsupported_model("model.safetensors holds " + t.name + ", a " + std::string(tool) +
                                 " quantized layout" + std::string(kHint));
      }
    }
  }
  const std::string* marker = quantization_marker(header);
  if (marker != nullptr && *marker != kQ8Marker) {
    return unsupported_model("model.safetensors is quantized as \"" + *marker + "\" (__metadata__ " +
                             std::string(kQuantizationKey) + "), expected \"" + std::string(kQ8Marker) + "\"" +
                             std::string(kHint));
  }
  if (marker == nullptr) {
    for (const auto& t : header.tensors) {
      if (t.dtype == DType::kI8) {
        return unsupported_model("model.safetensors: tensor " + t.name + " is I8 but __metadata__ has no " +
                                 std::string(kQuantizationKey) + " = \"" + std::string(kQ8Marker) +
                                 "\" marker, so its scales and grouping are unknown" + std::string(kHint));
      }
    }
  }
  return {};
}

// A q8 checkpoint's extra rules for one matched tensor: an I8 tensor is a matrix with its scales,
// scales belong to an I8 matrix. The scales it claims are added to `claimed`.
void check_q8_tensor(const safetensors::Header& header, const safetensors::TensorEntry& t,
                     std::unordered_set<std::string_view>& claimed, std::vector<std::string>& problems) {
  const safetensors::TensorEntry* scales = q8_scales_entry(header, t.name);
  if (scales != nullptr) claimed.insert(scales->name);
  if (t.dtype != DType::kI8) {
    if (scales != nullptr) {
      problems.push_back(scales->name + " scales " + t.name + ", which is " + dtype_name(t.dtype) + ", not I8");
    }
    return;
  }
  if (t.shape.size() != 2) {
    problems.push_back(t.name + " is I8, but only matrices are quantized (vectors stay F32, F16 or BF16)");
    return;
  }
  if (scales == nullptr) {
    problems.push_back(t.name + " is I8 but has no scales (" + t.name + std::string(kQ8ScalesSuffix) + ")");
    return;
  }
  const std::vector<int64_t> want{t.shape[0], q8_groups(t.shape[1])};
  if (scales->dtype != DType::kF32) {
    problems.push_back(scales->name + " is " + dtype_name(scales->dtype) + ", expected F32");
  }
  if (scales->shape != want) {
    problems.push_back(scales->name + " has shape " + safetensors::shape_string(scales->shape) + ", expected " +
                       safetensors::shape_string(want) + " (one scale per group of " + std::to_string(kQ8Group) +
                       " of each row of " + t.name + " " + safetensors::shape_string(t.shape) + ")");
  }
}

}  // namespace

Result<std::vector<const safetensors::TensorEntry*>> match_tensors(const CheckpointLayout& layout,
                                                                   const safetensors::Header& header) {
  LAYA_RETURN_IF_ERROR(check_quantization(header));
  const bool q8 = is_q8_checkpoint(header);
  std::unordered_map<std::string_view, const safetensors::TensorEntry*> by_name;
  for (const auto& t : header.tensors) by_name.emplace(t.name, &t);
  std::unordered_set<std::string_view> claimed;
  std::vector<std::string> problems;
  std::vector<const safetensors::TensorEntry*> matched;
  matched.reserve(layout.tensors.size());

  auto check_shape = [&](const safetensors::TensorEntry& t, const std::vector<int64_t>& want) {
    if (t.shape != want) {
      problems.push_back(t.name + " has shape " + safetensors::shape_string(t.shape) + ", expected " +
                         safetensors::shape_string(want));
    }
  };

  for (const ExpectedTensor& want : layout.tensors) {
    std::vector<const safetensors::TensorEntry*> found;
    if (auto it = by_name.find(want.name); it != by_name.end()) found.push_back(it->second);
    for (const std::string& alias : want.aliases) {
      if (auto it = by_name.find(alias); it != by_name.end()) found.push_back(it->second);
    }
    for (const auto* t : found) claimed.insert(t->name);
    matched.push_back(found.empty() ? nullptr : found.front());
    if (found.empty()) {
      problems.push_back("missing " + want.name + " " + safetensors::shape_string(want.shape));
    } else if (found.size() > 1) {
      problems.push_back(found[0]->name + " and " + found[1]->name + " are two spellings of the same tensor");
    } else {
      check_shape(*found.front(), want.shape);
      if (q8) check_q8_tensor(header, *found.front(), claimed, problems);
    }
  }
  if (auto it = by_name.find(kTemperatureBuffer); it != by_name.end()) {
    claimed.insert(it->second->name);
    check_shape(*it->second, {3});
    if (q8) check_q8_tensor(header, *it->second, claimed, problems);
  }
  for (const auto& t : header.tensors) {
    if (!claimed.count(t.name)) problems.push_back("unexpected " + t.name + " " + safetensors::shape_string(t.shape));
  }

  if (problems.empty()) return matched;
  std::string message = "model.safetensors does not match the configs: ";
  if (problems.size() > 1) message += std::to_string(problems.size()) + " problems: ";
  for (size_t i = 0; i < problems.size() && i < kMaxListedProblems; ++i) {
    if (i > 0) message += "; ";
    message += problems[i];
  }
  if (problems.size() > kMaxListedProblems) {
    message += "; ... and " + std::to_string(problems.size() - kMaxListedProblems) + " more";
  }
  return invalid_checkpoint(std::move(message));
}

Status check_tensors(const LayaConfig& config, const safetensors::Header& header) {
  return match_tensors(checkpoint_layout(config), header).status();
}

}  // namespace laya
