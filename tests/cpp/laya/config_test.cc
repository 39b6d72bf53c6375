#include "laya/config.h"

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

using laya::ErrorCode;
using laya::LayerKind;
using laya::parse_config;

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  REQUIRE_MESSAGE(in.good(), path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string fixture_file(const std::string& set, const std::string& file) {
  return read_text(std::string(LAYA_FIXTURES_DIR) + "/reference/" + set + "/checkpoint/" + file);
}

// A JSON object written member by member, so that tests can replace, add or drop one field.
struct JsonObject {
  std::vector<std::pair<std::string, std::string>> members;  // key, raw JSON value

  JsonObject with(const std::string& key, const std::string& raw) const {
    JsonObject copy = *this;
    for (auto& [k, v] : copy.members) {
      if (k == key) {
        v = raw;
        return copy;
      }
    }
    copy.members.emplace_back(key, raw);
    return copy;
  }
  JsonObject without(const std::string& key) const {
    JsonObject copy;
    for (const auto& m : members) {
      if (m.first != key) copy.members.push_back(m);
    }
    return copy;
  }
  std::string text() const {
    std::string s = "{";
    for (const auto& [k, v] : members) s += (s.size() > 1 ? "," : "") + ("\"" + k + "\":") + v;
    return s + "}";
  }
};

const JsonObject kAgent = {{
    {"encoder", "\"answerdotai/ModernBERT-large\""},
    {"head_layers", "2"},
    {"max_len", "512"},
    {"head_max_len", "192"},
    {"act_costs", "{\"escalate\": 0.5}"},
    {"temperature", "[1.5, 1.25, 2.0]"},
    {"temperature_by_options", "{\"choice:2\": 1.75, \"noul:2\": 0.1}"},
    {"model_name", "\"rl-agent\""},
}};

const JsonObject kEncoder = {{
    {"model_type", "\"modernbert\""},
    {"hidden_size", "128"},
    {"num_hidden_layers", "4"},
    {"num_attention_heads", "2"},
    {"intermediate_size", "96"},
    {"vocab_size", "300"},
    {"hidden_activation", "\"gelu\""},
    {"norm_eps", "1e-05"},
    {"norm_bias", "false"},
    {"attention_bias", "false"},
    {"mlp_bias", "false"},
    {"local_attention", "16"},
    {"max_position_embeddings", "8192"},
}};

struct HostileConfig {
  const char* fault;
  JsonObject agent;
  JsonObject encoder;
  ErrorCode code;
  std::vector<std::string> message_parts;
};

}  // namespace

TEST_CASE("a transformers 4 layout encoder config gives layer kinds by every-n and the v4 RoPE bases") {
  auto c = parse_config(fixture_file("tiny-fanin", "rl_agent_config.json"),
                        fixture_file("tiny-fanin", "encoder/config.json"));
  REQUIRE_MESSAGE(c.ok(), c.error().message);
  const auto& e = c.value().encoder;
  CHECK(e.hidden_size == 64);
  CHECK(e.num_layers == 4);
  CHECK(e.num_heads == 1);
  CHECK(e.intermediate_size == 96);
  CHECK(e.vocab_size == 512);
  CHECK(e.norm_eps == 1e-5);
  CHECK(e.local_attention == 16);
  CHECK(e.window() == 8);
  CHECK(e.max_position_embeddings == 8192);
  CHECK(e.layer_kinds ==
        std::vector<LayerKind>{LayerKind::kGlobal, LayerKind::kSliding, LayerKind::kSliding, LayerKind::kGlobal});
  CHECK(e.rope_theta(LayerKind::kGlobal) == 160000.0);
  CHECK(e.rope_theta(LayerKind::kSliding) == 10000.0);
}

