// Header validation collects every problem it finds (one message lists them all) except JSON syntax
// errors, which stop at the first. The checks are kime's: sizes match shapes and dtypes, ranges lie
// in the data section and tile it with no overlap, gap or trailing byte. Tensors that tile a longer
// data section than the file holds mean the file was cut short: that is said once, not per tensor.
#include "safetensors/header.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <optional>
#include <unordered_set>

#include "util/json.h"

namespace laya::safetensors {

namespace {

constexpr std::string_view kWhat = "safetensors header";
constexpr size_t kMaxListedProblems = 100;

std::string join_problems(const std::vector<std::string>& problems) {
  std::string message(kWhat);
  message += ": ";
  if (problems.size() > 1) message += std::to_string(problems.size()) + " problems: ";
  for (size_t i = 0; i < problems.size() && i < kMaxListedProblems; ++i) {
    if (i > 0) message += "; ";
    message += problems[i];
  }
  if (problems.size() > kMaxListedProblems) {
    message += "; ... and " + std::to_string(problems.size() - kMaxListedProblems) + " more";
  }
  return message;
}

std::optional<DType> dtype_from_name(std::string_view name) {
  if (name == "F32") return DType::kF32;
  if (name == "F16") return DType::kF16;
  if (name == "BF16") return DType::kBF16;
  if (name == "I8") return DType::kI8;  // read only as q8 (laya/checkpoint.h, docs/q8-format.md)
  return std::nullopt;
}

std::optional<uint64_t> non_negative_integer(const json::Value& v) {
  if (!v.is_number()) return std::nullopt;
  auto i = v.as_int64();
  if (!i || *i < 0) return std::nullopt;
  return static_cast<uint64_t>(*i);
}

// How a value is written in a message: the number as written, or its JSON kind.
std::string describe(const json::Value& v) {
  if (v.is_number()) return v.number_text();
  if (v.is_string()) return "\"" + v.as_string() + "\"";
  return json::kind_name(v.kind());
}

// A tensor's data range, kept apart from its entry so the tiling check also covers tensors whose
// dtype is unsupported.
struct Range {
  std::string_view name;
  uint64_t begin;
  uint64_t end;
};

std::string range_string(const Range& r) {
  return std::string(r.name) + " [" + std::to_string(r.begin) + ", " + std::to_string(r.end) + ")";
}

// A file that ends before the bytes its header accounts for: most likely a download that stopped.
std::string truncated_message(std::string_view file_name, uint64_t needed, uint64_t present) {
  return std::string(file_name) + " is truncated: its header needs " + std::to_string(needed) + " bytes, only " +
         std::to_string(present) + " are present";
}

class EntryChecker {
 public:
  EntryChecker(std::vector<std::string>& problems, std::vector<std::string>& unsupported)
      : problems_(problems), unsupported_(unsupported) {}

  // Checks one tensor entry; returns it when it is fully valid. A valid range is added to `ranges`
  // even when something else about the entry is wrong, so the tiling check sees it.
  std::optional<TensorEntry> check(const std::string& name, const json::Value& v,
                                   std::vector<Range>& ranges) {
    const std::string at = "tensor " + name + ": ";
    if (!v.is_object()) {
      problems_.push_back(at + "expected an object, got " + json::kind_name(v.kind()));
      return std::nullopt;
    }
    const json::Value* dtype = nullptr;
    const json::Value* shape = nullptr;
    const json::Value* offsets = nullptr;
    bool ok = true;
    for (const auto& [key, value] : v.members()) {
      const json::Value** slot = key == "dtype" ? &dtype
                                 : key == "shape" ? &shape
                                 : key == "data_offsets" ? &offsets
                                 : nullptr;
      if (slot == nullptr) {
        problems_.push_back(at + "unexpected key \"" + key + "\"");
        ok = false;
      } else if (*slot != nullptr) {
        problems_.push_back(at + "key \"" + key + "\" appears more than once");
        ok = false;
      } else {
        *slot = &value;
      }
    }
    for (auto [field, key] : {std::pair{dtype, "dtype"}, {shape, "shape"}, {offsets, "data_offsets"}}) {
      if (field == nullptr) {
        problems_.push_back(at + "missing \"" + key + "\"");
        ok = false;
      }
    }

    TensorEntry entry;
    entry.name = name;
    bool dtype_known = false;
    if (dtype != nullptr) {
      if (!dtype->is_string()) {
        problems_.push_back(at + "dtype must be a string, got " + describe(*dtype));
        ok = false;
      } else if (auto d = dtype_from_name(dtype->as_string())) {
        entry.dtype = *d;
        dtype_known = true;
      } else {
        unsupported_.push_back("tensor " + name + " has dtype " + dtype->as_string() +
                               "; supported dtypes are F32, F16, BF16 and I8 (q8)");
        ok = false;
      }
    }

    std::optional<uint64_t> elements;
    if (shape != nullptr) elements = check_shape(at, *shape, entry.shape);
    if (!elements) ok = false;

    bool range_ok = false;
    if (offsets != nullptr) range_ok = check_offsets(at, *offsets, entry.begin, entry.end);
    if (range_ok) {
      ranges.push_back(Range{name, entry.begin, entry.end});
    } else {
      ok = false;
    }

    if (dtype_known && elements && range_ok) {
      uint64_t bytes;
      if (__builtin_mul_overflow(*elements, uint64_t{dtype_size(entry.dtype)}, &bytes)) {
        problems_.push_back(at + "shape " + shape_string(entry.shape) + " holds more bytes than fit in 64 bits");
        ok = false;
      } else if (bytes != entry.byte_size()) {
        problems_.push_back(at + "shape " + shape_string(entry.shape) + " of " + dtype_name(entry.dtype) +
                            " needs " + std::to_string(bytes) + " bytes, but data_offsets [" +
                            std::to_string(entry.begin) + ", " + std::to_string(entry.end) + "] hold " +
                            std::to_string(entry.byte_size()));
        ok = false;
      }
    }
    if (!ok) return std::nullopt;
    return entry;
  }

