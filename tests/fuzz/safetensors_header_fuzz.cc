// libFuzzer harness: a safetensors prefix as the loader sees it (safetensors/header.h): the 8-byte
// length, the header JSON, then check_tensors against the tiny-fanin reference config. The input
// is the start of a file whose total size is the input size (or, per the first byte, far larger,
// so huge declared offsets meet a file that could hold them).
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "fuzz_common.h"
#include "laya/checkpoint.h"
#include "laya/config.h"
#include "safetensors/header.h"

namespace {

const laya::LayaConfig& reference_config() {
  static const laya::LayaConfig config = [] {
    auto parsed = laya::parse_config(laya::fuzz::read_fixture("reference/tiny-fanin/checkpoint/rl_agent_config.json"),
                                     laya::fuzz::read_fixture("reference/tiny-fanin/checkpoint/encoder/config.json"));
    if (!parsed.ok()) __builtin_trap();
    return parsed.value();
  }();
  return config;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  // The first byte picks how large the whole file claims to be; the rest is the file's start.
  const uint64_t file_size = (data[0] & 1) ? (size - 1) + (uint64_t{1} << (data[0] >> 1 & 63)) : size - 1;
  auto bytes = std::span(reinterpret_cast<const std::byte*>(data + 1), size - 1);
  if (bytes.size() < 8) return 0;
  auto length = laya::safetensors::read_header_length(bytes.first<8>(), file_size);
  if (!length.ok()) return 0;
  const uint64_t n = length.value();
  if (n > bytes.size() - 8) return 0;  // the loader would wait for more bytes
  const std::string_view json(reinterpret_cast<const char*>(bytes.data()) + 8, n);
  auto header = laya::safetensors::parse_header(json, file_size);
  if (!header.ok()) return 0;
  // A header that passed tiles the data section exactly.
  uint64_t covered = 0;
  for (const auto& t : header.value().tensors) {
    if (t.end < t.begin || t.end > header.value().data_length) __builtin_trap();
    covered += t.byte_size();
  }
  if (covered != header.value().data_length) __builtin_trap();
  (void)laya::check_tensors(reference_config(), header.value());
  return 0;
}