TEST_CASE("a transformers 5 layout encoder config gives layer kinds from layer_types and RoPE bases from rope_parameters") {
  auto c = parse_config(fixture_file("small-fanin", "rl_agent_config.json"),
                        fixture_file("small-fanin", "encoder/config.json"));
  REQUIRE_MESSAGE(c.ok(), c.error().message);
  const auto& e = c.value().encoder;
  CHECK(e.hidden_size == 128);
  CHECK(e.num_heads == 2);
  CHECK(e.window() == 16);
  const auto G = LayerKind::kGlobal, S = LayerKind::kSliding;
  CHECK(e.layer_kinds == std::vector<LayerKind>{G, S, S, G, S, S});
  CHECK(e.global_rope_theta == 160000.0);
  CHECK(e.local_rope_theta == 10000.0);
}

TEST_CASE("the agent config keeps its calibration as written, by-options entries in file order") {
  auto c = parse_config(fixture_file("small-fanin", "rl_agent_config.json"),
                        fixture_file("small-fanin", "encoder/config.json"));
  REQUIRE(c.ok());
  const auto& a = c.value();
  CHECK(a.encoder_name == "laya-wasm-fixture/random-modernbert-d128-l6");
  CHECK(a.head_layers == 2);
  CHECK(a.max_len == 512);
  CHECK(a.head_max_len == 192);
  CHECK(a.act_outputs() == 2);
  CHECK(a.act_costs == std::vector<std::string>{"escalate"});
  CHECK(a.temperature[0] == 1.6369030475616455);
  CHECK(a.temperature[1] == 1.2514300346374512);
  CHECK(a.temperature[2] == 1.983399510383606);
  REQUIRE(a.temperature_by_options.size() == 6);
  const char* buckets[] = {"choice:2", "choice:3-5", "choice:6-10", "choice:11+", "score:3-5", "noul:2"};
  for (size_t i = 0; i < 6; ++i) CHECK(a.temperature_by_options[i].first == buckets[i]);
  // Out-of-range values are kept raw: clamping belongs to the answer code (laya-spec §5.1).
  CHECK(a.temperature_by_options[3].second == 0.10058280825614929);
  CHECK(a.model_name == "laya-wasm-fixture-random");
}

TEST_CASE("the upstream English configs parse: 28 layers, every third global") {
  const std::string dir = std::string(LAYA_FIXTURES_DIR) + "/upstream/english/";
  auto c = parse_config(read_text(dir + "rl_agent_config.json"), read_text(dir + "encoder/config.json"));
  REQUIRE_MESSAGE(c.ok(), c.error().message);
  const auto& e = c.value().encoder;
  CHECK(e.hidden_size == 1024);
  CHECK(e.num_heads == 16);
  CHECK(e.intermediate_size == 2624);
  CHECK(e.vocab_size == 50368);
  CHECK(e.window() == 64);
  REQUIRE(e.layer_kinds.size() == 28);
  int global = 0;
  for (size_t i = 0; i < 28; ++i) {
    CHECK((e.layer_kinds[i] == LayerKind::kGlobal) == (i % 3 == 0));
    global += e.layer_kinds[i] == LayerKind::kGlobal;
  }
  CHECK(global == 10);
  CHECK(c.value().model_name == "rl-agent");
}

TEST_CASE("absent optional fields take upstream's defaults") {
  const JsonObject agent = {{{"encoder", "\"x\""}, {"head_layers", "1"}}};
  const JsonObject encoder = {{{"hidden_size", "64"},
                               {"num_hidden_layers", "7"},
                               {"num_attention_heads", "1"},
                               {"intermediate_size", "32"},
                               {"vocab_size", "10"}}};
  auto c = parse_config(agent.text(), encoder.text());
  REQUIRE_MESSAGE(c.ok(), c.error().message);
  const auto& a = c.value();
  CHECK(a.max_len == 512);
  CHECK(a.head_max_len == 192);
  CHECK(a.act_outputs() == 1);
  CHECK(a.temperature == std::array<double, 3>{1.0, 1.0, 1.0});
  CHECK(a.temperature_by_options.empty());
  CHECK_FALSE(a.model_name.has_value());
  const auto& e = a.encoder;
  CHECK(e.norm_eps == 1e-5);
  CHECK(e.local_attention == 128);
  CHECK(e.window() == 64);
  CHECK(e.max_position_embeddings == 8192);
  CHECK(e.global_rope_theta == 160000.0);
  CHECK(e.local_rope_theta == 10000.0);
  const auto G = LayerKind::kGlobal, S = LayerKind::kSliding;
  CHECK(e.layer_kinds == std::vector<LayerKind>{G, S, S, G, S, S, G});
}

