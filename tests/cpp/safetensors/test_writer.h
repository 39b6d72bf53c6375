// Test support: builds safetensors files in memory from a list of tensors (offsets laid end to end,
// as the real writer does), or from a hand-written header for hostile cases.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace laya::testing {

struct TensorSpec {
  std::string name;
  std::string dtype;  // as written in the header, e.g. "F16"
  std::vector<int64_t> shape;
  std::vector<std::byte> bytes;
};

inline std::string shape_json(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

// The header of `tensors` stored back to back in the order given.
inline std::string header_json_for(const std::vector<TensorSpec>& tensors,
                                   std::string_view metadata = R"({"format":"pt"})") {
  std::string h = "{";
  if (!metadata.empty()) h += "\"__metadata__\":" + std::string(metadata);
  size_t offset = 0;
  for (const TensorSpec& t : tensors) {
    if (h.size() > 1) h += ",";
    h += "\"" + t.name + "\":{\"dtype\":\"" + t.dtype + "\",\"shape\":" + shape_json(t.shape) +
         ",\"data_offsets\":[" + std::to_string(offset) + "," + std::to_string(offset + t.bytes.size()) + "]}";
    offset += t.bytes.size();
  }
  return h + "}";
}

// 8-byte little-endian length, the header, then `data`.
inline std::vector<std::byte> file_with_header(std::string_view header, const std::vector<std::byte>& data) {
  std::vector<std::byte> file(8);
  uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) file[i] = static_cast<std::byte>((n >> (8 * i)) & 0xFF);
  for (char c : header) file.push_back(static_cast<std::byte>(c));
  file.insert(file.end(), data.begin(), data.end());
  return file;
}

inline std::vector<std::byte> safetensors_file(const std::vector<TensorSpec>& tensors) {
  std::vector<std::byte> data;
  for (const TensorSpec& t : tensors) data.insert(data.end(), t.bytes.begin(), t.bytes.end());
  return file_with_header(header_json_for(tensors), data);
}

template <class T>
std::vector<std::byte> raw_bytes(const std::vector<T>& values) {
  std::vector<std::byte> out(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(out.data(), values.data(), out.size());
  return out;
}

}  // namespace laya::testing
