// Test support for the laya tests: reading the shared reference fixtures and a tiny config.
#pragma once

#include <doctest/doctest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "laya/config.h"

namespace laya::testing {

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline std::vector<std::byte> read_bytes(const std::string& path) {
  std::string text = read_text(path);
  std::vector<std::byte> bytes(text.size());
  std::memcpy(bytes.data(), text.data(), text.size());
  return bytes;
}

inline std::string reference_checkpoint_dir(const std::string& set) {
  return std::string(LAYA_FIXTURES_DIR) + "/reference/" + set + "/checkpoint/";
}

inline LayaConfig reference_config(const std::string& set) {
  const std::string dir = reference_checkpoint_dir(set);
  auto config = parse_config(read_text(dir + "rl_agent_config.json"), read_text(dir + "encoder/config.json"));
  REQUIRE_MESSAGE(config.ok(), config.error().message);
  return config.value();
}

// d = 64 (one head), 3 encoder layers (global, sliding, sliding by the v4 default), I = 32,
// vocab 10, window ±4, one head layer, three act costs (A = 4).
inline LayaConfig tiny_config(const std::string& extra_encoder_fields = "") {
  const std::string agent = R"({"encoder": "tiny", "head_layers": 1, "max_len": 32, "head_max_len": 16,
      "act_costs": {"a": 1, "b": 2, "c": 3}})";
  const std::string encoder = R"({"model_type": "modernbert", "hidden_size": 64, "num_hidden_layers": 3,
      "num_attention_heads": 1, "intermediate_size": 32, "vocab_size": 10, "local_attention": 8,
      "norm_eps": 1e-06)" + extra_encoder_fields + "}";
  auto config = parse_config(agent, encoder);
  REQUIRE_MESSAGE(config.ok(), config.error().message);
  return config.value();
}

}  // namespace laya::testing
