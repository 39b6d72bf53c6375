// The two configs of a Laya checkpoint (laya-spec §1.2, §1.3, §1.6): `rl_agent_config.json` (the
// decision head, budgets, calibration) and `encoder/config.json` (Hugging Face ModernBERT, both the
// transformers 4 and 5 layouts). Parsing validates everything the graph builder and the answer
// code rely on, with laya-mlx's checks and messages; the shapes of the weights are checked later,
// against the safetensors header (laya/checkpoint.h).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "graph/graph.h"  // kHeadDim: every attention head in the encoder and the decision head is 64 wide
#include "util/status.h"

namespace laya {

// What a ModernBERT layer attends to: every key, or a window around the query.
enum class LayerKind { kGlobal, kSliding };

struct EncoderConfig {
  int64_t hidden_size = 0;        // d
  int64_t num_layers = 0;
  int64_t num_heads = 0;          // d / 64
  int64_t intermediate_size = 0;  // I: Wi has 2I rows
  int64_t vocab_size = 0;
  double norm_eps = 1e-5;
  int64_t local_attention = 128;  // the whole sliding window, both sides
  int64_t max_position_embeddings = 8192;
  std::vector<LayerKind> layer_kinds;  // one per layer
  double global_rope_theta = 160000.0;
  double local_rope_theta = 10000.0;

  // Keys at most this far from the query, on either side, in sliding layers (HF's sliding_window).
  int64_t window() const { return local_attention / 2; }
  double rope_theta(LayerKind kind) const {
    return kind == LayerKind::kGlobal ? global_rope_theta : local_rope_theta;
  }
};

struct LayaConfig {
  EncoderConfig encoder;
  std::string encoder_name;  // the Hub id in rl_agent_config.json's "encoder": identity only
  int64_t head_layers = 0;
  int64_t max_len = 512;
  int64_t head_max_len = 192;
  std::vector<std::string> act_costs;  // the act names, in file order; only their count matters
  // Raw calibration temperatures (choice, score, noul) and per-bucket ones in file order, as
  // written; the answer code clamps them (laya-spec §5.1).
  std::array<double, 3> temperature = {1.0, 1.0, 1.0};
  std::vector<std::pair<std::string, double>> temperature_by_options;
  std::optional<std::string> model_name;

  // A: the act head's logits, one per act cost plus "answer".
  int64_t act_outputs() const { return static_cast<int64_t>(act_costs.size()) + 1; }
};

// Parses and validates both configs. Malformed files are invalid_checkpoint; well-formed configs
// of a model this engine does not run (another encoder, biases, scaled RoPE, half-precision
// encoder) are unsupported_model. Messages start with the file name and name the field.
Result<LayaConfig> parse_config(std::string_view rl_agent_json, std::string_view encoder_json);

}  // namespace laya
