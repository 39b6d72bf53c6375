// Shared by the libFuzzer harnesses: whole fixture files read once at start-up (the English
// tokenizer, the reference configs), and splitting one fuzz input into two documents.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>

namespace laya::fuzz {

// A fixture the harness cannot run without: a missing file is a setup error, not a finding.
inline std::string read_fixture(const std::string& relative) {
  const std::string path = std::string(LAYA_FIXTURES_DIR) + "/" + relative;
  std::ifstream in(path, std::ios::binary);
  if (!in.good()) {
    std::fprintf(stderr, "fuzz harness: cannot open %s\n", path.c_str());
    std::abort();
  }
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Two documents in one input, separated by the first NUL byte (the second is empty without one):
// keeps the seeds readable and lets the fuzzer grow either half.
inline std::pair<std::string_view, std::string_view> split_at_nul(std::string_view input) {
  const size_t cut = input.find('\0');
  if (cut == std::string_view::npos) return {input, {}};
  return {input.substr(0, cut), input.substr(cut + 1)};
}

}  // namespace laya::fuzz
