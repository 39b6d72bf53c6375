// Reading the shared fixtures from tests: whole files, and a Session loaded from a checkpoint
// directory the way the TypeScript loader does it (header first, then the data section written
// into the planned buffer).
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
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
  return std::string(LAYA_FIXTURES_DIR) + "/reference/" + name;
}

inline void configure_from(Session& session, const std::string& checkpoint) {
  Status s = session.configure(read_file(checkpoint + "/rl_agent_config.json"),
                               read_file(checkpoint + "/encoder/config.json"),
                               read_file(checkpoint + "/tokenizer/tokenizer.json"),
                               read_file(checkpoint + "/tokenizer/tokenizer_config.json"));
  REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message));
}

// The data section is written in chunks of `chunk` bytes, each reported with weights_written as
// the loader does; with chunk 0 it is written at once and never reported.
inline void load_weights(Session& session, const std::string& checkpoint, size_t chunk = 4096) {
  const std::string file = read_file(checkpoint + "/model.safetensors");
  auto bytes = std::span(reinterpret_cast<const std::byte*>(file.data()), file.size());
  auto needed = session.header_bytes_needed(bytes.first(8), file.size());
  REQUIRE(needed.ok());
  auto plan = session.plan_weights(bytes.first(needed.value()), file.size());
  REQUIRE_MESSAGE(plan.ok(), (plan.ok() ? "" : plan.error().message));
  const size_t length = plan.value().data_length;
  const char* data = file.data() + plan.value().data_offset;
  if (chunk == 0) {
    std::memcpy(plan.value().pointer, data, length);
  } else {
    for (size_t at = 0; at < length; at += chunk) {
      const size_t n = std::min(chunk, length - at);
      std::memcpy(plan.value().pointer + at, data + at, n);
      REQUIRE(session.weights_written(at + n).ok());
    }
  }
  Status s = session.finish_weights();
  REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message));
}

// The tiny-fanin reference checkpoint loaded once per test binary, for tests of requests rather
// than of loading. Never freed: it lives as long as the process.
inline Session& tiny_session() {
  static Session* session = [] {
    auto* s = new Session;
    const std::string dir = reference_dir("tiny-fanin") + "/checkpoint";
    configure_from(*s, dir);
    load_weights(*s, dir);
    return s;
  }();
  return *session;
}

}  // namespace laya::testing