TEST_CASE("rope_parameters wins over the transformers 4 keys, kind by kind") {
  // mmBERT's case (laya-spec §7.4): the v4 keys say 10000 for local layers, rope_parameters
  // says 160000.
  auto encoder = kEncoder.with("global_rope_theta", "1.0")
                     .with("local_rope_theta", "10000.0")
                     .with("rope_parameters", R"({"sliding_attention": {"rope_theta": 160000.0, "rope_type": "default"}})");
  auto c = parse_config(kAgent.text(), encoder.text());
  REQUIRE_MESSAGE(c.ok(), c.error().message);
  CHECK(c.value().encoder.local_rope_theta == 160000.0);
  CHECK(c.value().encoder.global_rope_theta == 1.0);  // no full_attention entry: the v4 key stays
}

TEST_CASE("layer_types wins over global_attn_every_n_layers when a config has both") {
  auto encoder = kEncoder.with("global_attn_every_n_layers", "2")
                     .with("layer_types", R"(["sliding_attention","full_attention","full_attention","sliding_attention"])");
  auto c = parse_config(kAgent.text(), encoder.text());
  REQUIRE_MESSAGE(c.ok(), c.error().message);
  const auto G = LayerKind::kGlobal, S = LayerKind::kSliding;
  CHECK(c.value().encoder.layer_kinds == std::vector<LayerKind>{S, G, G, S});
  auto every2 = parse_config(kAgent.text(), kEncoder.with("global_attn_every_n_layers", "2").text());
  REQUIRE(every2.ok());
  CHECK(every2.value().encoder.layer_kinds == std::vector<LayerKind>{G, S, G, S});
}

TEST_CASE("duplicate keys follow Python's json: the last value wins, at the first key's position") {
  const std::string agent = R"({"encoder": "x", "head_layers": 1, "head_layers": 3,
      "temperature_by_options": {"a": 1.0, "b": 2.0, "a": 3.0}, "act_costs": {"x": 1, "y": 2, "x": 3}})";
  auto c = parse_config(agent, kEncoder.text());
  REQUIRE_MESSAGE(c.ok(), c.error().message);
  CHECK(c.value().head_layers == 3);
  REQUIRE(c.value().temperature_by_options.size() == 2);
  CHECK(c.value().temperature_by_options[0] == std::pair<std::string, double>{"a", 3.0});
  CHECK(c.value().temperature_by_options[1] == std::pair<std::string, double>{"b", 2.0});
  CHECK(c.value().act_outputs() == 3);
}

TEST_CASE("a float32 or absent dtype is accepted, as is null") {
  for (std::string key : {"torch_dtype", "dtype"}) {
    CAPTURE(key);
    CHECK(parse_config(kAgent.text(), kEncoder.with(key, "\"float32\"").text()).ok());
    CHECK(parse_config(kAgent.text(), kEncoder.with(key, "null").text()).ok());
  }
}

