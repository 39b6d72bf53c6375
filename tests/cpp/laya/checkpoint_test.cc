#include "laya/checkpoint.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "laya/test_fixtures.h"

using laya::ErrorCode;
using laya::checkpoint_layout;
using laya::check_tensors;
using laya::safetensors::Header;
using laya::safetensors::TensorEntry;

namespace {

Header reference_header(const std::string& set) {
  auto file = laya::testing::read_bytes(laya::testing::reference_checkpoint_dir(set) + "model.safetensors");
  auto header = laya::safetensors::parse_file_header(file);
  REQUIRE_MESSAGE(header.ok(), header.error().message);
  return header.value();
}

TensorEntry& entry(Header& h, const std::string& name) {
  for (auto& t : h.tensors) {
    if (t.name == name) return t;
  }
  FAIL("no tensor " << name);
  return h.tensors.front();
}

void erase(Header& h, const std::string& name) {
  std::erase_if(h.tensors, [&](const TensorEntry& t) { return t.name == name; });
}

std::string problems_of(const laya::LayaConfig& config, const Header& h) {
  auto status = check_tensors(config, h);
  REQUIRE_FALSE(status.ok());
  CHECK(status.error().code == ErrorCode::kInvalidCheckpoint);
  CHECK(status.error().message.rfind("model.safetensors does not match the configs: ", 0) == 0);
  return status.error().message;
}

}  // namespace

TEST_CASE("the layout lists the reference checkpoints' tensors, names, shapes and module order") {
  // The fixture files were written by an independent PyTorch reference: every tensor of laya-spec §1.5
  // in module order, then the temperature buffer.
  for (std::string set : {"tiny-fanin", "small-fanin"}) {
    CAPTURE(set);
    const Header h = reference_header(set);
    const auto layout = checkpoint_layout(laya::testing::reference_config(set));
    REQUIRE(layout.tensors.size() + 1 == h.tensors.size());
    for (size_t i = 0; i < layout.tensors.size(); ++i) {
      CHECK(layout.tensors[i].name == h.tensors[i].name);
      CHECK(layout.tensors[i].shape == h.tensors[i].shape);
    }
    CHECK(h.tensors.back().name == "temperature");
    CHECK(check_tensors(laya::testing::reference_config(set), h).ok());
  }
}

TEST_CASE("the English checkpoint has 206 tensors, 205 of them weights") {
  const std::string dir = std::string(LAYA_FIXTURES_DIR) + "/upstream/english/";
  auto config = laya::parse_config(laya::testing::read_text(dir + "rl_agent_config.json"),
                                   laya::testing::read_text(dir + "encoder/config.json"));
  REQUIRE(config.ok());
  const auto layout = checkpoint_layout(config.value());
  CHECK(layout.tensors.size() + 1 == 206);  // laya-spec §1.5's count includes the temperature buffer
  int64_t parameters = 3;                   // the buffer
  for (const auto& t : layout.tensors) {
    int64_t n = 1;
    for (int64_t dim : t.shape) n *= dim;
    parameters += n;
  }
  CHECK(parameters == 421'293'830);  // laya-spec §2, matching the Hub's count
}

TEST_CASE("layer 0 has no attn_norm; every other layer has one") {
  const auto layout = checkpoint_layout(laya::testing::tiny_config());
  const auto& w = layout.weights;
  REQUIRE(w.encoder_layers.size() == 3);
  CHECK_FALSE(w.encoder_layers[0].attn_norm.has_value());
  REQUIRE(w.encoder_layers[1].attn_norm.has_value());
  CHECK(layout.tensors[w.encoder_layers[1].attn_norm->index].name == "encoder.layers.1.attn_norm.weight");
  for (const auto& t : layout.tensors) CHECK(t.name != "encoder.layers.0.attn_norm.weight");
}

TEST_CASE("weight ids point at the tensors they are named after") {
  const auto layout = checkpoint_layout(laya::testing::tiny_config());
  const auto& w = layout.weights;
  auto name = [&](laya::WeightId id) { return layout.tensors[id.index].name; };
  CHECK(name(w.tok_embeddings) == "encoder.embeddings.tok_embeddings.weight");
  CHECK(name(w.encoder_layers[2].wi) == "encoder.layers.2.mlp.Wi.weight");
  CHECK(layout.tensors[w.encoder_layers[2].wi.index].shape == std::vector<int64_t>{64, 64});
  CHECK(name(w.head_layers[0].in_proj_b) == "head.layers.0.self_attn.in_proj_bias");
  CHECK(name(w.head_layers[0].linear2_w) == "head.layers.0.linear2.weight");
  CHECK(layout.tensors[w.head_layers[0].linear2_w.index].shape == std::vector<int64_t>{64, 256});
  CHECK(name(w.scorer_out_w) == "scorer.3.weight");
  CHECK(name(w.act_hidden_w) == "act_head.0.weight");
  CHECK(layout.tensors[w.act_hidden_w.index].shape == std::vector<int64_t>{256, 68});
  CHECK(layout.tensors[w.act_out_b.index].shape == std::vector<int64_t>{4});
}

