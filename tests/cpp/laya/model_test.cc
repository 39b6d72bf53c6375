#include "laya/model.h"

#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "graph/half_reference.h"
#include "laya/test_fixtures.h"
#include "safetensors/test_writer.h"

using laya::DType;
using laya::LayaModel;
using laya::testing::TensorSpec;

namespace {

// Half encodings a vector cycles through: normal, negative, subnormal, the largest finite value,
// negative zero, 1/3 rounded, the smallest normal.
const uint16_t kHalves[] = {0x3C00, 0xC000, 0x0001, 0x7BFF, 0x8000, 0x3555, 0x0400, 0x83FF};

// The bits of a tensor: vectors cycle through kHalves (shifted by `salt` so that no two vectors
// hold the same values), matrices hold arbitrary non-NaN patterns.
std::vector<std::byte> tensor_bytes(const std::vector<int64_t>& shape, const std::string& dtype, size_t salt) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  if (dtype == "F32") {
    std::vector<float> values(n);
    for (int64_t i = 0; i < n; ++i) values[i] = static_cast<float>(salt) + 0.25f * static_cast<float>(i % 7);
    return laya::testing::raw_bytes(values);
  }
  std::vector<uint16_t> bits(n);
  for (int64_t i = 0; i < n; ++i) {
    bits[i] = shape.size() == 1 ? kHalves[(i + salt) % 8] : static_cast<uint16_t>((i * 37 + salt) % 0x7C00);
  }
  return laya::testing::raw_bytes(bits);
}

// A checkpoint file of the tiny config, every tensor in `dtype` except as `dtype_of` says.
struct TinyCheckpoint {
  laya::LayaConfig config = laya::testing::tiny_config();
  std::vector<TensorSpec> specs;
  std::vector<std::byte> file;
  laya::safetensors::Header header;

  template <class DtypeOf>
  explicit TinyCheckpoint(DtypeOf dtype_of, bool with_temperature = true) {
    const auto layout = laya::checkpoint_layout(config);
    for (size_t i = 0; i < layout.tensors.size(); ++i) {
      const auto& t = layout.tensors[i];
      const std::string dtype = dtype_of(t.name);
      specs.push_back({t.name, dtype, t.shape, tensor_bytes(t.shape, dtype, i)});
    }
    if (with_temperature) specs.push_back({"temperature", "F32", {3}, laya::testing::raw_bytes(std::vector<float>{1, 1, 1})});
    file = laya::testing::safetensors_file(specs);
    auto parsed = laya::safetensors::parse_file_header(file);
    REQUIRE_MESSAGE(parsed.ok(), parsed.error().message);
    header = parsed.value();
  }

  const std::byte* data() const { return file.data() + header.data_offset; }
  laya::Result<LayaModel> bind() const { return laya::bind_model(config, header, data()); }

  // Overwrites the first element of an F16 tensor with a NaN.
  void put_nan_at_start_of(const std::string& name) {
    const auto* entry = header.find(name);
    REQUIRE(entry != nullptr);
    const uint16_t nan = 0x7E00;
    std::memcpy(file.data() + header.data_offset + entry->begin, &nan, 2);
  }
};

const laya::WeightView& weight(const LayaModel& m, laya::WeightId id) { return m.weights[id.index]; }

std::vector<float> floats_of(const laya::WeightView& view) {
  REQUIRE(view.dtype == DType::kF32);
  std::vector<float> out(view.elements());
  std::memcpy(out.data(), view.data, out.size() * sizeof(float));
  return out;
}

// Every weight id an op of the graph uses.
std::vector<laya::WeightId> weights_used(const laya::Graph& g) {
  std::vector<laya::WeightId> ids;
  for (const laya::Op& op : g.ops) {
    if (const auto* o = std::get_if<laya::ops::Embed>(&op)) ids.push_back(o->table);
    if (const auto* o = std::get_if<laya::ops::AddType>(&op)) ids.push_back(o->table);
    if (const auto* o = std::get_if<laya::ops::LayerNorm>(&op)) {
      ids.push_back(o->w);
      if (o->b) ids.push_back(*o->b);
    }
    if (const auto* o = std::get_if<laya::ops::Gemm>(&op)) {
      ids.push_back(o->w);
      if (o->b) ids.push_back(*o->b);
    }
  }
  return ids;
}

}  // namespace

