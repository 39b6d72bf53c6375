// q8 checkpoints (docs/q8-format.md): the converter's plan and streaming quantizer, and every
// hostile q8 file rejected with the tensor at fault named.
#include "laya/q8_checkpoint.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "graph/q8.h"
#include "laya/checkpoint.h"
#include "laya/model.h"
#include "laya/test_fixtures.h"
#include "safetensors/test_writer.h"

namespace laya {
namespace {

using testing::TensorSpec;

// The tiny config's checkpoint in F16: matrices of varied values, vectors of ones.
std::vector<TensorSpec> float_specs(const LayaConfig& config, const std::string& dtype = "BF16") {
  std::vector<TensorSpec> specs;
  const CheckpointLayout layout = checkpoint_layout(config);
  for (size_t i = 0; i < layout.tensors.size(); ++i) {
    const ExpectedTensor& t = layout.tensors[i];
    int64_t n = 1;
    for (int64_t d : t.shape) n *= d;
    std::vector<float> v(static_cast<size_t>(n));
    for (int64_t j = 0; j < n; ++j) {
      v[j] = t.shape.size() == 1 ? 1.0f : std::sin(0.37f * static_cast<float>(j) + static_cast<float>(i)) * 0.1f;
    }
    std::vector<std::byte> bytes;
    if (dtype == "F32") {
      bytes = testing::raw_bytes(v);
    } else {
      std::vector<uint16_t> h(v.size());
      for (size_t j = 0; j < v.size(); ++j) {
        uint32_t f;
        std::memcpy(&f, &v[j], 4);
        h[j] = static_cast<uint16_t>(f >> 16);  // BF16 by truncation: exact test data
      }
      bytes = testing::raw_bytes(h);
    }
    specs.push_back({t.name, dtype == "F32" ? "F32" : "BF16", t.shape, bytes});
  }
  specs.push_back({"temperature", "F32", {3}, testing::raw_bytes(std::vector<float>{1, 1, 1})});
  return specs;
}

std::vector<std::byte> file_of(const std::vector<TensorSpec>& specs, std::string_view metadata) {
  std::vector<std::byte> data;
  for (const TensorSpec& t : specs) data.insert(data.end(), t.bytes.begin(), t.bytes.end());
  return testing::file_with_header(testing::header_json_for(specs, metadata), data);
}

constexpr std::string_view kMarker = R"({"laya_quantization":"q8_sym_g64"})";

// A valid q8 checkpoint of the tiny config as specs: every matrix I8 (q = 1) with scales 0.01.
std::vector<TensorSpec> q8_specs(const LayaConfig& config) {
  std::vector<TensorSpec> out;
  for (const TensorSpec& t : float_specs(config)) {
    if (t.shape.size() != 2) {
      out.push_back(t);
      continue;
    }
    out.push_back({t.name, "I8", t.shape, std::vector<std::byte>(t.shape[0] * t.shape[1], std::byte{1})});
    const std::vector<int64_t> scale_shape{t.shape[0], q8_groups(t.shape[1])};
    out.push_back({t.name + ".q8_scales", "F32", scale_shape,
                   testing::raw_bytes(std::vector<float>(scale_shape[0] * scale_shape[1], 0.01f))});
  }
  return out;
}

safetensors::Header header_of(const std::vector<std::byte>& file) {
  auto h = safetensors::parse_file_header(file);
  REQUIRE_MESSAGE(h.ok(), h.error().message);
  return h.value();
}

TensorSpec& spec(std::vector<TensorSpec>& specs, const std::string& name) {
  for (TensorSpec& t : specs) {
    if (t.name == name) return t;
  }
  FAIL("no tensor " << name);
  return specs.front();
}

const std::string kWqkv = "encoder.layers.1.attn.Wqkv.weight";
const std::string kAct = "act_head.0.weight";  // [256, 68]: k not a multiple of 64

}  // namespace

TEST_CASE("the converter quantizes every matrix, keeps vectors, and the result matches the configs") {
  const LayaConfig config = testing::tiny_config();
  for (const char* dtype : {"F32", "BF16"}) {
    CAPTURE(dtype);
    const auto source = file_of(float_specs(config, dtype), R"({"format":"pt"})");
    auto q8 = quantize_checkpoint_file(source);
    REQUIRE_MESSAGE(q8.ok(), q8.error().message);
    const safetensors::Header h = header_of(q8.value());
    CHECK(is_q8_checkpoint(h));
    REQUIRE(match_tensors(checkpoint_layout(config), h).ok());
    const auto* act = h.find(kAct);
    REQUIRE(act != nullptr);
    CHECK(act->dtype == DType::kI8);
    const auto* act_scales = h.find(kAct + ".q8_scales");
    REQUIRE(act_scales != nullptr);
    CHECK(act_scales->shape == std::vector<int64_t>{256, 2});  // 64 + a last group of 4
    CHECK(h.find("encoder.final_norm.weight")->dtype == (std::string(dtype) == "F32" ? DType::kF32 : DType::kBF16));
    CHECK(h.find("temperature")->dtype == DType::kF32);
    // The source's metadata is kept beside the marker.
    bool format_kept = false;
    for (const auto& [k, v] : h.metadata) format_kept = format_kept || (k == "format" && v == "pt");
    CHECK(format_kept);
    // Quantizing twice is refused.
    auto again = quantize_checkpoint_file(q8.value());
    REQUIRE_FALSE(again.ok());
    CHECK(again.error().message.find("already quantized") != std::string::npos);
  }
}

TEST_CASE("streaming the data section in pieces of any size gives the converter's bytes") {
  const LayaConfig config = testing::tiny_config();
  const auto source = file_of(float_specs(config), R"({"format":"pt"})");
  auto whole = quantize_checkpoint_file(source);
  REQUIRE(whole.ok());
  const safetensors::Header src = header_of(source);
  auto plan = plan_q8(src);
  REQUIRE(plan.ok());
  const std::span<const std::byte> data = std::span(source).subspan(src.data_offset);
  for (size_t chunk : {size_t{1}, size_t{7}, size_t{130}, size_t{4096}, data.size()}) {
    CAPTURE(chunk);
    std::vector<std::byte> target(plan.value().header.data_length, std::byte{0xAB});
    Q8Streamer streamer(src, plan.value(), target.data());
    uint64_t last = 0;
    for (size_t at = 0; at < data.size(); at += chunk) {
      REQUIRE(streamer.consume(data.subspan(at, std::min(chunk, data.size() - at))).ok());
      REQUIRE(streamer.target_written() >= last);
      last = streamer.target_written();
    }
    CHECK(streamer.done());
    CHECK(last == target.size());
    CHECK(std::memcmp(target.data(), whole.value().data() + plan.value().header.data_offset, target.size()) == 0);
    CHECK_FALSE(streamer.consume(data.first(1)).ok());  // nothing past the end
  }
}

TEST_CASE("a q8 checkpoint binds: matrices are I8 views with their scales, vectors F32") {
  const LayaConfig config = testing::tiny_config();
  auto q8 = quantize_checkpoint_file(file_of(float_specs(config), R"({"format":"pt"})"));
  REQUIRE(q8.ok());
  const safetensors::Header h = header_of(q8.value());
  auto model = bind_model(config, h, q8.value().data() + h.data_offset);
  REQUIRE_MESSAGE(model.ok(), model.error().message);
  const WeightView& act = model.value().weights[model.value().ids.act_hidden_w.index];
  CHECK(act.dtype == DType::kI8);
  REQUIRE(act.scales != nullptr);
  CHECK(act.scales == q8.value().data() + h.data_offset + h.find(kAct + ".q8_scales")->begin);
  CHECK(model.value().weights[model.value().ids.final_norm.index].dtype == DType::kF32);
}

TEST_CASE("other tools' quantized layouts are unsupported_model, naming what was found") {
  const LayaConfig config = testing::tiny_config();
  struct Case {
    const char* what;
    std::vector<TensorSpec> specs;
    std::string metadata;
    std::vector<std::string> parts;
  };
  std::vector<Case> cases;
  cases.push_back({"I8 without the marker", q8_specs(config), R"({"format":"pt"})", {"is I8", "laya_quantization"}});
  cases.push_back({"another scheme's marker", q8_specs(config), R"({"laya_quantization":"q4_g32"})", {"q4_g32", "q8_sym_g64"}});
  {
    auto specs = float_specs(config);
    specs.push_back({"encoder.layers.1.attn.Wo.qweight", "F32", {1}, testing::raw_bytes(std::vector<float>{0})});
    cases.push_back({"GPTQ qweight", specs, R"({"format":"pt"})", {"encoder.layers.1.attn.Wo.qweight", "GPTQ"}});
  }
  {
    auto specs = float_specs(config);
    specs.push_back({kWqkv + ".SCB", "F32", {1}, testing::raw_bytes(std::vector<float>{0})});
    cases.push_back({"bitsandbytes SCB", specs, R"({"format":"pt"})", {kWqkv + ".SCB", "bitsandbytes"}});
  }
  for (const Case& c : cases) {
    CAPTURE(c.what);
    const auto h = header_of(file_of(c.specs, c.metadata));
    auto r = match_tensors(checkpoint_layout(config), h);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == ErrorCode::kUnsupportedModel);
    for (const std::string& part : c.parts) CHECK_MESSAGE(r.error().message.find(part) != std::string::npos, r.error().message);
  }
}