TEST_CASE("the alternative spellings of MLX conversions are accepted") {
  const auto config = laya::testing::reference_config("tiny-fanin");
  Header h = reference_header("tiny-fanin");
  auto rename = [&](const std::string& from, const std::string& to) { entry(h, from).name = to; };
  rename("head.layers.0.self_attn.in_proj_weight", "head.layers.0.self_attn.in_proj.weight");
  rename("head.layers.1.self_attn.in_proj_bias", "head.layers.1.self_attn.in_proj.bias");
  for (std::string p : {"0.weight", "0.bias", "1.weight", "1.bias", "3.weight", "3.bias"}) {
    rename("scorer." + p, "scorer.layers." + p);
  }
  rename("act_head.2.weight", "act_head.layers.2.weight");
  auto matched = laya::match_tensors(checkpoint_layout(config), h);
  REQUIRE_MESSAGE(matched.ok(), matched.error().message);
  const auto layout = checkpoint_layout(config);
  CHECK(matched.value()[layout.weights.scorer_out_w.index]->name == "scorer.layers.3.weight");
  CHECK(matched.value()[layout.weights.head_layers[0].in_proj_w.index]->name ==
        "head.layers.0.self_attn.in_proj.weight");
  CHECK(matched.value()[layout.weights.act_hidden_w.index]->name == "act_head.0.weight");
}

TEST_CASE("the temperature buffer is optional, in any float dtype, but must hold 3 values") {
  const auto config = laya::testing::reference_config("tiny-fanin");
  Header h = reference_header("tiny-fanin");
  entry(h, "temperature").dtype = laya::DType::kBF16;
  CHECK(check_tensors(config, h).ok());
  entry(h, "temperature").shape = {1, 3};
  CHECK(problems_of(config, h).find("temperature has shape [1, 3], expected [3]") != std::string::npos);
  erase(h, "temperature");
  CHECK(check_tensors(config, h).ok());
}

TEST_CASE("every mismatch between header and config is listed in one error") {
  const auto config = laya::testing::reference_config("tiny-fanin");
  Header h = reference_header("tiny-fanin");
  erase(h, "encoder.layers.2.attn_norm.weight");
  erase(h, "act_head.2.bias");
  entry(h, "encoder.layers.1.attn.Wqkv.weight").shape = {64, 192};  // transposed: same byte count
  entry(h, "type_emb.weight").shape = {2, 64};
  h.tensors.push_back(TensorEntry{"encoder.layers.0.attn_norm.weight", laya::DType::kF32, {64}, 0, 0});
  h.tensors.push_back(TensorEntry{"head.layers.2.norm1.weight", laya::DType::kF32, {64}, 0, 0});
  const std::string m = problems_of(config, h);
  CHECK_MESSAGE(m.find("6 problems") != std::string::npos, m);
  for (const char* part : {"missing encoder.layers.2.attn_norm.weight [64]", "missing act_head.2.bias [2]",
                           "encoder.layers.1.attn.Wqkv.weight has shape [64, 192], expected [192, 64]",
                           "type_emb.weight has shape [2, 64], expected [3, 64]",
                           "unexpected encoder.layers.0.attn_norm.weight [64]", "unexpected head.layers.2.norm1.weight [64]"}) {
    CHECK_MESSAGE(m.find(part) != std::string::npos, m);
  }
}

TEST_CASE("hostile headers against a valid config each name their fault") {
  const auto config = laya::testing::reference_config("tiny-fanin");
  struct Case {
    const char* fault;
    void (*mutate)(Header&);
    const char* part;
  };
  const Case cases[] = {
      {"an empty checkpoint", [](Header& h) { h.tensors.clear(); },
       "missing encoder.embeddings.tok_embeddings.weight [512, 64]"},
      {"one head layer too few", [](Header& h) {
         std::erase_if(h.tensors, [](const TensorEntry& t) { return t.name.rfind("head.layers.1.", 0) == 0; });
       }, "missing head.layers.1.linear1.weight [256, 64]"},
      {"an encoder with a bias", [](Header& h) {
         h.tensors.push_back(TensorEntry{"encoder.layers.1.attn.Wo.bias", laya::DType::kF32, {64}, 0, 0});
       }, "unexpected encoder.layers.1.attn.Wo.bias [64]"},
      {"a wrong act count", [](Header& h) { entry(h, "act_head.2.weight").shape = {3, 256}; },
       "act_head.2.weight has shape [3, 256], expected [2, 256]"},
      {"a vector stored as a matrix", [](Header& h) { entry(h, "scorer.3.bias").shape = {1, 1}; },
       "scorer.3.bias has shape [1, 1], expected [1]"},
      {"a tensor under both spellings", [](Header& h) {
         h.tensors.push_back(TensorEntry{"scorer.layers.1.bias", laya::DType::kF32, {64}, 0, 0});
       }, "scorer.1.bias and scorer.layers.1.bias are two spellings of the same tensor"},
      {"a vocabulary of another size", [](Header& h) {
         entry(h, "encoder.embeddings.tok_embeddings.weight").shape = {511, 64};
       }, "encoder.embeddings.tok_embeddings.weight has shape [511, 64], expected [512, 64]"},
  };
  for (const Case& c : cases) {
    const std::string fault = c.fault;
    CAPTURE(fault);
    Header h = reference_header("tiny-fanin");
    c.mutate(h);
    const std::string m = problems_of(config, h);
    CHECK_MESSAGE(m.find(c.part) != std::string::npos, m);
  }
}

TEST_CASE("a config of another size is told apart from the checkpoint") {
  // small-fanin's config against tiny-fanin's weights: every shape differs.
  const std::string m = problems_of(laya::testing::reference_config("small-fanin"), reference_header("tiny-fanin"));
  CHECK(m.find("encoder.embeddings.tok_embeddings.weight has shape [512, 64], expected [1024, 128]") != std::string::npos);
  CHECK(m.find("missing encoder.layers.5.mlp.Wo.weight [128, 192]") != std::string::npos);
}
