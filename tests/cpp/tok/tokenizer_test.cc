// Loading: special ids resolved by name, vocabulary size, embedding ids with truncation (expected
// ids from Hugging Face tokenizers 0.23.2 with truncation=max_length), and the errors for files
// this engine cannot or must not run.
#include "tok/tokenizer.h"

#include <doctest/doctest.h>

#include "tok_test_files.h"

using laya::tok::Tokenizer;
using laya::tok::testing::english;
using laya::tok::testing::read_file;
using laya::tok::testing::fixture_path;
using Ids = std::vector<int32_t>;

namespace {

const std::string& english_json() {
  static const std::string s = read_file(fixture_path("upstream/english/tokenizer/tokenizer.json"));
  return s;
}
const std::string& english_config() {
  static const std::string s = read_file(fixture_path("upstream/english/tokenizer/tokenizer_config.json"));
  return s;
}

std::string replace_once(std::string s, const std::string& from, const std::string& to) {
  const size_t at = s.find(from);
  REQUIRE_MESSAGE(at != std::string::npos, "no '" << from << "' to replace");
  return s.replace(at, from.size(), to);
}

laya::Error load_error(const std::string& json, const std::string& config) {
  auto t = Tokenizer::load(json, config);
  REQUIRE_FALSE(t.ok());
  return t.error();
}

}  // namespace

TEST_CASE("the English special ids and mask literal are resolved from the config by name") {
  CHECK(english().special_ids().cls == 50281);
  CHECK(english().special_ids().sep == 50282);
  CHECK(english().special_ids().pad == 50283);
  CHECK(english().special_ids().mask == 50284);
  CHECK(english().mask_literal() == "[MASK]");
  CHECK(english().vocab_size() == 50368);
  CHECK(english().token_to_id("[UNK]") == 50280);
  CHECK(english().token_to_id("\xC4\xA0the") == 253);  // "Ġthe" from the model vocabulary
  CHECK_FALSE(english().token_to_id("no such token").has_value());
}

TEST_CASE("special tokens may be named by an object with content, and are looked up by name") {
  // Swapping the config's names swaps the ids: nothing is hard-coded.
  const std::string config = R"({"cls_token": {"content": "[SEP]", "__type": "AddedToken"},
    "sep_token": "[CLS]", "pad_token": "<|padding|>", "mask_token": "[MASK]"})";
  auto t = Tokenizer::load(english_json(), config);
  REQUIRE(t.ok());
  CHECK(t.value().special_ids().cls == 50282);
  CHECK(t.value().special_ids().sep == 50281);
  CHECK(t.value().special_ids().pad == 1);  // an added token that is also in the model vocabulary
}

TEST_CASE("embedding ids are CLS content SEP with the content truncated from the end") {
  CHECK(english().encode_for_embedding("", 512) == Ids{50281, 50282});
  const std::string fox = "The quick brown fox jumps over the lazy dog.";
  CHECK(english().encode_for_embedding(fox, 512) ==
        Ids{50281, 510, 3158, 8516, 30013, 27287, 689, 253, 22658, 4370, 15, 50282});
  CHECK(english().encode_for_embedding(fox, 6) == Ids{50281, 510, 3158, 8516, 30013, 50282});
  CHECK(english().encode_for_embedding("[MASK] is here", 512) == Ids{50281, 50284, 310, 1060, 50282});
  CHECK(english().encode_for_embedding(fox, 2) == Ids{50281, 50282});
}

TEST_CASE("invalid UTF-8 is replaced by U+FFFD before tokenizing") {
  CHECK(english().encode("a\xFF" "b") == english().encode("a\xEF\xBF\xBD" "b"));
}

TEST_CASE("a mask token missing from the vocabulary is an invalid checkpoint naming it") {
  const std::string config = replace_once(english_config(), "\"mask_token\": \"[MASK]\"", "\"mask_token\": \"<mask>\"");
  const laya::Error e = load_error(english_json(), config);
  CHECK(e.code == laya::ErrorCode::kInvalidCheckpoint);
  CHECK(e.message == "tokenizer_config.json: mask_token '<mask>' is not in the vocabulary");
  const laya::Error missing = load_error(english_json(), R"({"cls_token": "[CLS]"})");
  CHECK(missing.message == "tokenizer_config.json: sep_token is missing");
}

