// Decoding ids back to text (laya-spec-current §7.3 item 4): the tokenizer.json decoders against
// Hugging Face tokenizers' own output (tests/data/tok/*-hf-decode.jsonl, see the README there), and
// transformers' clean-up and the U+FFFD rules on hand-written cases.
#include <doctest/doctest.h>

#include <map>
#include <sstream>

#include "tok/clean_up.h"
#include "tok/tokenizer.h"
#include "tok_test_files.h"
#include "util/json.h"

using laya::tok::clean_up_tokenization;
using laya::tok::Tokenizer;
using laya::tok::testing::data_path;
using laya::tok::testing::english;
using laya::tok::testing::fixture_path;
using laya::tok::testing::read_file;

namespace {

using Ids = std::vector<int32_t>;

const std::string kFffd = "\xEF\xBF\xBD";  // U+FFFD

Ids ids_of(const laya::json::Value& list) {
  Ids ids;
  for (const auto& v : list.items()) ids.push_back(static_cast<int32_t>(*v.as_int64()));
  return ids;
}

std::vector<laya::json::Value> read_jsonl(const std::string& rel) {
  std::istringstream lines(read_file(data_path(rel)));
  std::vector<laya::json::Value> rows;
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    auto row = laya::json::parse(line, rel);
    REQUIRE(row.ok());
    rows.push_back(std::move(row).value());
  }
  return rows;
}

std::string decoded(const Tokenizer& t, const Ids& ids) {
  auto text = t.decode(ids);
  REQUIRE_MESSAGE(text.ok(), (text.ok() ? "" : text.error().message));
  return std::move(text).value();
}

std::string decoded_without_clean_up(const Tokenizer& t, const Ids& ids) {
  auto text = t.decode_without_clean_up(ids);
  REQUIRE_MESSAGE(text.ok(), (text.ok() ? "" : text.error().message));
  return std::move(text).value();
}

std::string replace_once(std::string s, const std::string& from, const std::string& to) {
  const size_t at = s.find(from);
  REQUIRE_MESSAGE(at != std::string::npos, "no '" << from << "' to replace");
  return s.replace(at, from.size(), to);
}

// tests/data/tok/metaspace-split.json with its "decoder" value (an object, the file's last but
// one member) replaced by the JSON text `decoder`.
std::string with_decoder(const std::string& decoder) {
  std::string s = read_file(data_path("tok/metaspace-split.json"));
  const std::string key = "\"decoder\": ";
  const size_t begin = s.find(key) + key.size();
  REQUIRE(s[begin] == '{');
  size_t end = begin;
  for (int depth = 0; end < s.size(); ++end) {
    if (s[end] == '{') ++depth;
    if (s[end] == '}' && --depth == 0) break;
  }
  return s.replace(begin, end + 1 - begin, decoder);
}

Tokenizer load(const std::string& tokenizer_json, const std::string& config_json) {
  auto t = Tokenizer::load(tokenizer_json, config_json);
  REQUIRE_MESSAGE(t.ok(), (t.ok() ? "" : t.error().message));
  return std::move(t).value();
}

std::string metaspace_config() { return read_file(data_path("tok/metaspace-split_config.json")); }

// The English vocabulary's id of a token written as GPT-2 byte-level characters.
int32_t english_id(const std::string& token) {
  const std::optional<int32_t> id = english().token_to_id(token);
  REQUIRE_MESSAGE(id.has_value(), "no token " << token);
  return *id;
}

}  // namespace

TEST_CASE("the English tokenizer decodes every id sequence exactly as Hugging Face tokenizers does") {
  size_t rows = 0, mismatches = 0;
  for (const auto& row : read_jsonl("tok/english-hf-decode.jsonl")) {
    ++rows;
    const Ids ids = ids_of(*row.find("ids"));
    if (decoded_without_clean_up(english(), ids) != row.find("text")->as_string()) {
      ++mismatches;
      FAIL_CHECK("row " << rows << ": expected " << row.find("text")->as_string());
    }
  }
  MESSAGE("checked " << rows << " id sequences, " << mismatches << " mismatches");
  CHECK(rows == 2199);
  CHECK(mismatches == 0);
}

TEST_CASE("the English tokenizer's decode applies transformers' clean-up, as its tokenizer_config.json asks") {
  CHECK(english().clean_up_tokenization_spaces());
  size_t rows = 0, changed = 0, mismatches = 0;
  for (const auto& row : read_jsonl("tok/english-hf-decode.jsonl")) {
    ++rows;
    const std::string& cleaned = row.find("cleaned")->as_string();
    if (cleaned != row.find("text")->as_string()) ++changed;
    if (decoded(english(), ids_of(*row.find("ids"))) != cleaned) {
      ++mismatches;
      FAIL_CHECK("row " << rows << ": expected " << cleaned);
    }
  }
  MESSAGE(changed << " of " << rows << " texts changed by the clean-up");
  CHECK(changed >= 30);
  CHECK(mismatches == 0);
}

