// The reference fixtures' synthetic WordLevel tokenizers (words w<id>, [UNK] for anything else)
// load, resolve their special ids by name and encode as Hugging Face tokenizers does (expected ids
// checked against tokenizers 0.23.2).
#include "tok/word_level.h"

#include <doctest/doctest.h>

#include "tok_test_files.h"

using laya::tok::testing::load_dir;
using laya::tok::testing::fixture_path;
using Ids = std::vector<int32_t>;

TEST_CASE("both reference checkpoints' tokenizers load with their special ids") {
  const auto tiny = load_dir(fixture_path("reference/tiny-fanin/checkpoint/tokenizer"));
  CHECK(tiny.special_ids().pad == 0);
  CHECK(tiny.special_ids().cls == 1);
  CHECK(tiny.special_ids().sep == 2);
  CHECK(tiny.special_ids().mask == 511);
  CHECK(tiny.vocab_size() == 512);
  CHECK(tiny.mask_literal() == "[MASK]");
  const auto small = load_dir(fixture_path("reference/small-fanin/checkpoint/tokenizer"));
  CHECK(small.special_ids().mask == 1023);
  CHECK(small.vocab_size() == 1024);
}

TEST_CASE("WordLevel splits on white space and maps unknown words to unk") {
  const auto t = load_dir(fixture_path("reference/tiny-fanin/checkpoint/tokenizer"));
  CHECK(t.encode("w5 w7  [MASK] unknown\tw510") == Ids{5, 7, 511, 3, 510});
  CHECK(t.encode("w4[MASK]w5") == Ids{4, 511, 5});  // special tokens split words
  CHECK(t.encode("[CLS]w4 [SEP]") == Ids{1, 4, 2});
  CHECK(t.encode("").empty());
  CHECK(t.encode_for_embedding("w5 w7", 512) == Ids{1, 5, 7, 2});
  CHECK(t.encode_for_embedding("", 512) == Ids{1, 2});
}

TEST_CASE("a WordLevel model whose unk token is not in its vocabulary is rejected") {
  auto v = laya::json::parse(R"({"type": "WordLevel", "vocab": {"a": 0}, "unk_token": "[UNK]"})", "test");
  REQUIRE(v.ok());
  auto m = laya::tok::WordLevel::parse(v.value(), {"tokenizer.json", "model"});
  REQUIRE_FALSE(m.ok());
  CHECK(m.error().message == "tokenizer.json: model.unk_token '[UNK]' is not in the vocabulary");
}