TEST_CASE("binding leaves matrices in place in their stored dtype") {
  const TinyCheckpoint ckpt([](const std::string&) { return std::string("F16"); });
  auto model = ckpt.bind();
  REQUIRE_MESSAGE(model.ok(), model.error().message);
  const LayaModel& m = model.value();
  const auto* wqkv = ckpt.header.find("encoder.layers.1.attn.Wqkv.weight");
  REQUIRE(wqkv != nullptr);
  const auto& view = weight(m, m.ids.encoder_layers[1].wqkv);
  CHECK(view.name == "encoder.layers.1.attn.Wqkv.weight");
  CHECK(view.dtype == DType::kF16);
  CHECK(view.shape == std::vector<int64_t>{192, 64});
  CHECK(view.data == ckpt.data() + wqkv->begin);
  const auto& emb = weight(m, m.ids.tok_embeddings);
  CHECK(emb.name == "encoder.embeddings.tok_embeddings.weight");
  CHECK(emb.data == ckpt.data());  // the first tensor of the data section
  CHECK(weight(m, m.ids.act_out_w).shape == std::vector<int64_t>{4, 256});
  CHECK(weight(m, m.ids.scorer_out_w).shape == std::vector<int64_t>{1, 64});
  CHECK(weight(m, m.ids.type_emb).dtype == DType::kF16);
}

TEST_CASE("F16 vectors are converted to f32 exactly, each to the values stored under its name") {
  const TinyCheckpoint ckpt([](const std::string&) { return std::string("F16"); });
  auto model = ckpt.bind();
  REQUIRE(model.ok());
  const LayaModel& m = model.value();
  size_t vectors = 0;
  for (const laya::WeightView& view : m.weights) {
    if (view.shape.size() != 1) continue;
    ++vectors;
    CAPTURE(view.name);
    const auto* entry = ckpt.header.find(view.name);
    REQUIRE(entry != nullptr);
    const auto got = floats_of(view);
    REQUIRE(got.size() * 2 == entry->byte_size());
    for (size_t i = 0; i < got.size(); ++i) {
      uint16_t bits;
      std::memcpy(&bits, ckpt.data() + entry->begin + 2 * i, 2);
      const double want = laya::testing::f16_reference(bits);
      CHECK(static_cast<double>(got[i]) == want);
      CHECK(std::signbit(got[i]) == std::signbit(want));
    }
  }
  // Encoder: embeddings norm, attn_norm of layers 1 and 2, three mlp_norms, final norm; the head
  // layer's 4 biases and 4 norm vectors; scorer 4; act head 2.
  CHECK(vectors == (1 + 2 + 3 + 1) + 8 + 4 + 2);
  CHECK(floats_of(weight(m, m.ids.scorer_out_b)).size() == 1);
}

TEST_CASE("BF16 and F32 vectors are converted too, whatever the neighbours' dtypes") {
  const TinyCheckpoint ckpt([](const std::string& name) {
    if (name.find("norm") != std::string::npos) return std::string("BF16");
    if (name.find("bias") != std::string::npos) return std::string("F32");
    return std::string("F16");
  });
  auto model = ckpt.bind();
  REQUIRE_MESSAGE(model.ok(), model.error().message);
  const LayaModel& m = model.value();

  const auto& norm = weight(m, m.ids.encoder_layers[2].mlp_norm);
  const auto* norm_entry = ckpt.header.find(norm.name);
  CHECK(norm_entry->dtype == DType::kBF16);
  const auto norm_values = floats_of(norm);
  for (size_t i = 0; i < norm_values.size(); ++i) {
    uint16_t bits;
    std::memcpy(&bits, ckpt.data() + norm_entry->begin + 2 * i, 2);
    CHECK(static_cast<double>(norm_values[i]) == laya::testing::bf16_reference(bits));
  }

  const auto& bias = weight(m, m.ids.head_layers[0].linear1_b);
  const auto* bias_entry = ckpt.header.find(bias.name);
  CHECK(bias_entry->dtype == DType::kF32);
  CHECK(bias.data != ckpt.data() + bias_entry->begin);  // copied into the side buffer
  CHECK(std::memcmp(bias.data, ckpt.data() + bias_entry->begin, bias_entry->byte_size()) == 0);
}