TEST_CASE("every decoder of the metaspace family decodes exactly as Hugging Face tokenizers does") {
  std::map<std::string, Tokenizer> tokenizers;
  std::map<std::string, size_t> rows_per_variant;
  size_t mismatches = 0;
  for (const auto& row : read_jsonl("tok/metaspace-hf-decode.jsonl")) {
    const std::string& variant = row.find("variant")->as_string();
    auto it = tokenizers.find(variant);
    if (it == tokenizers.end()) {
      it = tokenizers.emplace(variant, load(with_decoder(row.find("decoder")->as_string()), metaspace_config())).first;
    }
    ++rows_per_variant[variant];
    const Ids ids = ids_of(*row.find("ids"));
    if (decoded(it->second, ids) != row.find("text")->as_string()) {
      ++mismatches;
      FAIL_CHECK(variant << " row " << rows_per_variant[variant] << ": expected " << row.find("text")->as_string());
    }
  }
  CHECK(rows_per_variant == std::map<std::string, size_t>{{"file", 401}, {"strip", 401}, {"metaspace_never", 401},
                                                           {"metaspace_first", 401}, {"metaspace_always", 401},
                                                           {"none", 401}});
  CHECK(mismatches == 0);
}

TEST_CASE("the clean-up rewrites each of transformers' ten patterns") {
  CHECK(clean_up_tokenization("a . b ? c ! d , e") == "a. b? c! d, e");
  CHECK(clean_up_tokenization("it ' s") == "it's");
  CHECK(clean_up_tokenization("do n't") == "don't");
  CHECK(clean_up_tokenization("I 'm") == "I'm");
  CHECK(clean_up_tokenization("it 's") == "it's");
  CHECK(clean_up_tokenization("we 've") == "we've");
  CHECK(clean_up_tokenization("they 're") == "they're");
  CHECK(clean_up_tokenization("") == "");
}

TEST_CASE("the clean-up is one pass per pattern, in transformers' order, and case-sensitive") {
  // Two spaces: the pass removes one and does not look at its own output again.
  CHECK(clean_up_tokenization("a  .") == "a .");
  CHECK(clean_up_tokenization(" . .") == "..");
  // " ' " goes before " 's": "x ' 's" -> "x" + "'" + "'s".
  CHECK(clean_up_tokenization("x ' 's") == "x''s");
  // Only the listed spellings: no upper case, no "'t" without the n, no other white space.
  CHECK(clean_up_tokenization("I 'M it 'S we 'VE") == "I 'M it 'S we 'VE");
  CHECK(clean_up_tokenization("can 't") == "can 't");
  CHECK(clean_up_tokenization("a\t. b\n,") == "a\t. b\n,");
}

TEST_CASE("a tokenizer_config.json without clean_up_tokenization_spaces decodes without the clean-up") {
  // The metaspace file's own decoder turns ▁ (id 261) into a space: "▁." is " .".
  const Tokenizer plain = load(with_decoder(R"({"type": "Replace", "pattern": {"String": "▁"}, "content": " "})"),
                               metaspace_config());
  CHECK_FALSE(plain.clean_up_tokenization_spaces());
  CHECK(decoded(plain, {261, 279}) == " .");
  const std::string config = replace_once(metaspace_config(), "\"model_max_length\"",
                                          "\"clean_up_tokenization_spaces\": true, \"model_max_length\"");
  const Tokenizer cleaning = load(with_decoder(R"({"type": "Replace", "pattern": {"String": "▁"}, "content": " "})"),
                                  config);
  CHECK(cleaning.clean_up_tokenization_spaces());
  CHECK(decoded(cleaning, {261, 279}) == ".");
  CHECK(decoded_without_clean_up(cleaning, {261, 279}) == " .");
}

TEST_CASE("a byte-level window that cuts a character decodes to one U+FFFD per maximal invalid subpart") {
  // GPT-2 byte characters: E6 is "æ", 97 is "Ĺ", A5 is "¥" (日 is E6 97 A5); F0 "ð", 9F "Ł", 98 "ĺ";
  // ED "í", A0 "ł", 80 "Ģ"; F4 "ô", 90 "Ĳ".
  const auto ids = [](std::initializer_list<const char*> tokens) {
    Ids out;
    for (const char* t : tokens) out.push_back(english_id(t));
    return out;
  };
  CHECK(decoded(english(), ids({"æ", "Ĺ", "¥"})) == "日");
  CHECK(decoded(english(), ids({"æ"})) == kFffd);
  CHECK(decoded(english(), ids({"æ", "Ĺ"})) == kFffd);               // a cut lead sequence: one
  CHECK(decoded(english(), ids({"Ĺ", "¥"})) == kFffd + kFffd);       // lone continuation bytes: one each
  CHECK(decoded(english(), ids({"a", "æ", "b"})) == "a" + kFffd + "b");
  CHECK(decoded(english(), ids({"ð", "Ł", "ĺ"})) == kFffd);          // the first three bytes of an emoji
  CHECK(decoded(english(), ids({"í", "ł", "Ģ"})) == kFffd + kFffd + kFffd);  // a UTF-16 surrogate
  CHECK(decoded(english(), ids({"ô", "Ĳ"})) == kFffd + kFffd);       // past U+10FFFF
}

