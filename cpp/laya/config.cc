// Config parsing reads each JSON document with Python's dict semantics (the last of duplicate keys
// wins, as upstream's json.load) and fails at the first problem, naming the file and the field.
#include "laya/config.h"

#include <cmath>

#include "util/json.h"

namespace laya {

namespace {

constexpr std::string_view kAgentFile = "rl_agent_config.json";
constexpr std::string_view kEncoderFile = "encoder/config.json";

// Bounds far above any real checkpoint that keep every width product well inside int64.
constexpr int64_t kMaxDimension = int64_t{1} << 24;
constexpr int64_t kMaxLayers = 4096;

// How a wrong value is written in a message: the number as written, or its kind (and a string's
// start, so that an empty or misspelled value shows).
std::string describe(const json::Value& v) {
  if (v.is_number()) return v.number_text();
  if (v.is_string()) {
    const std::string& s = v.as_string();
    if (s.size() <= 40) return "a string (\"" + s + "\")";
    size_t cut = 40;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;  // keep UTF-8 whole
    return "a string (\"" + s.substr(0, cut) + "...\")";
  }
  return json::kind_name(v.kind());
}

// Typed access to the fields of one config document.
class Fields {
 public:
  Fields(const json::Value& object, std::string_view file) : object_(object), file_(file) {}

  std::string_view file() const { return file_; }
  const json::Value* find(std::string_view key) const { return object_.find(key); }
  // The field, or nullptr when it is absent or null (HF writes unset optional fields as null).
  const json::Value* find_non_null(std::string_view key) const {
    const json::Value* v = find(key);
    return v == nullptr || v->is_null() ? nullptr : v;
  }

  Error wrong_type(std::string_view key, std::string_view expected, const json::Value& got) const {
    return invalid_checkpoint(std::string(file_) + ": " + std::string(key) + " must be " + std::string(expected) +
                              ", got " + describe(got));
  }

  // A positive integer no larger than `max`; `fallback` when absent (required when there is none).
  Result<int64_t> positive_int(std::string_view key, std::optional<int64_t> fallback, int64_t max) const {
    const json::Value* v = find(key);
    if (v == nullptr) {
      if (fallback) return *fallback;
      return invalid_checkpoint(std::string(file_) + ": missing " + std::string(key));
    }
    if (!v->is_integer()) return wrong_type(key, "a positive integer", *v);
    auto i = v->as_int64();
    if (i && *i > 0 && *i <= max) return *i;
    if ((!i && v->number_text()[0] != '-') || (i && *i > max)) {
      return unsupported_model(std::string(file_) + ": " + std::string(key) + " " + v->number_text() +
                               " is larger than this engine supports (at most " + std::to_string(max) + ")");
    }
    return wrong_type(key, "a positive integer", *v);
  }

  // A finite positive number, `fallback` when absent.
  Result<double> positive_number(std::string_view key, double fallback) const {
    const json::Value* v = find(key);
    if (v == nullptr) return fallback;
    if (!v->is_number() || !std::isfinite(v->as_double()) || v->as_double() <= 0) {
      return wrong_type(key, "a finite positive number", *v);
    }
    return v->as_double();
  }

  Result<std::optional<std::string>> optional_string(std::string_view key) const {
    const json::Value* v = find(key);
    if (v == nullptr) return std::optional<std::string>();
    if (!v->is_string()) return wrong_type(key, "a string", *v);
    return std::optional<std::string>(v->as_string());
  }

  Result<bool> boolean(std::string_view key, bool fallback) const {
    const json::Value* v = find(key);
    if (v == nullptr) return fallback;
    if (!v->is_bool()) return wrong_type(key, "a boolean", *v);
    return v->as_bool();
  }

