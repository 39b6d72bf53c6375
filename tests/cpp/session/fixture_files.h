// Reading the shared fixtures from tests: whole files, and a Session loaded from a checkpoint
// directory the way the TypeScript loader does it (header first, then the data section written
// into the planned buffer).
#pragma once

#include <doctest/doctest.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "session/session.h"

namespace laya::testing {

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "cannot open " << path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline std::string reference_dir(const char* name) {
  return std::string(LAYA_SHARED_DIR) + "/fixtures/reference/" + name;
}

inline void configure_from(Session& session, const std::string& checkpoint) {
  Status s = session.configure(read_file(checkpoint + "/rl_agent_config.json"),
                               read_file(checkpoint + "/encoder/config.json"),
                               read_file(checkpoint + "/tokenizer/tokenizer.json"),
                               read_file(checkpoint + "/tokenizer/tokenizer_config.json"));
  REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message));
}

inline void load_weights(Session& session, const std::string& checkpoint) {
  const std::string file = read_file(checkpoint + "/model.safetensors");
  auto bytes = std::span(reinterpret_cast<const std::byte*>(file.data()), file.size());
  auto needed = session.header_bytes_needed(bytes.first(8), file.size());
  REQUIRE(needed.ok());
  auto plan = session.plan_weights(bytes.first(needed.value()), file.size());
  REQUIRE_MESSAGE(plan.ok(), (plan.ok() ? "" : plan.error().message));
  std::memcpy(plan.value().pointer, file.data() + plan.value().data_offset, plan.value().data_length);
  Status s = session.finish_weights();
  REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message));
}

}  // namespace laya::testing
