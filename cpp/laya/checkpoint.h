// The tensors a Laya config implies (laya-spec §1.5) and the check of a safetensors header against them
// (laya-spec §1.6), which runs on the header alone, before any weight byte arrives. The layout below is
// the single list of Laya's tensors: it gives each its WeightId, which the graph builder uses.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graph/weights.h"
#include "laya/config.h"
#include "safetensors/header.h"
#include "util/status.h"

namespace laya {

// The act head's hidden width, fixed by upstream's DecisionModel (laya-spec §1.5: act_head.0 is
// [256, d+4] in every checkpoint).
inline constexpr int64_t kActHeadHidden = 256;

struct ExpectedTensor {
  std::string name;                  // upstream's spelling
  std::vector<std::string> aliases;  // spellings of MLX conversions, also accepted (laya-spec §1.5)
  std::vector<int64_t> shape;
};

struct EncoderLayerWeights {
  std::optional<WeightId> attn_norm;  // none on layer 0 (laya-spec §3.3): attention reads the residual
  WeightId wqkv, wo, mlp_norm, wi, mlp_wo;
};

struct HeadLayerWeights {
  WeightId in_proj_w, in_proj_b, out_proj_w, out_proj_b;
  WeightId linear1_w, linear1_b, linear2_w, linear2_b;
  WeightId norm1_w, norm1_b, norm2_w, norm2_b;
};

// Every weight the graphs use, as ids into the layout's tensor list.
struct LayaWeights {
  WeightId tok_embeddings, embeddings_norm;
  std::vector<EncoderLayerWeights> encoder_layers;
  WeightId final_norm, type_emb;
  std::vector<HeadLayerWeights> head_layers;
  WeightId scorer_norm_w, scorer_norm_b, scorer_hidden_w, scorer_hidden_b, scorer_out_w, scorer_out_b;
  WeightId act_hidden_w, act_hidden_b, act_out_w, act_out_b;
};

struct CheckpointLayout {
  std::vector<ExpectedTensor> tensors;  // tensors[id.index] is the tensor of WeightId id, module order
  LayaWeights weights;
};

CheckpointLayout checkpoint_layout(const LayaConfig& config);

// The calibration buffer every published checkpoint carries (laya-spec §1.2): allowed with shape [3] in
// any float dtype, never used (calibration comes from rl_agent_config.json).
inline constexpr std::string_view kTemperatureBuffer = "temperature";

// q8 checkpoints (docs/q8-format.md): `__metadata__` carries kQuantizationKey = kQ8Marker; each
// quantized matrix is an I8 tensor under the weight's own name and shape, with its scales beside it
// as `<name>.q8_scales`, F32 [n, q8_groups(k)]. Vectors stay float.
inline constexpr std::string_view kQuantizationKey = "laya_quantization";
inline constexpr std::string_view kQ8Marker = "q8_sym_g64";
inline constexpr std::string_view kQ8ScalesSuffix = ".q8_scales";

// The marker's value, or nullptr when the header has none.
const std::string* quantization_marker(const safetensors::Header& header);
bool is_q8_checkpoint(const safetensors::Header& header);
// The scales entry of the q8 matrix `name`, nullptr if absent.
const safetensors::TensorEntry* q8_scales_entry(const safetensors::Header& header, std::string_view name);

// The header entry of each expected tensor (in layout order, under whichever accepted spelling the
// file uses), or one invalid_checkpoint error listing every missing tensor with its expected
// shape, every shape mismatch and every unexpected tensor. In a q8 checkpoint an I8 matrix needs its
// scales (F32, one per group of 64 of each row) and scales need an I8 matrix; vectors are never I8.
// Other tools' quantized layouts (GPTQ / AWQ qweight, bitsandbytes SCB, I8 without the marker, a
// marker of another scheme) are unsupported_model.
Result<std::vector<const safetensors::TensorEntry*>> match_tensors(const CheckpointLayout& layout,
                                                                   const safetensors::Header& header);

Status check_tensors(const LayaConfig& config, const safetensors::Header& header);

}  // namespace laya
