// transformers' clean_up_tokenization (PreTrainedTokenizerBase), which tokenizer.decode applies on
// top of the Hugging Face tokenizers decoder when tokenizer_config.json sets
// clean_up_tokenization_spaces (laya-spec-current §7.3 item 4; ModernBERT's config does).
#pragma once

#include <string>
#include <string_view>

namespace laya::tok {

// `text` after Python's chain of str.replace calls, in this order, each replacing every
// non-overlapping occurrence left to right in one pass: " ." -> ".", " ?" -> "?", " !" -> "!",
// " ," -> ",", " ' " -> "'", " n't" -> "n't", " 'm" -> "'m", " 's" -> "'s", " 've" -> "'ve",
// " 're" -> "'re".
std::string clean_up_tokenization(std::string_view text);

}  // namespace laya::tok
