// Metaspace BPE with byte fallback (the mmBERT / Gemma shape, laya-spec §4.3) on the hand-built
// tests/data/tok/metaspace-split.json, plus ByteLevel and WhitespaceSplit details. Expected ids were
// worked out by hand from the rules (see tests/data/tok/README.md for the vocabulary and merges);
// the corpus test compares against ids from Hugging Face's implementation.
#include "tok/pre_tokenizer.h"

#include <doctest/doctest.h>

#include <map>
#include <sstream>

#include "tok/tokenizer.h"
#include "tok_test_files.h"

using laya::tok::Tokenizer;
using laya::tok::testing::data_path;
using laya::tok::testing::read_file;
using Ids = std::vector<int32_t>;

namespace {

std::string replace_once(std::string s, const std::string& from, const std::string& to) {
  const size_t at = s.find(from);
  REQUIRE_MESSAGE(at != std::string::npos, "no '" << from << "' to replace");
  return s.replace(at, from.size(), to);
}

// The base file and the variants the tests (and the corpus generator) derive from it.
std::string variant(const std::string& name) {
  std::string s = read_file(data_path("tok/metaspace-split.json"));
  if (name == "first" || name == "always") {
    return replace_once(s, "\"prepend_scheme\": \"never\"", "\"prepend_scheme\": \"" + name + "\"");
  }
  if (name == "no_byte_fallback") return replace_once(s, "\"byte_fallback\": true", "\"byte_fallback\": false");
  if (name == "no_fuse") {
    return replace_once(replace_once(s, "\"byte_fallback\": true", "\"byte_fallback\": false"),
                        "\"fuse_unk\": true", "\"fuse_unk\": false");
  }
  if (name == "replace_normalizer") {
    // Gemma's own layout: spaces replaced by the normalizer, no pre-tokenizer (no split).
    s = replace_once(s, "\"normalizer\": null",
                     "\"normalizer\": {\"type\": \"Replace\", \"pattern\": {\"String\": \" \"}, \"content\": \"\xE2\x96\x81\"}");
    const size_t begin = s.find("\"pre_tokenizer\": {");
    const size_t end = s.find('}', begin);
    return s.replace(begin, end + 1 - begin, "\"pre_tokenizer\": null");
  }
  REQUIRE(name == "never");
  return s;
}

const Tokenizer& tokenizer(const std::string& name) {
  static std::map<std::string, Tokenizer> cache;
  auto it = cache.find(name);
  if (it == cache.end()) {
    auto t = Tokenizer::load(variant(name), read_file(data_path("tok/metaspace-split_config.json")));
    REQUIRE_MESSAGE(t.ok(), (t.ok() ? "" : t.error().message));
    it = cache.emplace(name, std::move(t).value()).first;
  }
  return it->second;
}

// Ids of the hand-built vocabulary (README): specials, <0xNN> at 5 + byte, then characters and merges.
constexpr int32_t kMask = 4, kSpace = 261, kZero = 267, kOne = 268, kTwo = 269, kColon = 270, kNewline = 278,
                  kLevel = 284, kLow = 286, kLeading = 292, kHello = 296, kSpaceHello = 297, kWorld = 301,
                  kSpaceWorld = 302, kSpaceSpace = 303, kUnk = 3;
constexpr int32_t byte_id(int b) { return 5 + b; }

}  // namespace

TEST_CASE("metaspace turns spaces into the meta character without prepending one") {
  CHECK(tokenizer("never").encode("hello world") == Ids{kHello, kSpaceWorld});
  CHECK(tokenizer("never").encode("hello") == Ids{kHello});
}

TEST_CASE("metaspace splits before every meta character, so a space run gives lone meta tokens") {
  // laya-spec §4.3: "  leading" -> ▁, ▁leading
  CHECK(tokenizer("never").encode("  leading") == Ids{kSpace, kLeading});
  CHECK(tokenizer("never").encode("   ") == Ids{kSpace, kSpace, kSpace});
  // laya-spec §4.3's " level 0: low" shape: ▁level, ▁, 0, :, ▁low
  CHECK(tokenizer("never").encode(" level 0: low") == Ids{kLevel, kSpace, kZero, kColon, kLow});
}

TEST_CASE("digits come out one per token when the vocabulary has no multi-digit pieces") {
  CHECK(tokenizer("never").encode("2021") == Ids{kTwo, kZero, kTwo, kOne});
}

TEST_CASE("a character missing from the vocabulary falls back to its UTF-8 bytes") {
  CHECK(tokenizer("never").encode("\xC3\xA9") == Ids{byte_id(0xC3), byte_id(0xA9)});  // é
  CHECK(tokenizer("never").encode("hello \xE2\x98\x83") ==                           // ☃
        Ids{kHello, kSpace, byte_id(0xE2), byte_id(0x98), byte_id(0x83)});
}

TEST_CASE("without byte fallback unknown characters become one fused unk, or one unk each") {
  CHECK(tokenizer("no_byte_fallback").encode("\xC3\xA9\xE2\x98\x83") == Ids{kUnk});
  CHECK(tokenizer("no_fuse").encode("\xC3\xA9\xE2\x98\x83") == Ids{kUnk, kUnk});
  CHECK(tokenizer("no_byte_fallback").encode("hello \xE2\x98\x83") == Ids{kHello, kSpace, kUnk});
}

