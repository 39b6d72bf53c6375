// transformers' clean_up_tokenization (see clean_up.h).
#include "tok/clean_up.h"

#include <utility>

namespace laya::tok {
namespace {

// Python's str.replace(from, to): one left-to-right pass, the output never searched again.
std::string replace_all(const std::string& text, std::string_view from, std::string_view to) {
  std::string out;
  size_t begin = 0;
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, begin)) {
    out.append(text, begin, at - begin);
    out += to;
    begin = at + from.size();
  }
  out.append(text, begin);
  return out;
}

}  // namespace

std::string clean_up_tokenization(std::string_view text) {
  static constexpr std::pair<std::string_view, std::string_view> kRules[] = {
      {" .", "."},     {" ?", "?"},     {" !", "!"},     {" ,", ","},     {" ' ", "'"},
      {" n't", "n't"}, {" 'm", "'m"},   {" 's", "'s"},   {" 've", "'ve"}, {" 're", "'re"},
  };
  std::string out(text);
  for (const auto& [from, to] : kRules) out = replace_all(out, from, to);
  return out;
}

}  // namespace laya::tok
