// The safetensors header (laya-spec §1.5), read and validated before any weight byte arrives: an 8-byte
// little-endian length N, N bytes of JSON mapping tensor names to {dtype, shape, data_offsets}, then
// the data. A header that passes here describes tensors that tile the data section exactly, so
// later code can trust every offset and size in it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "graph/weights.h"
#include "util/status.h"

namespace laya::safetensors {

// Real headers are a few kB to a few hundred kB; anything this large is not a checkpoint.
inline constexpr uint64_t kMaxHeaderLength = 100'000'000;

struct TensorEntry {
  std::string name;
  DType dtype = DType::kF32;
  std::vector<int64_t> shape;
  uint64_t begin = 0;  // byte offsets into the data section, [begin, end)
  uint64_t end = 0;

  uint64_t byte_size() const { return end - begin; }
};

struct Header {
  std::vector<TensorEntry> tensors;  // in header order
  std::vector<std::pair<std::string, std::string>> metadata;  // `__metadata__`, in header order
  uint64_t data_offset = 0;  // where the data section starts in the file: 8 + N
  uint64_t data_length = 0;  // file size - data_offset, every byte of it covered by a tensor

  const TensorEntry* find(std::string_view name) const;  // nullptr when absent
};

// "[64, 128]", the way messages write a shape.
std::string shape_string(const std::vector<int64_t>& shape);

// How messages name the file when the caller does not (the session says "model.safetensors").
inline constexpr std::string_view kDefaultFileName = "the safetensors file";

// The header length N from the first 8 bytes of a file of `file_size` bytes. A file that ends
// inside its header is reported as truncated, naming it `file_name`.
Result<uint64_t> read_header_length(std::span<const std::byte, 8> prefix, uint64_t file_size,
                                    std::string_view file_name = kDefaultFileName);

// Parses and checks the N header bytes. Reports every problem with the tensors in one error
// (invalid_checkpoint), or unsupported_model when the only problem is a dtype other than
// F32 / F16 / BF16 / I8 (whether an I8 tensor is a q8 weight is the checkpoint's question,
// laya/checkpoint.h). A file cut short (a download that stopped early) has a good header whose
// tensors run past its end: that is one line, "<file_name> is truncated: its header needs N bytes,
// only M are present", rather than a problem per tensor.
Result<Header> parse_header(std::string_view header_json, uint64_t file_size,
                            std::string_view file_name = kDefaultFileName);

// Both steps on a file held whole in memory (native tools, tests); the data section then starts
// at file.data() + header.data_offset.
Result<Header> parse_file_header(std::span<const std::byte> file, std::string_view file_name = kDefaultFileName);

}  // namespace laya::safetensors
