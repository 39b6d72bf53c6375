// Shortest round-trip digits by search: for p = 1..17 significant digits, the correctly rounded
// p-digit decimal (snprintf "%.*e") is tried first, then its two neighbours in the last digit,
// since next to a power of two the rounding interval is lopsided and the nearest p-digit decimal
// can miss it while a neighbour lands inside. strtod decides, so ties to even are honoured
// exactly as the reader will honour them. This is what CPython's dtoa mode 0 returns.
#include "decide/pyfloat.h"

#include <cassert>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace laya::decide {
namespace {

struct Decimal {
  std::string digits;  // significant digits, no leading or trailing zeros (except "0")
  int exponent = 0;    // scientific exponent of the first digit
};

// Splits snprintf's "d.ddde±x" (sign already removed) into digits and exponent.
Decimal parse_scientific(const char* text) {
  Decimal d;
  const char* p = text;
  for (; *p != 'e'; ++p) {
    if (*p != '.') d.digits += *p;
  }
  d.exponent = std::atoi(p + 1);
  return d;
}

double decimal_value(const Decimal& d) {
  std::string text = d.digits + "e" + std::to_string(d.exponent - static_cast<int>(d.digits.size()) + 1);
  return std::strtod(text.c_str(), nullptr);
}

// The p-digit decimal one unit in the last place away from `d` (up or down), keeping p digits.
Decimal step(const Decimal& d, bool up) {
  Decimal r = d;
  std::string& s = r.digits;
  int i = static_cast<int>(s.size()) - 1;
  if (up) {
    while (i >= 0 && s[i] == '9') s[i--] = '0';
    if (i < 0) {
      s.insert(s.begin(), '1');
      s.pop_back();
      ++r.exponent;
    } else {
      ++s[i];
    }
  } else {
    while (i >= 0 && s[i] == '0') s[i--] = '9';
    assert(i >= 0 && "a positive decimal always has a non-zero digit");
    --s[i];
    if (s[0] == '0' && s.size() > 1) {
      s.erase(s.begin());
      s.push_back('9');
      --r.exponent;
    }
  }
  return r;
}

void strip_trailing_zeros(Decimal& d) {
  while (d.digits.size() > 1 && d.digits.back() == '0') d.digits.pop_back();
}

// Shortest digits of a positive finite double; among equally short ones, the nearest.
Decimal shortest(double x) {
  char buf[64];
  for (int p = 1; p <= 17; ++p) {
    std::snprintf(buf, sizeof buf, "%.*e", p - 1, x);
    Decimal nearest = parse_scientific(buf);
    if (decimal_value(nearest) == x) {
      strip_trailing_zeros(nearest);
      return nearest;
    }
    for (bool up : {true, false}) {
      Decimal other = step(nearest, up);
      if (other.digits[0] != '0' && decimal_value(other) == x) {
        strip_trailing_zeros(other);
        return other;
      }
    }
  }
  assert(false && "17 significant digits always round-trip a double");
  return {};
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char c = a[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != b[i]) return false;
  }
  return true;
}

// Copies a run of digits that may have single '_' between digits; false on a misplaced '_'.
bool copy_digit_part(std::string_view s, size_t& i, std::string& out) {
  if (i >= s.size() || !is_digit(s[i])) return false;
  while (i < s.size()) {
    if (is_digit(s[i])) {
      out += s[i++];
    } else if (s[i] == '_' && i + 1 < s.size() && is_digit(s[i + 1])) {
      ++i;
    } else {
      break;
    }
  }
  return true;
}

}  // namespace

std::string float_repr(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  std::string out = std::signbit(x) ? "-" : "";
  if (x == 0) return out + "0.0";
  const Decimal d = shortest(std::fabs(x));
  const int n = static_cast<int>(d.digits.size());
  const int decpt = d.exponent + 1;  // CPython's decpt: the value is 0.<digits> * 10^decpt
  if (decpt <= -4 || decpt > 16) {
    out += d.digits[0];
    if (n > 1) out += "." + d.digits.substr(1);
    char exp[16];
    std::snprintf(exp, sizeof exp, "e%c%02d", d.exponent < 0 ? '-' : '+', std::abs(d.exponent));
    return out + exp;
  }
  if (decpt <= 0) return out + "0." + std::string(-decpt, '0') + d.digits;
  if (decpt >= n) return out + d.digits + std::string(decpt - n, '0') + ".0";
  return out + d.digits.substr(0, decpt) + "." + d.digits.substr(decpt);
}

std::string float_json(double x) {
  if (std::isnan(x)) return "NaN";
  if (std::isinf(x)) return x > 0 ? "Infinity" : "-Infinity";
  return float_repr(x);
}

double python_round(double x, int ndigits) {
  assert(ndigits >= 0 && ndigits <= 17 && "only the places this engine rounds to");
  // At or beyond 2^52 every double is an integer, so rounding to places is the identity (and
  // the fixed-point text would be long).
  if (!std::isfinite(x) || std::fabs(x) >= 4503599627370496.0) return x;
  // glibc and musl print the exact binary value correctly rounded, ties to even, as CPython's
  // dtoa mode 3 does; reading it back is then correctly rounded too.
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", ndigits, x);
  return std::strtod(buf, nullptr);
}

bool python_parse_float(std::string_view text, double& out) {
  auto is_space = [](char c) { return c == ' ' || (c >= '\t' && c <= '\r'); };
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  std::string clean;
  size_t i = 0;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) clean += text[i++];
  std::string_view rest = text.substr(i);
  if (equals_ignoring_case(rest, "inf") || equals_ignoring_case(rest, "infinity")) {
    out = clean == "-" ? -INFINITY : INFINITY;
    return true;
  }
  if (equals_ignoring_case(rest, "nan")) {
    out = NAN;
    return true;
  }
  bool mantissa = false;
  if (i < text.size() && is_digit(text[i])) mantissa = copy_digit_part(text, i, clean);
  if (i < text.size() && text[i] == '.') {
    clean += text[i++];
    if (i < text.size() && is_digit(text[i])) {
      if (!copy_digit_part(text, i, clean)) return false;
      mantissa = true;
    }
  }
  if (!mantissa) return false;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    clean += text[i++];
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) clean += text[i++];
    if (!copy_digit_part(text, i, clean)) return false;
  }
  if (i != text.size()) return false;
  out = std::strtod(clean.c_str(), nullptr);
  return true;
}

}  // namespace laya::decide