TEST_CASE("hostile configs are rejected with the right code and a message naming the field") {
  const ErrorCode kInvalid = ErrorCode::kInvalidCheckpoint;
  const ErrorCode kUnsupported = ErrorCode::kUnsupportedModel;
  const std::string agent_file = "rl_agent_config.json: ";
  const std::string encoder_file = "encoder/config.json: ";
  const std::string kBounds = "Expected 4 < head_max_len < max_len <= max_position_embeddings";
  const std::string kCalibration = "Calibration temperatures must be finite and positive";
  std::vector<HostileConfig> cases = {
      // rl_agent_config.json
      {"agent config not JSON", {{{"encoder", "\"x\",,"}}}, kEncoder, kInvalid, {agent_file, "invalid JSON at byte"}},
      {"agent config empty", {}, kEncoder, kInvalid, {agent_file + "Laya config must specify encoder and head_layers"}},
      {"encoder missing", kAgent.without("encoder"), kEncoder, kInvalid,
       {agent_file, "Laya config must specify encoder and head_layers"}},
      {"head_layers missing", kAgent.without("head_layers"), kEncoder, kInvalid,
       {"Laya config must specify encoder and head_layers"}},
      {"encoder not a string", kAgent.with("encoder", "5"), kEncoder, kInvalid, {agent_file, "encoder must be", "got 5"}},
      {"encoder empty", kAgent.with("encoder", "\"\""), kEncoder, kInvalid, {"encoder must be a non-empty string"}},
      {"head_layers a string", kAgent.with("head_layers", "\"2\""), kEncoder, kInvalid,
       {agent_file + "head_layers must be a positive integer, got a string"}},
      {"head_layers zero", kAgent.with("head_layers", "0"), kEncoder, kInvalid,
       {"head_layers must be a positive integer, got 0"}},
      {"head_layers negative", kAgent.with("head_layers", "-2"), kEncoder, kInvalid, {"head_layers", "got -2"}},
      {"head_layers fractional", kAgent.with("head_layers", "2.0"), kEncoder, kInvalid, {"head_layers", "got 2.0"}},
      {"head_layers null", kAgent.with("head_layers", "null"), kEncoder, kInvalid, {"head_layers", "got null"}},
      {"head_layers hugely negative", kAgent.with("head_layers", "-99999999999999999999"), kEncoder, kInvalid,
       {"head_layers must be a positive integer, got -99999999999999999999"}},
      {"head_layers absurd", kAgent.with("head_layers", "100000"), kEncoder, kUnsupported,
       {"head_layers 100000 is larger than this engine supports"}},
      {"max_len a string", kAgent.with("max_len", "\"512\""), kEncoder, kInvalid,
       {"max_len must be a positive integer, got a string"}},
      {"head_max_len not below max_len", kAgent.with("head_max_len", "512"), kEncoder, kInvalid,
       {agent_file + kBounds, "head_max_len 512, max_len 512"}},
      {"head_max_len too small", kAgent.with("head_max_len", "4"), kEncoder, kInvalid, {kBounds, "head_max_len 4"}},
      {"max_len beyond the encoder", kAgent.with("max_len", "9000"), kEncoder, kInvalid,
       {kBounds, "max_len 9000, max_position_embeddings 8192"}},
      {"act_costs an array", kAgent.with("act_costs", "[]"), kEncoder, kInvalid,
       {"act_costs must be an object, got an array"}},
      {"temperature too short", kAgent.with("temperature", "[1.0, 1.0]"), kEncoder, kInvalid,
       {agent_file + kCalibration, "3 values", "got 2"}},
      {"temperature too long", kAgent.with("temperature", "[1, 1, 1, 1]"), kEncoder, kInvalid, {kCalibration, "got 4"}},
      {"temperature negative", kAgent.with("temperature", "[1.0, -1.0, 1.0]"), kEncoder, kInvalid,
       {kCalibration, "temperature[1] is -1.0"}},
      {"temperature zero", kAgent.with("temperature", "[0, 1, 1]"), kEncoder, kInvalid, {kCalibration, "temperature[0] is 0"}},
      {"temperature NaN", kAgent.with("temperature", "[1, 1, NaN]"), kEncoder, kInvalid,
       {kCalibration, "temperature[2] is NaN"}},
      {"temperature overflowing to infinity", kAgent.with("temperature", "[1e999, 1, 1]"), kEncoder, kInvalid,
       {kCalibration, "temperature[0] is 1e999"}},
      {"temperature a string", kAgent.with("temperature", "[1, \"2\", 1]"), kEncoder, kInvalid,
       {kCalibration, "temperature[1] is a string"}},
      {"temperature not an array", kAgent.with("temperature", "1.0"), kEncoder, kInvalid,
       {"temperature must be an array of 3 numbers, got 1.0"}},
      {"by-options temperature zero", kAgent.with("temperature_by_options", "{\"choice:2\": 0.0}"), kEncoder, kInvalid,
       {kCalibration, "temperature_by_options[\"choice:2\"] is 0.0"}},
      {"by-options temperature infinite", kAgent.with("temperature_by_options", "{\"noul:2\": -Infinity}"), kEncoder,
       kInvalid, {kCalibration, "temperature_by_options[\"noul:2\"] is -Infinity"}},
      {"by-options temperature null", kAgent.with("temperature_by_options", "{\"noul:2\": null}"), kEncoder, kInvalid,
       {kCalibration, "temperature_by_options[\"noul:2\"] is null"}},
      {"by-options not an object", kAgent.with("temperature_by_options", "[1.0]"), kEncoder, kInvalid,
       {"temperature_by_options must be an object, got an array"}},
      {"model_name not a string", kAgent.with("model_name", "7"), kEncoder, kInvalid,
       {"model_name must be a string, got 7"}},

      // encoder/config.json
      {"encoder config not JSON", kAgent, {{{"hidden_size", "1 2"}}}, kInvalid, {encoder_file, "invalid JSON at byte"}},
      {"another model type", kAgent, kEncoder.with("model_type", "\"bert\""), kUnsupported,
       {encoder_file + "Unsupported encoder: bert; expected modernbert"}},
      {"model type not a string", kAgent, kEncoder.with("model_type", "1"), kInvalid, {"model_type must be a string"}},
      {"tanh GELU", kAgent, kEncoder.with("hidden_activation", "\"gelu_pytorch_tanh\""), kUnsupported,
       {"hidden_activation gelu_pytorch_tanh is not supported; expected gelu"}},
      {"activation not a string", kAgent, kEncoder.with("hidden_activation", "[]"), kInvalid,
       {"hidden_activation must be a string, got an array"}},
      {"head size 32", kAgent, kEncoder.with("num_attention_heads", "4"), kUnsupported,
       {encoder_file + "hidden_size 128 is not 4 heads of 64"}},
      {"hidden not a multiple of 64", kAgent, kEncoder.with("hidden_size", "96").with("num_attention_heads", "1"),
       kUnsupported, {"hidden_size 96 is not 1 heads of 64"}},
      {"norm bias", kAgent, kEncoder.with("norm_bias", "true"), kUnsupported, {encoder_file + "norm_bias is true"}},
      {"attention bias", kAgent, kEncoder.with("attention_bias", "true"), kUnsupported, {"attention_bias is true"}},
      {"mlp bias", kAgent, kEncoder.with("mlp_bias", "true"), kUnsupported, {"mlp_bias is true"}},
      {"bias flag not a boolean", kAgent, kEncoder.with("mlp_bias", "0"), kInvalid,
       {"mlp_bias must be a boolean, got 0"}},
      {"norm_eps zero", kAgent, kEncoder.with("norm_eps", "0"), kInvalid, {"norm_eps must be a finite positive number"}},
      {"norm_eps a string", kAgent, kEncoder.with("norm_eps", "\"1e-5\""), kInvalid, {"norm_eps", "got a string"}},
      {"local_attention zero", kAgent, kEncoder.with("local_attention", "0"), kInvalid,
       {"local_attention must be a positive integer, got 0"}},
      {"max_position_embeddings a string", kAgent, kEncoder.with("max_position_embeddings", "\"8192\""), kInvalid,
       {"max_position_embeddings must be a positive integer"}},
      {"layer_types too short", kAgent, kEncoder.with("layer_types", R"(["full_attention"])"), kInvalid,
       {encoder_file + "layer_types has 1 entries, but num_hidden_layers is 4"}},
      {"layer_types unknown kind", kAgent,
       kEncoder.with("layer_types", R"(["full_attention","causal","full_attention","full_attention"])"), kInvalid,
       {"layer_types[1] must be \"full_attention\" or \"sliding_attention\", got \"causal\""}},
      {"layer_types not an array", kAgent, kEncoder.with("layer_types", "\"full_attention\""), kInvalid,
       {"layer_types must be an array of strings"}},
      {"every-n zero", kAgent, kEncoder.with("global_attn_every_n_layers", "0"), kInvalid,
       {"global_attn_every_n_layers must be a positive integer, got 0"}},
      {"scaled RoPE type", kAgent,
       kEncoder.with("rope_parameters", R"({"full_attention": {"rope_theta": 1e4, "rope_type": "yarn"}})"), kUnsupported,
       {"rope_parameters.full_attention.rope_type yarn", "Only default (unscaled) ModernBERT RoPE is supported"}},
      {"legacy rope_scaling", kAgent, kEncoder.with("rope_scaling", R"({"type": "linear", "factor": 2.0})"),
       kUnsupported, {"rope_scaling", "Only default (unscaled) ModernBERT RoPE is supported"}},
      {"flat rope_parameters", kAgent, kEncoder.with("rope_parameters", R"({"rope_theta": 1e4, "rope_type": "default"})"),
       kInvalid, {"rope_parameters has an unexpected key \"rope_theta\""}},
      {"rope_theta a string", kAgent,
       kEncoder.with("rope_parameters", R"({"sliding_attention": {"rope_theta": "1e4"}})"), kInvalid,
       {"rope_parameters.sliding_attention.rope_theta must be a finite positive number, got a string"}},
      {"rope_parameters not an object", kAgent, kEncoder.with("rope_parameters", "[]"), kInvalid,
       {"rope_parameters must be an object, got an array"}},
      {"v4 theta negative", kAgent, kEncoder.with("global_rope_theta", "-1"), kInvalid,
       {"global_rope_theta must be a finite positive number, got -1"}},
      {"half-precision encoder", kAgent, kEncoder.with("torch_dtype", "\"float16\""), kUnsupported,
       {encoder_file + "torch_dtype float16 is not supported"}},
      {"bfloat16 encoder", kAgent, kEncoder.with("dtype", "\"bfloat16\""), kUnsupported, {"dtype bfloat16 is not supported"}},
      {"dtype not a string", kAgent, kEncoder.with("dtype", "32"), kInvalid, {"dtype must be a string, got 32"}},
      {"vocab absurd", kAgent, kEncoder.with("vocab_size", "99999999999999999999999"), kUnsupported,
       {"vocab_size 99999999999999999999999 is larger than this engine supports"}},
  };
  for (const char* required : {"hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size", "vocab_size"}) {
    cases.push_back({"required field missing", kAgent, kEncoder.without(required), kInvalid,
                     {encoder_file + "missing " + required}});
    cases.push_back({"required field a string", kAgent, kEncoder.with(required, "\"7\""), kInvalid,
                     {encoder_file + required + " must be a positive integer, got a string"}});
    cases.push_back({"required field fractional", kAgent, kEncoder.with(required, "64.5"), kInvalid,
                     {encoder_file + required + " must be a positive integer, got 64.5"}});
  }

  for (const HostileConfig& c : cases) {
    const std::string fault = c.fault;
    CAPTURE(fault);
    auto r = parse_config(c.agent.text(), c.encoder.text());
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == c.code);
    for (const std::string& part : c.message_parts) {
      CHECK_MESSAGE(r.error().message.find(part) != std::string::npos, r.error().message);
    }
  }
}

TEST_CASE("config documents that are not JSON objects are rejected") {
  auto agent = parse_config("[1]", kEncoder.text());
  REQUIRE_FALSE(agent.ok());
  CHECK(agent.error().code == ErrorCode::kInvalidCheckpoint);
  CHECK(agent.error().message == "rl_agent_config.json: expected a JSON object, got an array");
  auto encoder = parse_config(kAgent.text(), "\"modernbert\"");
  REQUIRE_FALSE(encoder.ok());
  CHECK(encoder.error().message == "encoder/config.json: expected a JSON object, got a string");
  auto empty = parse_config("", kEncoder.text());
  REQUIRE_FALSE(empty.ok());
  CHECK(empty.error().code == ErrorCode::kInvalidCheckpoint);
}
