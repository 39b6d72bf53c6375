// The q8 file plan and the streaming quantizer (see q8_checkpoint.h).
#include "laya/q8_checkpoint.h"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "graph/q8.h"
#include "laya/checkpoint.h"
#include "util/json.h"

namespace laya {

bool quantized_in_q8(const safetensors::TensorEntry& t) {
  return t.shape.size() == 2 && t.shape[0] > 0 && t.shape[1] > 0 && t.dtype != DType::kI8;
}

namespace {

std::vector<size_t> data_order(const safetensors::Header& h) {
  std::vector<size_t> order(h.tensors.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return h.tensors[a].begin < h.tensors[b].begin; });
  return order;
}

void append_shape(std::string& out, const std::vector<int64_t>& shape) {
  out += '[';
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) out += ',';
    out += std::to_string(shape[i]);
  }
  out += ']';
}

}  // namespace

Result<Q8Plan> plan_q8(const safetensors::Header& source) {
  if (quantization_marker(source) != nullptr) {
    return invalid_request("model.safetensors is already quantized (__metadata__ " + std::string(kQuantizationKey) +
                           " = \"" + *quantization_marker(source) + "\")");
  }
  Q8Plan plan;
  safetensors::Header& h = plan.header;
  uint64_t at = 0;
  for (size_t i : data_order(source)) {
    const safetensors::TensorEntry& t = source.tensors[i];
    if (t.dtype == DType::kI8) {
      return invalid_request("model.safetensors: tensor " + t.name + " is already I8; q8 quantizes F32, F16 and BF16");
    }
    Q8Tensor q{.source = i, .quantized = quantized_in_q8(t)};
    q.values = h.tensors.size();
    if (!q.quantized) {
      h.tensors.push_back({t.name, t.dtype, t.shape, at, at + t.byte_size()});
      at += t.byte_size();
    } else {
      const uint64_t values = static_cast<uint64_t>(t.shape[0]) * static_cast<uint64_t>(t.shape[1]);
      h.tensors.push_back({t.name, DType::kI8, t.shape, at, at + values});
      at += values;
      q.scales = h.tensors.size();
      const std::vector<int64_t> scale_shape{t.shape[0], q8_groups(t.shape[1])};
      const uint64_t scale_bytes = static_cast<uint64_t>(scale_shape[0] * scale_shape[1]) * sizeof(float);
      h.tensors.push_back({t.name + std::string(kQ8ScalesSuffix), DType::kF32, scale_shape, at, at + scale_bytes});
      at += scale_bytes;
    }
    plan.tensors.push_back(q);
  }
  for (const auto& [key, value] : source.metadata) {
    if (key != kQuantizationKey) h.metadata.emplace_back(key, value);
  }
  h.metadata.emplace_back(std::string(kQuantizationKey), std::string(kQ8Marker));
  h.data_length = at;

  std::string& json = plan.header_json;
  json = "{\"__metadata__\":{";
  for (size_t i = 0; i < h.metadata.size(); ++i) {
    if (i > 0) json += ',';
    json::append_quoted(json, h.metadata[i].first, false);
    json += ':';
    json::append_quoted(json, h.metadata[i].second, false);
  }
  json += '}';
  for (const safetensors::TensorEntry& t : h.tensors) {
    json += ',';
    json::append_quoted(json, t.name, false);
    json += ":{\"dtype\":\"";
    json += dtype_name(t.dtype);
    json += "\",\"shape\":";
    append_shape(json, t.shape);
    json += ",\"data_offsets\":[" + std::to_string(t.begin) + "," + std::to_string(t.end) + "]}";
  }
  json += '}';
  json.append((8 - json.size() % 8) % 8, ' ');
  h.data_offset = 8 + json.size();
  return plan;
}

Q8Streamer::Q8Streamer(const safetensors::Header& source, const Q8Plan& plan, std::byte* target) : target_(target) {
  size_t widest = 0;
  int64_t widest_cols = 0;
  for (const Q8Tensor& q : plan.tensors) {
    const safetensors::TensorEntry& s = source.tensors[q.source];
    Item item{s.name, s.dtype, s.begin, s.byte_size(), plan.header.tensors[q.values].begin, 0};
    if (q.quantized) {
      item.quantized = true;
      item.rows = s.shape[0];
      item.cols = s.shape[1];
      item.target_scales = plan.header.tensors[q.scales].begin;
      widest = std::max(widest, static_cast<size_t>(item.cols) * dtype_size(s.dtype));
      widest_cols = std::max(widest_cols, item.cols);
    }
    source_length_ += s.byte_size();
    items_.push_back(std::move(item));
  }
  row_.reserve(widest);
  row_f32_.resize(static_cast<size_t>(widest_cols));
}