TEST_CASE("the model's graphs use exactly the bound weights; the temperature buffer is not among them") {
  const TinyCheckpoint ckpt([](const std::string&) { return std::string("F16"); });
  auto model = ckpt.bind();
  REQUIRE(model.ok());
  const LayaModel& m = model.value();
  CHECK(m.weights.size() + 1 == ckpt.header.tensors.size());
  for (const auto& view : m.weights) CHECK(view.name != "temperature");

  std::vector<int> uses(m.weights.size(), 0);
  for (laya::WeightId id : weights_used(m.decision)) {
    REQUIRE(id.index < m.weights.size());
    ++uses[id.index];
  }
  for (size_t i = 0; i < uses.size(); ++i) {
    CAPTURE(m.weights[i].name);
    CHECK(uses[i] == 1);  // each weight once in the decision graph
  }
  for (laya::WeightId id : weights_used(m.embedding)) {
    const std::string& name = m.weights[id.index].name;
    CHECK(name.rfind("encoder.", 0) == 0);  // the embedding graph reads the encoder only
  }
  CHECK(m.decision.logits.has_value());
  CHECK(m.decision.act.has_value());
  CHECK(m.embedding.pooled.has_value());
}

TEST_CASE("a model binds without the optional temperature buffer, and survives a move") {
  const TinyCheckpoint ckpt([](const std::string&) { return std::string("F16"); }, /*with_temperature=*/false);
  auto model = ckpt.bind();
  REQUIRE(model.ok());
  LayaModel moved = std::move(model).value();
  const auto values = floats_of(weight(moved, moved.ids.embeddings_norm));
  CHECK(values[0] == laya::testing::f16_reference(kHalves[(0 + 1) % 8]));  // tensor 1, element 0
}

TEST_CASE("binding refuses a header that does not match the config, listing the mismatches") {
  const TinyCheckpoint ckpt([](const std::string&) { return std::string("F16"); });
  laya::safetensors::Header header = ckpt.header;
  std::erase_if(header.tensors, [](const auto& t) { return t.name == "encoder.final_norm.weight"; });
  auto model = laya::bind_model(ckpt.config, header, ckpt.data());
  REQUIRE_FALSE(model.ok());
  CHECK(model.error().code == laya::ErrorCode::kInvalidCheckpoint);
  CHECK(model.error().message.find("missing encoder.final_norm.weight [64]") != std::string::npos);
}

TEST_CASE("both reference fixture checkpoints parse, pass every check and bind") {
  for (std::string set : {"tiny-fanin", "small-fanin"}) {
    CAPTURE(set);
    const auto config = laya::testing::reference_config(set);
    const auto file = laya::testing::read_bytes(laya::testing::reference_checkpoint_dir(set) + "model.safetensors");
    auto header = laya::safetensors::parse_file_header(file);
    REQUIRE_MESSAGE(header.ok(), header.error().message);
    CHECK(laya::check_tensors(config, header.value()).ok());
    const std::byte* data = file.data() + header.value().data_offset;
    auto model = laya::bind_model(config, header.value(), data);
    REQUIRE_MESSAGE(model.ok(), model.error().message);
    const LayaModel& m = model.value();
    CHECK(m.weights.size() + 1 == header.value().tensors.size());

    // Vectors hold the stored values (F32 in tiny-fanin, F16 in small-fanin) converted exactly.
    for (laya::WeightId id : {m.ids.embeddings_norm, m.ids.head_layers[1].norm2_b, m.ids.act_out_b}) {
      const auto& view = weight(m, id);
      const auto* entry = header.value().find(view.name);
      const auto got = floats_of(view);
      for (size_t i = 0; i < got.size(); ++i) {
        double want;
        if (entry->dtype == DType::kF32) {
          float f;
          std::memcpy(&f, data + entry->begin + 4 * i, 4);
          want = f;
        } else {
          uint16_t bits;
          std::memcpy(&bits, data + entry->begin + 2 * i, 2);
          want = laya::testing::f16_reference(bits);
        }
        CHECK(static_cast<double>(got[i]) == want);
      }
    }
    // Matrices stay in the file buffer.
    const auto& wi = weight(m, m.ids.encoder_layers.back().wi);
    CHECK(wi.data == data + header.value().find(wi.name)->begin);
    CHECK(wi.dtype == (set == "tiny-fanin" ? DType::kF32 : DType::kF16));
    CHECK(m.decision.ops.size() > m.embedding.ops.size());
  }
}