TEST_CASE("a damaged q8 header is invalid_checkpoint naming the tensor") {
  const LayaConfig config = testing::tiny_config();
  struct Case {
    const char* what;
    std::vector<TensorSpec> specs;
    std::string part;
  };
  std::vector<Case> cases;
  auto with = [&](const char* what, auto&& change, std::string part) {
    auto specs = q8_specs(config);
    change(specs);
    cases.push_back({what, specs, std::move(part)});
  };
  with("one scale too many", [](auto& s) {
    spec(s, kWqkv + ".q8_scales") = {kWqkv + ".q8_scales", "F32", {192, 2}, testing::raw_bytes(std::vector<float>(384, 0.01f))};
  }, kWqkv + ".q8_scales has shape [192, 2], expected [192, 1]");
  with("groups of 32", [](auto& s) {
    spec(s, kAct + ".q8_scales") = {kAct + ".q8_scales", "F32", {256, 3}, testing::raw_bytes(std::vector<float>(768, 0.01f))};
  }, kAct + ".q8_scales has shape [256, 3], expected [256, 2]");
  with("F16 scales", [](auto& s) {
    spec(s, kWqkv + ".q8_scales") = {kWqkv + ".q8_scales", "F16", {192, 1}, testing::raw_bytes(std::vector<uint16_t>(192, 0x2000))};
  }, kWqkv + ".q8_scales is F16, expected F32");
  with("I8 without scales", [](auto& s) {
    std::erase_if(s, [](const TensorSpec& t) { return t.name == kWqkv + ".q8_scales"; });
  }, kWqkv + " is I8 but has no scales");
  with("scales without I8", [&](auto& s) {
    spec(s, kWqkv) = {kWqkv, "F32", {192, 64}, testing::raw_bytes(std::vector<float>(192 * 64, 0.5f))};
  }, kWqkv + ".q8_scales scales " + kWqkv + ", which is F32, not I8");
  with("scales of nothing", [](auto& s) {
    s.push_back({"nothing.q8_scales", "F32", {1, 1}, testing::raw_bytes(std::vector<float>{1})});
  }, "unexpected nothing.q8_scales");
  with("an I8 vector", [](auto& s) {
    spec(s, "encoder.final_norm.weight") = {"encoder.final_norm.weight", "I8", {64}, std::vector<std::byte>(64, std::byte{1})};
  }, "encoder.final_norm.weight is I8, but only matrices are quantized");
  for (const Case& c : cases) {
    CAPTURE(c.what);
    const auto h = header_of(file_of(c.specs, kMarker));
    auto r = match_tensors(checkpoint_layout(config), h);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == ErrorCode::kInvalidCheckpoint);
    CHECK_MESSAGE(r.error().message.find(c.part) != std::string::npos, r.error().message);
  }
}