TEST_CASE("the mask token swallows the spaces on both sides") {
  CHECK(tokenizer("never").encode("hello <mask> world") == Ids{kHello, kMask, kWorld});
  CHECK(tokenizer("never").encode("  <mask>") == Ids{kMask});
  CHECK(tokenizer("never").encode("<mask>  ") == Ids{kMask});
  CHECK(tokenizer("never").special_ids().mask == kMask);
  CHECK(tokenizer("never").mask_literal() == "<mask>");
}

TEST_CASE("newlines are ordinary tokens and do not split words") {
  CHECK(tokenizer("never").encode("hello\nworld") == Ids{kHello, kNewline, kWorld});
}

TEST_CASE("prepend_scheme first prepends only at the start of the input, always everywhere") {
  CHECK(tokenizer("first").encode("hello <mask>hello") == Ids{kSpaceHello, kMask, kHello});
  CHECK(tokenizer("always").encode("hello <mask>hello") == Ids{kSpaceHello, kMask, kSpaceHello});
  CHECK(tokenizer("first").encode("  leading") == Ids{kSpace, kLeading});  // already starts with ▁
}

TEST_CASE("with a Replace normalizer and no pre-tokenizer merges may span meta characters") {
  CHECK(tokenizer("replace_normalizer").encode("   ") == Ids{kSpaceSpace, kSpace});
  CHECK(tokenizer("replace_normalizer").encode("hello world") == Ids{kHello, kSpaceWorld});
}

TEST_CASE("the post-processor wraps metaspace ids in bos and eos, truncating content first") {
  const Tokenizer& t = tokenizer("never");
  CHECK(t.special_ids().cls == 2);
  CHECK(t.special_ids().sep == 1);
  CHECK(t.special_ids().pad == 0);
  CHECK(t.encode_for_embedding("hello world", 512) == Ids{2, kHello, kSpaceWorld, 1});
  CHECK(t.encode_for_embedding("hello world", 3) == Ids{2, kHello, 1});
  CHECK(t.encode_for_embedding("", 512) == Ids{2, 1});
}

TEST_CASE("metaspace variants agree with Hugging Face tokenizers on random inputs") {
  std::istringstream lines(read_file(data_path("tok/metaspace-hf-corpus.jsonl")));
  std::string line;
  size_t rows = 0, mismatches = 0;
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    auto row = laya::json::parse(line, "metaspace-hf-corpus.jsonl");
    REQUIRE(row.ok());
    ++rows;
    Ids expected;
    for (const auto& v : row.value().find("ids")->items()) expected.push_back(static_cast<int32_t>(*v.as_int64()));
    const std::string& name = row.value().find("variant")->as_string();
    const std::string& text = row.value().find("text")->as_string();
    if (tokenizer(name).encode(text) != expected) {
      ++mismatches;
      FAIL_CHECK(name << ": ids differ for " << text);
    }
  }
  MESSAGE("checked " << rows << " rows, " << mismatches << " mismatches");
  CHECK(rows == 3000);
  CHECK(mismatches == 0);
}

TEST_CASE("legacy metaspace files with add_prefix_space load as always or never") {
  const std::string base = variant("never");
  const auto load = [](const std::string& json) {
    return Tokenizer::load(json, read_file(data_path("tok/metaspace-split_config.json")));
  };
  auto always = load(replace_once(base, "\"prepend_scheme\": \"never\"", "\"add_prefix_space\": true"));
  REQUIRE(always.ok());
  CHECK(always.value().encode("hello") == Ids{kSpaceHello});
  auto never = load(replace_once(base, "\"prepend_scheme\": \"never\"", "\"add_prefix_space\": false"));
  REQUIRE(never.ok());
  CHECK(never.value().encode("hello") == Ids{kHello});
  auto bad = load(replace_once(base, "\"prepend_scheme\": \"never\"", "\"prepend_scheme\": \"sometimes\""));
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("pre_tokenizer.prepend_scheme") != std::string::npos);
}

TEST_CASE("WhitespaceSplit drops every kind of white space between words") {
  laya::json::Value spec = laya::json::parse(R"({"type": "WhitespaceSplit"})", "test").value();
  auto p = laya::tok::PreTokenizer::parse(spec, {"test", "pre_tokenizer"});
  REQUIRE(p.ok());
  std::vector<laya::tok::Word> words;
  p.value().apply({" a\tbc\xE3\x80\x80" "d\n", true}, words);  // U+3000 ideographic space
  REQUIRE(words.size() == 3);
  CHECK(words[0].text == "a");
  CHECK_FALSE(words[0].at_start);  // it starts after the leading space
  CHECK(words[1].text == "bc");
  CHECK(words[2].text == "d");
}

TEST_CASE("unsupported pre-tokenizers are rejected with the type named") {
  laya::json::Value spec = laya::json::parse(R"({"type": "Split", "pattern": {"Regex": "x"}})", "test").value();
  auto p = laya::tok::PreTokenizer::parse(spec, {"tokenizer.json", "pre_tokenizer"});
  REQUIRE_FALSE(p.ok());
  CHECK(p.error().code == laya::ErrorCode::kUnsupportedModel);
  CHECK(p.error().message.find("tokenizer.json: pre_tokenizer.type 'Split' is not supported") == 0);
}
