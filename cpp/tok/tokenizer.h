// A checkpoint's tokenizer: tokenizer.json (model, normalizer, pre-tokenizer, added tokens,
// post-processor) plus the special tokens named in tokenizer_config.json, producing exactly the ids
// Hugging Face `tokenizers` produces (laya-spec §1.4, §3.10, §4.3). Loading dispatches on the file's
// component types; anything not supported is an unsupported_model error naming the field.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "tok/added_tokens.h"
#include "tok/bpe.h"
#include "tok/decoder.h"
#include "tok/id_to_token.h"
#include "tok/normalizer.h"
#include "tok/post_processor.h"
#include "tok/pre_tokenizer.h"
#include "tok/word_level.h"
#include "util/status.h"

namespace laya::tok {

struct SpecialIds {
  int32_t cls, sep, pad, mask;
};

class Tokenizer {
 public:
  // Special ids are resolved BY NAME from tokenizer_config.json (cls_token, sep_token, pad_token,
  // mask_token: a string or an object with "content"), in the added tokens first, then the model
  // vocabulary.
  static Result<Tokenizer> load(std::string_view tokenizer_json, std::string_view tokenizer_config_json);

  // Ids of `text` with no special tokens (add_special_tokens = false). Invalid UTF-8 is replaced
  // by U+FFFD first (see utf8.h; call utf8_error() to reject it instead).
  std::vector<int32_t> encode(std::string_view text) const;

  // Ids as embed_fn_from_agent gets them (laya-spec §3.10): the post-processor's specials around the
  // content, content cut from the end so that the total fits max_length (the specials always stay,
  // even when max_length is smaller than their count).
  std::vector<int32_t> encode_for_embedding(std::string_view text, size_t max_length) const;

  // Text of `ids` as transformers' tokenizer.decode(ids) gives it (skip_special_tokens=False;
  // laya-spec-current §7.3 item 4): Hugging Face tokenizers' decode, then clean_up_tokenization
  // when tokenizer_config.json sets clean_up_tokenization_spaces (absent: false, transformers'
  // default). Ids with no token are left out. A decoder this port does not support is an
  // unsupported_model error here rather than at load, so encoding never depends on it.
  Result<std::string> decode(const std::vector<int32_t>& ids) const;
  // Hugging Face tokenizers' decode(ids, skip_special_tokens=false) alone: no clean-up.
  Result<std::string> decode_without_clean_up(const std::vector<int32_t>& ids) const;
  bool clean_up_tokenization_spaces() const { return clean_up_tokenization_spaces_; }

  const SpecialIds& special_ids() const { return special_ids_; }
  const std::string& mask_literal() const { return mask_literal_; }  // e.g. "[MASK]", "<mask>"
  // One more than the largest id of the model vocabulary and the added tokens.
  size_t vocab_size() const { return vocab_size_; }
  // A token's id: added tokens first, then the model vocabulary.
  std::optional<int32_t> token_to_id(std::string_view token) const;

 private:
  using Model = std::variant<Bpe, WordLevel>;
  Tokenizer(Model model) : model_(std::move(model)) {}
  const Vocab& model_vocab() const;

  Model model_;
  Normalizer normalizer_;
  PreTokenizer pre_tokenizer_;
  PostProcessor post_processor_;
  AddedVocabulary added_;
  SpecialIds special_ids_{};
  std::string mask_literal_;
  size_t vocab_size_ = 0;
  IdToToken id_to_token_;
  Decoder decoder_;
  std::optional<Error> decoder_error_;  // the "decoder" could not be read (see decode())
  bool clean_up_tokenization_spaces_ = false;
};

}  // namespace laya::tok
