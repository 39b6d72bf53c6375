// Shared by the tok tests: reading fixture files and loading the tokenizers they use.
#pragma once

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "tok/tokenizer.h"

namespace laya::tok::testing {

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "cannot open " << path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::string fixture_path(const std::string& rel) { return std::string(LAYA_FIXTURES_DIR) + "/" + rel; }
inline std::string data_path(const std::string& rel) { return std::string(LAYA_TEST_DATA_DIR) + "/" + rel; }

// Loads tokenizer.json + tokenizer_config.json from a directory.
inline Tokenizer load_dir(const std::string& dir) {
  auto t = Tokenizer::load(read_file(dir + "/tokenizer.json"), read_file(dir + "/tokenizer_config.json"));
  REQUIRE_MESSAGE(t.ok(), (t.ok() ? "" : t.error().message));
  return std::move(t).value();
}

// The English (ModernBERT) tokenizer of the upstream fixtures, loaded once per test binary.
inline const Tokenizer& english() {
  static const Tokenizer t = load_dir(fixture_path("upstream/english/tokenizer"));
  return t;
}

}  // namespace laya::tok::testing