Status Q8Streamer::finish_row(const Item& item) {
  int8_t* q = reinterpret_cast<int8_t*>(target_ + item.target_values) + row_index_ * item.cols;
  float scales[1024];  // a row of up to 65536 elements; wider rows go through the heap
  const int64_t groups = q8_groups(item.cols);
  std::vector<float> wide;
  float* s = scales;
  if (groups > 1024) {
    wide.resize(static_cast<size_t>(groups));
    s = wide.data();
  }
  const int64_t bad = quantize_rows_q8(item.dtype, row_.data(), 1, item.cols, q, s, row_f32_.data());
  if (bad >= 0) {
    return invalid_checkpoint("model.safetensors: " + item.name + " holds a value that is not finite (row " +
                              std::to_string(row_index_) + ", column " + std::to_string(bad) +
                              "); a matrix with NaN or Inf cannot be quantized to q8");
  }
  std::memcpy(target_ + item.target_scales + static_cast<uint64_t>(row_index_ * groups) * sizeof(float), s,
              static_cast<size_t>(groups) * sizeof(float));
  row_.clear();
  ++row_index_;
  return {};
}

Status Q8Streamer::consume(std::span<const std::byte> bytes) {
  if (bytes.size() > source_length_ - consumed_) {
    return invalid_request("weights: " + std::to_string(bytes.size()) + " more bytes than the data section's " +
                           std::to_string(source_length_));
  }
  while (!bytes.empty()) {
    // Zero-byte tensors are passed over.
    while (item_ < items_.size() && in_item_ == items_[item_].source_bytes) {
      ++item_;
      in_item_ = 0;
      row_index_ = 0;
    }
    const Item& item = items_[item_];
    const size_t take = static_cast<size_t>(std::min<uint64_t>(bytes.size(), item.source_bytes - in_item_));
    if (!item.quantized) {
      std::memcpy(target_ + item.target_values + in_item_, bytes.data(), take);
      target_written_ = item.target_values + in_item_ + take;
    } else {
      const size_t row_bytes = static_cast<size_t>(item.cols) * dtype_size(item.dtype);
      size_t used = 0;
      while (used < take) {
        const size_t n = std::min(take - used, row_bytes - row_.size());
        row_.insert(row_.end(), bytes.begin() + used, bytes.begin() + used + n);
        used += n;
        if (row_.size() == row_bytes) LAYA_RETURN_IF_ERROR(finish_row(item));
      }
      // The values are complete up to the last whole row; the scales follow them, so the q8 data
      // is complete from the start only as far as the values, until the last row.
      target_written_ = row_index_ == item.rows
                            ? item.target_scales + static_cast<uint64_t>(item.rows * q8_groups(item.cols)) * sizeof(float)
                            : item.target_values + static_cast<uint64_t>(row_index_ * item.cols);
    }
    in_item_ += take;
    consumed_ += take;
    bytes = bytes.subspan(take);
  }
  return {};
}

Result<std::vector<std::byte>> quantize_checkpoint_file(std::span<const std::byte> file) {
  LAYA_ASSIGN_OR_RETURN(safetensors::Header source, safetensors::parse_file_header(file));
  LAYA_ASSIGN_OR_RETURN(Q8Plan plan, plan_q8(source));
  std::vector<std::byte> out(plan.file_size());
  const uint64_t n = plan.header_json.size();
  for (int i = 0; i < 8; ++i) out[i] = static_cast<std::byte>((n >> (8 * i)) & 0xFF);
  std::memcpy(out.data() + 8, plan.header_json.data(), n);
  Q8Streamer streamer(source, plan, out.data() + plan.header.data_offset);
  LAYA_RETURN_IF_ERROR(streamer.consume(file.subspan(source.data_offset)));
  return out;
}

}  // namespace laya