TEST_CASE("byte-fallback tokens that are not valid UTF-8 give one U+FFFD per byte") {
  // metaspace-split.json: <0xNN> is id NN + 5; its decoder is Replace, ByteFallback, Fuse.
  const Tokenizer t = load(read_file(data_path("tok/metaspace-split.json")), metaspace_config());
  CHECK(decoded(t, {0xE6 + 5, 0x97 + 5, 0xA5 + 5}) == "日");
  CHECK(decoded(t, {0xE6 + 5, 0x97 + 5}) == kFffd + kFffd);
  CHECK(decoded(t, {0xE6 + 5, 262, 0x97 + 5}) == kFffd + "l" + kFffd);
}

TEST_CASE("a Metaspace decoder that prepends drops every ▁ of the first token, and only there") {
  // ids: ▁▁ = 303, ▁ = 261, l = 262.
  const auto metaspace = [](const std::string& scheme) {
    return load(with_decoder(R"({"type": "Metaspace", "replacement": "▁", "prepend_scheme": ")" + scheme +
                             R"(", "split": true})"),
                metaspace_config());
  };
  CHECK(decoded(metaspace("first"), {303, 261, 262, 303}) == " l  ");
  CHECK(decoded(metaspace("always"), {303, 261, 262, 303}) == " l  ");
  CHECK(decoded(metaspace("never"), {303, 261, 262, 303}) == "   l  ");
}

TEST_CASE("Strip removes at most its count of the character from each end of each token") {
  // ids: ▁▁ = 303, l = 262, ▁lev = 282, ▁low = 286, ▁▁ then l.
  const Tokenizer t = load(with_decoder(R"({"type": "Sequence", "decoders": [
      {"type": "Replace", "pattern": {"String": "▁"}, "content": " "},
      {"type": "Strip", "content": " ", "start": 1, "stop": 1}]})"),
                           metaspace_config());
  CHECK(decoded(t, {303, 262}) == "l");        // "  " loses one space at each end
  CHECK(decoded(t, {282, 286}) == "levlow");   // " lev", " low": each token stripped alone
  const Tokenizer gemma = load(with_decoder(R"({"type": "Sequence", "decoders": [
      {"type": "Replace", "pattern": {"String": "▁"}, "content": " "},
      {"type": "Strip", "content": " ", "start": 1, "stop": 0}]})"),
                               metaspace_config());
  CHECK(decoded(gemma, {303, 262, 303}) == " l ");
}

TEST_CASE("ids with no token are left out, and no decoder joins tokens with single spaces") {
  CHECK(decoded(english(), {static_cast<int32_t>(english().vocab_size()), -1}) == "");
  // tiny-fanin's WordLevel tokenizer has no decoder; its words are w<id>.
  const Tokenizer tiny = laya::tok::testing::load_dir(fixture_path("reference/tiny-fanin/checkpoint/tokenizer"));
  CHECK(decoded(tiny, {5, 1, 7}) == "w5 [CLS] w7");
  CHECK(decoded(tiny, {}) == "");
}

TEST_CASE("an added token marked normalized decodes as its normalized form") {
  // Tokenizers 0.23 decodes such a token from its normalized text: with the Replace normalizer
  // "a b" is "a▁b", and a Metaspace decoder that prepends drops the ▁ of the first token.
  std::string json = with_decoder(R"({"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first"})");
  json = replace_once(json, "\"normalizer\": null",
                      R"("normalizer": {"type": "Replace", "pattern": {"String": " "}, "content": "▁"})");
  json = replace_once(json, "\"added_tokens\": [",
                      R"("added_tokens": [{"id": 304, "content": "a b", "normalized": true, "special": false},)");
  const Tokenizer t = load(json, metaspace_config());
  CHECK(decoded(t, {304}) == "ab");
  CHECK(decoded(t, {262, 304}) == "la b");
}

TEST_CASE("a decoder this port does not support fails decode with its name, not load or encode") {
  const auto loaded = Tokenizer::load(with_decoder(R"({"type": "WordPiece", "prefix": "##", "cleanup": true})"),
                                      metaspace_config());
  REQUIRE(loaded.ok());
  CHECK_FALSE(loaded.value().encode("hello").empty());
  const auto text = loaded.value().decode({262});
  REQUIRE_FALSE(text.ok());
  CHECK(text.error().code == laya::ErrorCode::kUnsupportedModel);
  CHECK(text.error().message.find("tokenizer.json: decoder.type") != std::string::npos);
  CHECK(text.error().message.find("WordPiece") != std::string::npos);

  const auto regex = Tokenizer::load(with_decoder(R"({"type": "Replace", "pattern": {"Regex": "x+"}, "content": ""})"),
                                     metaspace_config());
  REQUIRE(regex.ok());
  REQUIRE_FALSE(regex.value().decode({262}).ok());
  CHECK(regex.value().decode({262}).error().message.find("decoder.pattern") != std::string::npos);
}