 private:
  // The number of elements, or nullopt after recording the problem.
  std::optional<uint64_t> check_shape(const std::string& at, const json::Value& shape,
                                      std::vector<int64_t>& dims) {
    if (!shape.is_array()) {
      problems_.push_back(at + "shape must be an array of non-negative integers, got " + describe(shape));
      return std::nullopt;
    }
    uint64_t elements = 1;
    bool overflow = false;
    for (size_t i = 0; i < shape.items().size(); ++i) {
      auto dim = non_negative_integer(shape.items()[i]);
      if (!dim) {
        problems_.push_back(at + "shape dimension " + std::to_string(i) + " is " + describe(shape.items()[i]) +
                            ", expected a non-negative integer");
        return std::nullopt;
      }
      dims.push_back(static_cast<int64_t>(*dim));
      overflow = overflow || __builtin_mul_overflow(elements, *dim, &elements);
    }
    if (overflow) {
      problems_.push_back(at + "shape " + shape_string(dims) + " has more elements than fit in 64 bits");
      return std::nullopt;
    }
    return elements;
  }

  bool check_offsets(const std::string& at, const json::Value& offsets, uint64_t& begin, uint64_t& end) {
    std::optional<uint64_t> b, e;
    if (offsets.is_array() && offsets.items().size() == 2) {
      b = non_negative_integer(offsets.items()[0]);
      e = non_negative_integer(offsets.items()[1]);
    }
    if (!b || !e) {
      problems_.push_back(at + "data_offsets must be an array of two non-negative integers");
      return false;
    }
    begin = *b;
    end = *e;
    const std::string written = "data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) + "]";
    if (begin > end) {
      problems_.push_back(at + written + " end before they begin");
      return false;
    }
    // A range past the end of the data section is left to the tiling check, which tells a file cut
    // short from one with a gap or an overlap.
    return true;
  }

  std::vector<std::string>& problems_;
  std::vector<std::string>& unsupported_;
};

void check_metadata(const json::Value& v, std::vector<std::string>& problems) {
  if (!v.is_object()) {
    problems.push_back(std::string("__metadata__ must be an object of strings, got ") + json::kind_name(v.kind()));
    return;
  }
  for (const auto& [key, value] : v.members()) {
    if (!value.is_string()) {
      problems.push_back("__metadata__ entry \"" + key + "\" must be a string, got " + json::kind_name(value.kind()));
    }
  }
}

// Ranges sorted by offset must follow each other exactly from 0 to the end of the data section.
// Returns where the furthest range ends; past `data_length` the caller reports the file truncated.
uint64_t check_tiling(std::vector<Range> ranges, uint64_t data_length, std::vector<std::string>& problems) {
  std::sort(ranges.begin(), ranges.end(),
            [](const Range& a, const Range& b) { return a.begin != b.begin ? a.begin < b.begin : a.end < b.end; });
  uint64_t cursor = 0;
  const Range* reached_by = nullptr;  // the range that ends furthest so far
  for (const Range& r : ranges) {
    if (r.begin > cursor) {
      problems.push_back("bytes [" + std::to_string(cursor) + ", " + std::to_string(r.begin) +
                         ") of the data section belong to no tensor (a gap before " + range_string(r) + ")");
    } else if (r.begin < cursor) {
      problems.push_back("tensor " + range_string(r) + " overlaps tensor " + range_string(*reached_by));
    }
    if (r.end >= cursor) {
      cursor = r.end;
      reached_by = &r;
    }
  }
  if (cursor < data_length) {
    problems.push_back(std::to_string(data_length - cursor) + " trailing bytes after the last tensor (tensors end at " +
                       std::to_string(cursor) + ", the data section is " + std::to_string(data_length) + " bytes)");
  }
  return cursor;
}

}  // namespace

