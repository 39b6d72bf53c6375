// Loading tokenizer.json + tokenizer_config.json and the encode pipeline of Hugging Face
// tokenizers: added tokens out (raw, then normalized), normalizer, pre-tokenizer, model.
#include "tok/tokenizer.h"

#include <algorithm>
#include <unordered_set>

#include "tok/clean_up.h"
#include "tok/utf8.h"
#include "util/json.h"

namespace laya::tok {
namespace {

constexpr std::string_view kTokenizerFile = "tokenizer.json";
constexpr std::string_view kConfigFile = "tokenizer_config.json";

// A checkpoint file that is not JSON is a broken checkpoint, whatever the parser calls it.
Result<json::Value> parse_file(std::string_view text, std::string_view file) {
  auto v = json::parse(text, file);
  if (!v.ok()) return invalid_checkpoint(v.error().message);
  return v;
}

const json::Value& member_or_null(const json::Value& object, std::string_view key) {
  static const json::Value kNull;
  const json::Value* v = object.find(key);
  return v ? *v : kNull;
}

Result<std::vector<AddedToken>> parse_added_tokens(const json::Value& root) {
  const FieldPath at{kTokenizerFile, "added_tokens"};
  std::vector<AddedToken> tokens;
  const json::Value* list = root.find("added_tokens");
  if (!list || list->is_null()) return tokens;
  if (!list->is_array()) return invalid_checkpoint(at.name("") + " must be an array");
  std::unordered_set<std::string> seen;
  for (size_t i = 0; i < list->items().size(); ++i) {
    const json::Value& item = list->items()[i];
    const FieldPath item_at = at.index(i);
    if (!item.is_object()) return invalid_checkpoint(item_at.name("") + " must be an object");
    AddedToken t;
    LAYA_ASSIGN_OR_RETURN(t.content, read_string(item, "content", item_at));
    const json::Value* id = item.find("id");
    if (!id) return item_at.invalid("id", "is missing");
    LAYA_ASSIGN_OR_RETURN(t.id, read_id(*id, "id", item_at));
    LAYA_ASSIGN_OR_RETURN(t.single_word, read_bool(item, "single_word", false, item_at));
    LAYA_ASSIGN_OR_RETURN(t.lstrip, read_bool(item, "lstrip", false, item_at));
    LAYA_ASSIGN_OR_RETURN(t.rstrip, read_bool(item, "rstrip", false, item_at));
    LAYA_ASSIGN_OR_RETURN(t.special, read_bool(item, "special", false, item_at));
    LAYA_ASSIGN_OR_RETURN(t.normalized, read_bool(item, "normalized", !t.special, item_at));
    if (!seen.insert(t.content).second) {
      return item_at.invalid("content", "'" + t.content + "' appears twice in added_tokens");
    }
    tokens.push_back(std::move(t));
  }
  return tokens;
}

// Hugging Face does not take the ids written in added_tokens: a token in the model vocabulary gets
// that id, any other the next id after the vocabulary / the previous added token. A file whose ids
// disagree would be encoded with ids the checkpoint does not expect, so it is rejected.
Status check_added_ids(const std::vector<AddedToken>& tokens, const Vocab& vocab) {
  std::optional<int32_t> max_added;
  const auto vocab_size = static_cast<int64_t>(vocab.size());
  for (size_t i = 0; i < tokens.size(); ++i) {
    const AddedToken& t = tokens[i];
    if (t.content.empty()) continue;
    int64_t expected;
    if (const std::optional<int32_t> in_vocab = vocab.find(t.content)) {
      expected = *in_vocab;
    } else if (!max_added) {
      expected = vocab_size;
    } else {
      expected = (*max_added >= vocab_size || vocab_size == 0) ? *max_added + 1 : vocab_size;
    }
    if (expected != t.id) {
      return invalid_checkpoint(std::string(kTokenizerFile) + ": added_tokens[" + std::to_string(i) + "] '" +
                                t.content + "' has id " + std::to_string(t.id) +
                                " but Hugging Face tokenizers gives it id " + std::to_string(expected));
    }
    max_added = std::max(max_added.value_or(t.id), t.id);
  }
  return {};
}

// A special token's content from tokenizer_config.json: "[CLS]" or {"content": "[CLS]", ...}.
Result<std::string> special_content(const json::Value& config, std::string_view key) {
  const FieldPath at{kConfigFile, ""};
  const json::Value* v = config.find(key);
  if (!v || v->is_null()) return at.invalid(key, "is missing");
  if (v->is_string()) return v->as_string();
  if (v->is_object()) {
    const json::Value* content = v->find("content");
    if (content && content->is_string()) return content->as_string();
  }
  return at.invalid(key, "must be a string or an object with a string \"content\"");
}

// transformers tests config flags with Python's `if`: null, false, 0, "" and empty containers are false.
bool python_truth(const json::Value& v) {
  switch (v.kind()) {
    case json::Kind::kNull: return false;
    case json::Kind::kBool: return v.as_bool();
    case json::Kind::kNumber: return v.as_double() != 0.0;
    case json::Kind::kString: return !v.as_string().empty();
    case json::Kind::kArray: return !v.items().empty();
    case json::Kind::kObject: return !v.members().empty();
  }
  return false;
}

}  // namespace

const Vocab& Tokenizer::model_vocab() const {
  return std::visit([](const auto& m) -> const Vocab& { return m.vocab(); }, model_);
}

std::optional<int32_t> Tokenizer::token_to_id(std::string_view token) const {
  if (const AddedToken* t = added_.find(token)) return t->id;
  return model_vocab().find(token);
}

Result<Tokenizer> Tokenizer::load(std::string_view tokenizer_json, std::string_view tokenizer_config_json) {
  LAYA_ASSIGN_OR_RETURN(const json::Value root, parse_file(tokenizer_json, kTokenizerFile));
  LAYA_ASSIGN_OR_RETURN(const json::Value config, parse_file(tokenizer_config_json, kConfigFile));
  if (!root.is_object()) return invalid_checkpoint(std::string(kTokenizerFile) + " must be a JSON object");
  if (!config.is_object()) return invalid_checkpoint(std::string(kConfigFile) + " must be a JSON object");

  const FieldPath model_at{kTokenizerFile, "model"};
  const json::Value* model = root.find("model");
  if (!model || !model->is_object()) return invalid_checkpoint(model_at.name("") + " must be an object");
  LAYA_ASSIGN_OR_RETURN(const std::string type, read_type(*model, model_at));
  std::optional<Tokenizer> tok;
  if (type == "BPE") {
    LAYA_ASSIGN_OR_RETURN(Bpe bpe, Bpe::parse(*model, model_at));
    tok.emplace(Tokenizer(Model(std::move(bpe))));
  } else if (type == "WordLevel") {
    LAYA_ASSIGN_OR_RETURN(WordLevel wl, WordLevel::parse(*model, model_at));
    tok.emplace(Tokenizer(Model(std::move(wl))));
  } else {
    return model_at.unsupported("type", "'" + type + "' is not supported (supported: BPE, WordLevel)");
  }
  Tokenizer& t = *tok;

  LAYA_ASSIGN_OR_RETURN(t.normalizer_, Normalizer::parse(member_or_null(root, "normalizer"),
                                                         FieldPath{kTokenizerFile, "normalizer"}));
  LAYA_ASSIGN_OR_RETURN(t.pre_tokenizer_, PreTokenizer::parse(member_or_null(root, "pre_tokenizer"),
                                                              FieldPath{kTokenizerFile, "pre_tokenizer"}));
  LAYA_ASSIGN_OR_RETURN(t.post_processor_, PostProcessor::parse(member_or_null(root, "post_processor"),
                                                                FieldPath{kTokenizerFile, "post_processor"}));
  LAYA_ASSIGN_OR_RETURN(std::vector<AddedToken> added, parse_added_tokens(root));
  LAYA_RETURN_IF_ERROR(check_added_ids(added, t.model_vocab()));
  int32_t max_id = t.model_vocab().max_id();
  for (const AddedToken& a : added) max_id = std::max(max_id, a.id);
  t.vocab_size_ = static_cast<size_t>(max_id) + 1;  // max_id may be INT32_MAX
  if (const int32_t post_id = t.post_processor_.max_added_id(); post_id >= 0 && static_cast<size_t>(post_id) >= t.vocab_size_) {
    return invalid_checkpoint(std::string(kTokenizerFile) + ": post_processor adds id " + std::to_string(post_id) +
                              ", outside the vocabulary (ids 0 to " + std::to_string(t.vocab_size_ - 1) + ")");
  }
  LAYA_ASSIGN_OR_RETURN(t.id_to_token_, IdToToken::build(member_or_null(*model, "vocab"), model_at.child("vocab"),
                                                          added, t.normalizer_));
  t.added_ = AddedVocabulary(std::move(added), t.normalizer_);
  if (auto decoder = Decoder::parse(member_or_null(root, "decoder"), FieldPath{kTokenizerFile, "decoder"});
      decoder.ok()) {
    t.decoder_ = std::move(decoder).value();
  } else {
    t.decoder_error_ = decoder.error();
  }
  if (const json::Value* clean_up = config.find("clean_up_tokenization_spaces")) {
    t.clean_up_tokenization_spaces_ = python_truth(*clean_up);
  }

  // Special ids by name (laya-spec §1.4), never hard-coded.
  int32_t* const targets[] = {&t.special_ids_.cls, &t.special_ids_.sep, &t.special_ids_.pad, &t.special_ids_.mask};
  const char* const keys[] = {"cls_token", "sep_token", "pad_token", "mask_token"};
  for (size_t i = 0; i < 4; ++i) {
    LAYA_ASSIGN_OR_RETURN(const std::string content, special_content(config, keys[i]));
    const std::optional<int32_t> id = t.token_to_id(content);
    if (!id) {
      return invalid_checkpoint(std::string(kConfigFile) + ": " + keys[i] + " '" + content +
                                "' is not in the vocabulary");
    }
    *targets[i] = *id;
    if (i == 3) t.mask_literal_ = content;
  }
  return std::move(*tok);
}

std::vector<int32_t> Tokenizer::encode(std::string_view text) const {
  const std::string valid = sanitize_utf8(text);
  std::vector<int32_t> ids;
  std::vector<Word> words;
  for (Segment& segment : added_.extract_and_normalize(valid, normalizer_)) {
    if (segment.id >= 0) {
      ids.push_back(segment.id);
      continue;
    }
    words.clear();
    pre_tokenizer_.apply(Word{std::move(segment.text), segment.at_start}, words);
    for (const Word& w : words) {
      std::visit([&](const auto& m) { m.tokenize(w.text, ids); }, model_);
    }
  }
  return ids;
}

std::vector<int32_t> Tokenizer::encode_for_embedding(std::string_view text, size_t max_length) const {
  return post_processor_.apply(encode(text), max_length);
}

Result<std::string> Tokenizer::decode_without_clean_up(const std::vector<int32_t>& ids) const {
  if (decoder_error_) return *decoder_error_;
  std::vector<std::string> tokens;
  tokens.reserve(ids.size());
  for (const int32_t id : ids) {
    if (const std::string* token = id_to_token_.find(id)) tokens.push_back(*token);
  }
  return decoder_.decode(std::move(tokens));
}

Result<std::string> Tokenizer::decode(const std::vector<int32_t>& ids) const {
  LAYA_ASSIGN_OR_RETURN(std::string text, decode_without_clean_up(ids));
  if (!clean_up_tokenization_spaces_) return text;
  return clean_up_tokenization(text);
}

}  // namespace laya::tok
