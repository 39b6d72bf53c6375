// The tokenizer.json "decoder" of Hugging Face tokenizers: turns the token strings of an id
// sequence back into text (laya-spec-current §7.3 item 4, the windows of predict_long).
// Supported: ByteLevel (English, ModernBERT), Metaspace, and the Replace / ByteFallback / Fuse /
// Strip steps that Gemma-style tokenizers chain in a Sequence (tests/data/tok/metaspace-split.json,
// written in mmBERT's layout, declares Replace, ByteFallback, Fuse); null joins the tokens with
// single spaces, as Hugging Face does without a decoder.
#pragma once

#include <string>
#include <vector>

#include "tok/json_fields.h"
#include "util/json.h"
#include "util/status.h"

namespace laya::tok {

class Decoder {
 public:
  // `spec` is the "decoder" value. Other types (WordPiece, BPEDecoder, CTC) and Replace with a
  // Regex pattern are unsupported_model errors naming the field.
  static Result<Decoder> parse(const json::Value& spec, const FieldPath& at);

  // The text of `tokens`. Bytes that are not valid UTF-8 (a multi-byte character cut by the end
  // of an id window) come out as U+FFFD exactly where Hugging Face puts them.
  std::string decode(std::vector<std::string> tokens) const;

 private:
  enum class Kind { kByteLevel, kMetaspace, kReplace, kByteFallback, kFuse, kStrip };
  struct Step {
    Kind kind;
    std::string pattern;            // kReplace: the literal replaced; kMetaspace, kStrip: the character
    std::string content;            // kReplace: what replaces it
    bool drop_first_token_replacement = false;  // kMetaspace: prepend_scheme is not "never"
    size_t strip_start = 0, strip_stop = 0;      // kStrip: at most this many from each end
  };
  static Status parse_into(const json::Value& spec, const FieldPath& at, int depth, std::vector<Step>& steps);
  static void apply(const Step& step, std::vector<std::string>& tokens);

  bool present_ = false;  // a decoder was given (else: join with spaces)
  std::vector<Step> steps_;  // a Sequence flattened: each step maps the whole token list
};

}  // namespace laya::tok