std::string shape_string(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

const TensorEntry* Header::find(std::string_view name) const {
  for (const TensorEntry& t : tensors) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

Result<uint64_t> read_header_length(std::span<const std::byte, 8> prefix, uint64_t file_size,
                                    std::string_view file_name) {
  if (file_size < 8) {
    return invalid_checkpoint(std::string(kWhat) + ": the file is " + std::to_string(file_size) +
                              " bytes, too short for the 8-byte header length");
  }
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | std::to_integer<uint64_t>(prefix[i]);
  if (n == 0) return invalid_checkpoint(std::string(kWhat) + ": header length is 0");
  if (n > kMaxHeaderLength) {
    return invalid_checkpoint(std::string(kWhat) + ": header length " + std::to_string(n) + " exceeds the limit of " +
                              std::to_string(kMaxHeaderLength) + " bytes");
  }
  if (8 + n > file_size) return invalid_checkpoint(truncated_message(file_name, 8 + n, file_size));
  return n;
}

Result<Header> parse_header(std::string_view header_json, uint64_t file_size, std::string_view file_name) {
  const uint64_t n = header_json.size();
  if (n > kMaxHeaderLength || 8 + n > file_size) {
    return invalid_checkpoint(std::string(kWhat) + ": header length " + std::to_string(n) +
                              " does not fit in the " + std::to_string(file_size) + "-byte file");
  }
  auto doc = json::parse(header_json, kWhat);
  if (!doc.ok()) return invalid_checkpoint(doc.error().message);
  const json::Value& root = doc.value();
  if (!root.is_object()) {
    return invalid_checkpoint(std::string(kWhat) + ": expected a JSON object, got " + json::kind_name(root.kind()));
  }

  Header header;
  header.data_offset = 8 + n;
  header.data_length = file_size - header.data_offset;
  std::vector<std::string> problems;
  std::vector<std::string> unsupported;
  std::vector<Range> ranges;
  std::unordered_set<std::string_view> seen;
  EntryChecker checker(problems, unsupported);
  for (const auto& [name, value] : root.members()) {
    if (!seen.insert(name).second) {
      problems.push_back((name == "__metadata__" ? name : "tensor " + name) + " appears more than once");
      continue;
    }
    if (name == "__metadata__") {
      check_metadata(value, problems);
      if (value.is_object()) {
        for (const auto& [key, text] : value.members()) {
          if (text.is_string()) header.metadata.emplace_back(key, text.as_string());
        }
      }
      continue;
    }
    if (auto entry = checker.check(name, value, ranges)) header.tensors.push_back(std::move(*entry));
  }
  // Offsets are below 2^63 (non_negative_integer) and the data offset below 2^27: the sum cannot wrap.
  const uint64_t tensors_end = check_tiling(std::move(ranges), header.data_length, problems);
  if (tensors_end > header.data_length) {
    std::string truncated = truncated_message(file_name, header.data_offset + tensors_end, file_size);
    // A good header over a short file is this one line; otherwise the shortfall is one problem among the others.
    if (problems.empty() && unsupported.empty()) return invalid_checkpoint(std::move(truncated));
    problems.push_back(std::move(truncated));
  }

  if (!problems.empty()) {
    problems.insert(problems.end(), unsupported.begin(), unsupported.end());
    return invalid_checkpoint(join_problems(problems));
  }
  if (!unsupported.empty()) return unsupported_model(join_problems(unsupported));
  return header;
}

Result<Header> parse_file_header(std::span<const std::byte> file, std::string_view file_name) {
  std::array<std::byte, 8> prefix{};
  if (!file.empty()) std::memcpy(prefix.data(), file.data(), std::min<size_t>(file.size(), 8));
  LAYA_ASSIGN_OR_RETURN(uint64_t n, read_header_length(prefix, file.size(), file_name));
  std::string_view json(reinterpret_cast<const char*>(file.data()) + 8, n);
  return parse_header(json, file.size(), file_name);
}

}  // namespace laya::safetensors