TEST_CASE("a norm weight or bias holding NaN or Inf is refused at bind, naming it and the element") {
  struct Case {
    const char* name;
    const char* dtype;
    uint32_t bits;
    size_t element;
    const char* shown;
  };
  for (const Case& c : {Case{"encoder.final_norm.weight", "F16", 0x7E00, 5, "nan"},
                        Case{"head.layers.0.linear1.bias", "F32", 0xFF800000u, 0, "-inf"},
                        Case{"encoder.layers.2.mlp_norm.weight", "BF16", 0x7F80, 63, "inf"}}) {
    CAPTURE(c.name);
    TinyCheckpoint ckpt([&](const std::string& name) { return std::string(name == c.name ? c.dtype : "F16"); });
    const auto* entry = ckpt.header.find(c.name);
    REQUIRE(entry != nullptr);
    const size_t size = std::string(c.dtype) == "F32" ? 4 : 2;
    std::memcpy(ckpt.file.data() + ckpt.header.data_offset + entry->begin + c.element * size, &c.bits, size);  // little-endian host
    auto model = ckpt.bind();
    REQUIRE_FALSE(model.ok());
    CHECK(model.error().code == laya::ErrorCode::kInvalidCheckpoint);
    CHECK(model.error().message == "model.safetensors: " + std::string(c.name) + " holds " + c.shown + " at element " +
                                       std::to_string(c.element) +
                                       "; a norm weight or bias that is not finite makes every output non-finite");
  }
}

TEST_CASE("a matrix holding NaN still binds: matrices are not scanned, the answers they reach fail instead") {
  TinyCheckpoint ckpt([](const std::string&) { return std::string("F16"); });
  ckpt.put_nan_at_start_of("scorer.1.weight");
  CHECK(ckpt.bind().ok());
}

TEST_CASE("planning reads no weight: its views are where binding puts the matrices, its graphs the same") {
  TinyCheckpoint ckpt([](const std::string&) { return std::string("F16"); });
  // A NaN norm weight: binding converts and refuses it, planning never looks at it.
  ckpt.put_nan_at_start_of("encoder.final_norm.weight");
  auto plan = laya::plan_model(ckpt.config, ckpt.header, ckpt.data());
  REQUIRE(plan.ok());
  CHECK_FALSE(ckpt.bind().ok());

  TinyCheckpoint clean([](const std::string&) { return std::string("F16"); });
  auto clean_plan = laya::plan_model(clean.config, clean.header, clean.data());
  auto model = clean.bind();
  REQUIRE(clean_plan.ok());
  REQUIRE(model.ok());
  const auto& planned = clean_plan.value().weights;
  const auto& bound = model.value().weights;
  REQUIRE(planned.size() == bound.size());
  for (size_t i = 0; i < planned.size(); ++i) {
    CAPTURE(planned[i].name);
    CHECK(planned[i].name == bound[i].name);
    CHECK(planned[i].data == clean.data() + clean.header.find(planned[i].name)->begin);
    if (planned[i].shape.size() == 2) CHECK(planned[i].data == bound[i].data);
  }
  CHECK(clean_plan.value().decision.ops.size() == model.value().decision.ops.size());
  CHECK(clean_plan.value().embedding.ops.size() == model.value().embedding.ops.size());
}
