// The Unicode data the tokenizer needs, generated into unicode_tables.cc by
// scripts/gen_tok_unicode_tables.py (see there for the versions: classes are Unicode 16.0, NFC is
// Unicode 9.0, as Hugging Face tokenizers has them). Lookups are binary searches (laya-spec §4.3).
#pragma once

#include <cstddef>
#include <cstdint>

namespace laya::tok {

// Character class bits used by the pre-tokenizer regexes and the added-token rules.
enum CharClass : uint8_t {
  kClassLetter = 1,      // \p{L}
  kClassNumber = 2,      // \p{N}
  kClassWhiteSpace = 4,  // White_Space: regex \s, Rust char::is_whitespace
  kClassWord = 8,        // regex \w: Alphabetic, Mark, Decimal_Number, Connector_Punctuation, Join_Control
};

struct ClassRange {
  char32_t first, last;
  uint8_t classes;  // CharClass bits
};
struct CombiningClassRange {
  char32_t first, last;
  uint8_t ccc;
};
struct Decomposition {
  char32_t code_point;
  uint16_t start;  // into kDecompositionData
  uint8_t length;  // the full canonical decomposition, at most 4 code points
};
struct Composition {
  char32_t first, second, composite;
};

extern const ClassRange kClassRanges[];
extern const size_t kClassRangeCount;
extern const CombiningClassRange kCombiningClassRanges[];
extern const size_t kCombiningClassRangeCount;
extern const Decomposition kDecompositions[];
extern const size_t kDecompositionCount;
extern const char32_t kDecompositionData[];
extern const Composition kCompositions[];  // sorted by (first, second)
extern const size_t kCompositionCount;

// CharClass bits of a code point (0 for anything else).
uint8_t char_classes(char32_t c);
inline bool is_letter(char32_t c) { return char_classes(c) & kClassLetter; }
inline bool is_number(char32_t c) { return char_classes(c) & kClassNumber; }
inline bool is_white_space(char32_t c) { return char_classes(c) & kClassWhiteSpace; }
inline bool is_word_char(char32_t c) { return char_classes(c) & kClassWord; }

}  // namespace laya::tok