TEST_CASE("q8 scales that are NaN, infinite or negative are invalid_checkpoint when bound") {
  const LayaConfig config = testing::tiny_config();
  // A valid file binds (zero scales included: they read their group as zeros).
  {
    auto specs = q8_specs(config);
    spec(specs, kWqkv + ".q8_scales").bytes = testing::raw_bytes(std::vector<float>(192, 0.0f));
    const auto file = file_of(specs, kMarker);
    const auto h = header_of(file);
    auto ok = bind_model(config, h, file.data() + h.data_offset);
    REQUIRE_MESSAGE(ok.ok(), ok.error().message);
  }
  for (float bad : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                    -std::numeric_limits<float>::infinity(), -0.5f}) {
    CAPTURE(bad);
    auto specs = q8_specs(config);
    std::vector<float> scales(256 * 2, 0.01f);
    scales[301] = bad;
    spec(specs, kAct + ".q8_scales").bytes = testing::raw_bytes(scales);
    const auto file = file_of(specs, kMarker);
    const auto h = header_of(file);
    REQUIRE(match_tensors(checkpoint_layout(config), h).ok());  // the header alone is fine
    auto r = bind_model(config, h, file.data() + h.data_offset);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == ErrorCode::kInvalidCheckpoint);
    CHECK_MESSAGE(r.error().message.find(kAct + ".q8_scales holds a scale of") != std::string::npos, r.error().message);
  }
}

TEST_CASE("a matrix that is not finite cannot be quantized, and the error names it") {
  const LayaConfig config = testing::tiny_config();
  auto specs = float_specs(config, "F32");
  std::vector<float> v(192 * 64, 0.5f);
  v[64 * 3 + 5] = std::numeric_limits<float>::quiet_NaN();
  spec(specs, kWqkv).bytes = testing::raw_bytes(v);
  auto r = quantize_checkpoint_file(file_of(specs, R"({"format":"pt"})"));
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::kInvalidCheckpoint);
  CHECK_MESSAGE(r.error().message.find(kWqkv + " holds a value that is not finite (row 3, column 5)") != std::string::npos,
                r.error().message);
}

}  // namespace laya