 private:
  const json::Value& object_;
  std::string_view file_;
};

Result<json::Value> parse_object(std::string_view text, std::string_view file) {
  // Non-finite literals are read so that a NaN temperature gets the calibration message rather
  // than a syntax error; every number is checked for finiteness where it is used.
  auto doc = json::parse(text, file, json::ParseOptions{.allow_nonfinite = true});
  if (!doc.ok()) return invalid_checkpoint(doc.error().message);
  if (!doc.value().is_object()) {
    return invalid_checkpoint(std::string(file) + ": expected a JSON object, got " +
                              json::kind_name(doc.value().kind()));
  }
  return std::move(doc).value();
}

// Layer kinds: transformers 5's `layer_types`, else transformers 4's `global_attn_every_n_layers`
// (layer i is global iff i % n == 0), else every third layer global. When both are present,
// layer_types is what transformers 5 itself uses.
Result<std::vector<LayerKind>> parse_layer_kinds(const Fields& f, int64_t num_layers) {
  std::vector<LayerKind> kinds;
  if (const json::Value* types = f.find_non_null("layer_types")) {
    if (!types->is_array()) return f.wrong_type("layer_types", "an array of strings", *types);
    if (static_cast<int64_t>(types->items().size()) != num_layers) {
      return invalid_checkpoint(std::string(f.file()) + ": layer_types has " + std::to_string(types->items().size()) +
                                " entries, but num_hidden_layers is " + std::to_string(num_layers));
    }
    for (size_t i = 0; i < types->items().size(); ++i) {
      const json::Value& t = types->items()[i];
      if (t.is_string() && t.as_string() == "full_attention") {
        kinds.push_back(LayerKind::kGlobal);
      } else if (t.is_string() && t.as_string() == "sliding_attention") {
        kinds.push_back(LayerKind::kSliding);
      } else {
        return invalid_checkpoint(std::string(f.file()) + ": layer_types[" + std::to_string(i) + "] must be " +
                                  "\"full_attention\" or \"sliding_attention\", got " +
                                  (t.is_string() ? "\"" + t.as_string() + "\"" : describe(t)));
      }
    }
    return kinds;
  }
  LAYA_ASSIGN_OR_RETURN(int64_t every, f.positive_int("global_attn_every_n_layers", 3, kMaxLayers));
  for (int64_t i = 0; i < num_layers; ++i) kinds.push_back(i % every == 0 ? LayerKind::kGlobal : LayerKind::kSliding);
  return kinds;
}

Error unscaled_rope_only(const Fields& f, const std::string& field) {
  return unsupported_model(std::string(f.file()) + ": " + field +
                           ": Only default (unscaled) ModernBERT RoPE is supported");
}

// RoPE bases: transformers 4's global_rope_theta / local_rope_theta, overridden per layer kind by
// transformers 5's rope_parameters (laya-spec §1.3; ignoring it would run mmBERT's local layers
// with the wrong base, the upstream bug of laya-spec §7.4).
Status parse_rope(const Fields& f, EncoderConfig& config) {
  LAYA_ASSIGN_OR_RETURN(config.global_rope_theta, f.positive_number("global_rope_theta", 160000.0));
  LAYA_ASSIGN_OR_RETURN(config.local_rope_theta, f.positive_number("local_rope_theta", 10000.0));
  if (const json::Value* scaling = f.find_non_null("rope_scaling")) {
    (void)scaling;
    return unscaled_rope_only(f, "rope_scaling");
  }
  const json::Value* params = f.find_non_null("rope_parameters");
  if (params == nullptr) return {};
  if (!params->is_object()) return f.wrong_type("rope_parameters", "an object", *params);
  for (const auto& [kind, value] : params->members()) {
    double* theta = kind == "full_attention"      ? &config.global_rope_theta
                    : kind == "sliding_attention" ? &config.local_rope_theta
                                                  : nullptr;
    const std::string field = "rope_parameters." + kind;
    if (theta == nullptr) {
      // A flat {rope_theta, rope_type} would silently give both kinds one base: refuse to guess.
      return invalid_checkpoint(std::string(f.file()) + ": rope_parameters has an unexpected key \"" + kind +
                                "\"; expected full_attention and sliding_attention");
    }
    if (value.is_null()) continue;
    if (!value.is_object()) return f.wrong_type(field, "an object", value);
    Fields kind_fields(value, f.file());
    LAYA_ASSIGN_OR_RETURN(auto rope_type, kind_fields.optional_string("rope_type"));
    if (rope_type && *rope_type != "default") return unscaled_rope_only(f, field + ".rope_type " + *rope_type);
    if (const json::Value* t = value.find("rope_theta")) {
      if (!t->is_number() || !std::isfinite(t->as_double()) || t->as_double() <= 0) {
        return f.wrong_type(field + ".rope_theta", "a finite positive number", *t);
      }
      *theta = t->as_double();
    }
  }
  return {};
}

// Upstream builds the encoder with the config's dtype (laya-spec §3.1), so a float16 / bfloat16 config
// would make it compute the encoder in half precision. This engine computes in f32 only and would
// silently give other answers, so such configs are refused rather than run differently.
Status check_dtype(const Fields& f) {
  for (std::string_view key : {"torch_dtype", "dtype"}) {
    const json::Value* v = f.find_non_null(key);
    if (v == nullptr) continue;
    if (!v->is_string()) return f.wrong_type(key, "a string", *v);
    if (v->as_string() != "float32") {
      return unsupported_model(std::string(f.file()) + ": " + std::string(key) + " " + v->as_string() +
                               " is not supported: upstream would run the encoder in that precision, and this "
                               "engine computes in float32 only");
    }
  }
  return {};
}

Result<EncoderConfig> parse_encoder(std::string_view text) {
  LAYA_ASSIGN_OR_RETURN(json::Value doc, parse_object(text, kEncoderFile));
  const Fields f(doc, kEncoderFile);
  const std::string file(kEncoderFile);
  EncoderConfig c;

  LAYA_ASSIGN_OR_RETURN(auto model_type, f.optional_string("model_type"));
  if (model_type && *model_type != "modernbert") {
    return unsupported_model(file + ": Unsupported encoder: " + *model_type + "; expected modernbert");
  }
  LAYA_ASSIGN_OR_RETURN(c.hidden_size, f.positive_int("hidden_size", std::nullopt, kMaxDimension));
  LAYA_ASSIGN_OR_RETURN(c.num_layers, f.positive_int("num_hidden_layers", std::nullopt, kMaxLayers));
  LAYA_ASSIGN_OR_RETURN(c.num_heads, f.positive_int("num_attention_heads", std::nullopt, kMaxDimension));
  LAYA_ASSIGN_OR_RETURN(c.intermediate_size, f.positive_int("intermediate_size", std::nullopt, kMaxDimension));
  LAYA_ASSIGN_OR_RETURN(c.vocab_size, f.positive_int("vocab_size", std::nullopt, kMaxDimension));
  if (c.hidden_size != c.num_heads * kHeadDim) {
    return unsupported_model(file + ": hidden_size " + std::to_string(c.hidden_size) + " is not " +
                             std::to_string(c.num_heads) + " heads of 64");
  }

  LAYA_ASSIGN_OR_RETURN(auto activation, f.optional_string("hidden_activation"));
  if (activation && *activation != "gelu") {
    return unsupported_model(file + ": hidden_activation " + *activation +
                             " is not supported; expected gelu (exact erf GELU)");
  }
  for (std::string_view key : {"norm_bias", "attention_bias", "mlp_bias"}) {
    LAYA_ASSIGN_OR_RETURN(bool bias, f.boolean(key, false));
    if (bias) {
      return unsupported_model(file + ": " + std::string(key) +
                               " is true; this engine runs ModernBERT encoders without those biases");
    }
  }
  LAYA_ASSIGN_OR_RETURN(c.norm_eps, f.positive_number("norm_eps", 1e-5));
  LAYA_ASSIGN_OR_RETURN(c.local_attention, f.positive_int("local_attention", 128, kMaxDimension));
  LAYA_ASSIGN_OR_RETURN(c.max_position_embeddings, f.positive_int("max_position_embeddings", 8192, kMaxDimension));
  LAYA_ASSIGN_OR_RETURN(c.layer_kinds, parse_layer_kinds(f, c.num_layers));
  LAYA_RETURN_IF_ERROR(parse_rope(f, c));
  LAYA_RETURN_IF_ERROR(check_dtype(f));
  return c;
}

Error bad_temperature(const std::string& detail) {
  return invalid_checkpoint(std::string(kAgentFile) + ": Calibration temperatures must be finite and positive; " +
                            detail);
}

Result<double> temperature_value(const json::Value& v, const std::string& name) {
  if (!v.is_number()) return bad_temperature(name + " is " + describe(v));
  const double t = v.as_double();
  if (!std::isfinite(t) || t <= 0) return bad_temperature(name + " is " + v.number_text());
  return t;
}

Status parse_agent(std::string_view text, LayaConfig& c) {
  LAYA_ASSIGN_OR_RETURN(json::Value doc, parse_object(text, kAgentFile));
  const Fields f(doc, kAgentFile);
  const std::string file(kAgentFile);

  if (f.find("encoder") == nullptr || f.find("head_layers") == nullptr) {
    return invalid_checkpoint(file + ": Laya config must specify encoder and head_layers");
  }
  const json::Value& encoder = *f.find("encoder");
  if (!encoder.is_string() || encoder.as_string().empty()) {
    return f.wrong_type("encoder", "a non-empty string (the encoder's Hub id)", encoder);
  }
  c.encoder_name = encoder.as_string();
  LAYA_ASSIGN_OR_RETURN(c.head_layers, f.positive_int("head_layers", std::nullopt, kMaxLayers));
  LAYA_ASSIGN_OR_RETURN(c.max_len, f.positive_int("max_len", 512, kMaxDimension));
  LAYA_ASSIGN_OR_RETURN(c.head_max_len, f.positive_int("head_max_len", 192, kMaxDimension));

  if (const json::Value* costs = f.find("act_costs")) {
    if (!costs->is_object()) return f.wrong_type("act_costs", "an object", *costs);
    for (const auto& [name, cost] : costs->python_dict_members()) c.act_costs.push_back(name);
  }

  if (const json::Value* t = f.find("temperature")) {
    if (!t->is_array()) return f.wrong_type("temperature", "an array of 3 numbers", *t);
    if (t->items().size() != 3) {
      return bad_temperature("temperature must hold 3 values (choice, score, noul), got " +
                             std::to_string(t->items().size()));
    }
    for (size_t i = 0; i < 3; ++i) {
      LAYA_ASSIGN_OR_RETURN(c.temperature[i], temperature_value(t->items()[i], "temperature[" + std::to_string(i) + "]"));
    }
  }
  if (const json::Value* by = f.find("temperature_by_options")) {
    if (!by->is_object()) return f.wrong_type("temperature_by_options", "an object", *by);
    for (const auto& [bucket, value] : by->python_dict_members()) {
      LAYA_ASSIGN_OR_RETURN(double t, temperature_value(value, "temperature_by_options[\"" + bucket + "\"]"));
      c.temperature_by_options.emplace_back(bucket, t);
    }
  }
  LAYA_ASSIGN_OR_RETURN(c.model_name, f.optional_string("model_name"));
  return {};
}

}  // namespace

Result<LayaConfig> parse_config(std::string_view rl_agent_json, std::string_view encoder_json) {
  LayaConfig config;
  LAYA_RETURN_IF_ERROR(parse_agent(rl_agent_json, config));
  LAYA_ASSIGN_OR_RETURN(config.encoder, parse_encoder(encoder_json));
  const int64_t max_pos = config.encoder.max_position_embeddings;
  if (!(4 < config.head_max_len && config.head_max_len < config.max_len && config.max_len <= max_pos)) {
    return invalid_checkpoint(std::string(kAgentFile) +
                              ": Expected 4 < head_max_len < max_len <= max_position_embeddings, got head_max_len " +
                              std::to_string(config.head_max_len) + ", max_len " + std::to_string(config.max_len) +
                              ", max_position_embeddings " + std::to_string(max_pos));
  }
  return config;
}

}  // namespace laya