TEST_CASE("unsupported model, normalizer and post-processor types are named in the error") {
  const laya::Error model = load_error(replace_once(english_json(), "\"type\": \"BPE\"", "\"type\": \"Unigram\""),
                                       english_config());
  CHECK(model.code == laya::ErrorCode::kUnsupportedModel);
  CHECK(model.message == "tokenizer.json: model.type 'Unigram' is not supported (supported: BPE, WordLevel)");
  const laya::Error norm = load_error(replace_once(english_json(), "\"type\": \"NFC\"", "\"type\": \"NFKC\""),
                                      english_config());
  CHECK(norm.code == laya::ErrorCode::kUnsupportedModel);
  CHECK(norm.message.find("tokenizer.json: normalizer.type 'NFKC' is not supported") == 0);
  const laya::Error post = load_error(
      replace_once(english_json(), "\"type\": \"TemplateProcessing\"", "\"type\": \"Whatever\""), english_config());
  CHECK(post.message.find("tokenizer.json: post_processor.type 'Whatever' is not supported") == 0);
}

TEST_CASE("added token ids that Hugging Face would assign differently are rejected") {
  const std::string json = replace_once(english_json(), "\"id\": 50284", "\"id\": 50300");
  const laya::Error e = load_error(json, english_config());
  CHECK(e.code == laya::ErrorCode::kInvalidCheckpoint);
  CHECK(e.message.find("'[MASK]' has id 50300 but Hugging Face tokenizers gives it id 50284") != std::string::npos);
}

TEST_CASE("a post-processor id outside the vocabulary is rejected, since it would be emitted as written") {
  const std::string json = replace_once(english_json(), "\"ids\": [\n          50281\n        ]",
                                        "\"ids\": [\n          60000\n        ]");
  const laya::Error e = load_error(json, english_config());
  CHECK(e.code == laya::ErrorCode::kInvalidCheckpoint);
  CHECK(e.message == "tokenizer.json: post_processor adds id 60000, outside the vocabulary (ids 0 to 50367)");
}

TEST_CASE("malformed JSON is an invalid checkpoint naming the file") {
  const laya::Error e = load_error("{\"model\": ", english_config());
  CHECK(e.code == laya::ErrorCode::kInvalidCheckpoint);
  CHECK(e.message.find("tokenizer.json") != std::string::npos);
}

TEST_CASE("random bytes, valid or not, encode to ids inside the vocabulary") {
  // A small deterministic generator; inputs mix ASCII, multi-byte sequences, broken sequences,
  // added-token literals and long space runs.
  uint32_t state = 12345;
  const auto next = [&] {
    state = state * 1664525u + 1013904223u;
    return state >> 8;
  };
  const char* const pieces[] = {"[MASK]", "  ", "\xC3\xA9", "\xE2\x82", "\xF0\x9F\x98\x80", "'s", "\n", "\xFF",
                                "|||EMAIL_ADDRESS|||", "e\xCC\x81", "\xE3\x80\x80"};
  size_t total = 0;
  for (int round = 0; round < 300; ++round) {
    std::string text;
    const uint32_t n = next() % 200;
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t r = next();
      if (r % 3 == 0) {
        text += pieces[(r >> 4) % (sizeof(pieces) / sizeof(pieces[0]))];
      } else {
        text.push_back(static_cast<char>((r >> 4) & 0xFF));
      }
    }
    const Ids ids = english().encode(text);
    total += ids.size();
    for (int32_t id : ids) REQUIRE((id >= 0 && static_cast<size_t>(id) < english().vocab_size()));
    CHECK((text.empty() || !ids.empty()));
  }
  MESSAGE("encoded 300 random texts into " << total << " ids");
}
