// Python repr/str of json.loads values. Printability follows str.isprintable (categories Cc, Cf,
// Co, Zs, Zl, Zp and noncharacters are escaped); without the Unicode database, code points that
// are merely unassigned in CPython's tables are printed raw (only message text is affected).
#include "decide/pyrepr.h"

#include <cmath>
#include <cstdio>

#include "decide/pyfloat.h"
#include "decide/pyjson.h"

namespace laya::decide {
namespace {

struct Range {
  uint32_t first, last;
};

// Code points str.isprintable() rejects, besides C0/C1 controls and DEL.
constexpr Range kNonPrintable[] = {
    {0xA0, 0xA0},         {0xAD, 0xAD},         {0x600, 0x605},       {0x61C, 0x61C},
    {0x6DD, 0x6DD},       {0x70F, 0x70F},       {0x890, 0x891},       {0x8E2, 0x8E2},
    {0x1680, 0x1680},     {0x180E, 0x180E},     {0x2000, 0x200F},     {0x2028, 0x202F},
    {0x205F, 0x2064},     {0x2066, 0x206F},     {0x3000, 0x3000},     {0xD800, 0xDFFF},
    {0xE000, 0xF8FF},     {0xFDD0, 0xFDEF},     {0xFEFF, 0xFEFF},     {0xFFF9, 0xFFFB},
    {0x110BD, 0x110BD},   {0x110CD, 0x110CD},   {0x13430, 0x1343F},   {0x1BCA0, 0x1BCA3},
    {0x1D173, 0x1D17A},   {0xE0001, 0xE0001},   {0xE0020, 0xE007F},   {0xF0000, 0x10FFFF},
};

bool printable(uint32_t cp) {
  if (cp < 0x20 || (cp >= 0x7F && cp < 0xA0)) return false;
  if ((cp & 0xFFFE) == 0xFFFE) return false;  // U+xFFFE / U+xFFFF noncharacters of every plane
  for (const Range& r : kNonPrintable) {
    if (cp >= r.first && cp <= r.last) return false;
  }
  return true;
}

// Decodes one UTF-8 character at s[i] (the JSON parser has validated it), advancing i.
uint32_t next_code_point(std::string_view s, size_t& i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char b0 = byte(i);
  size_t n = b0 < 0x80 ? 1 : (b0 >> 5) == 0x6 ? 2 : (b0 >> 4) == 0xE ? 3 : 4;
  if (i + n > s.size()) n = s.size() - i;
  uint32_t cp = n == 1 ? b0 : n == 2 ? (b0 & 0x1F) : n == 3 ? (b0 & 0x0F) : (b0 & 0x07);
  for (size_t k = 1; k < n; ++k) cp = (cp << 6) | (byte(i + k) & 0x3F);
  i += n;
  return cp;
}

std::string normalized_int_text(const std::string& text) { return text == "-0" ? "0" : text; }

// The integer value of a bool or an integral number as decimal text, or "" when it has none
// (a non-integral or non-finite float).
std::string integer_text(const json::Value& v) {
  if (v.is_bool()) return v.as_bool() ? "1" : "0";
  if (v.is_integer()) return normalized_int_text(v.number_text());
  const double d = v.as_double();
  if (!std::isfinite(d) || std::floor(d) != d) return "";
  char buf[400];
  std::snprintf(buf, sizeof buf, "%.0f", d);  // exact for an integral double
  return buf[0] == '-' && buf[1] == '0' && buf[2] == '\0' ? "0" : buf;
}

void append_repr(std::string& out, const json::Value& v) {
  switch (v.kind()) {
    case json::Kind::kNull: out += "None"; return;
    case json::Kind::kBool: out += v.as_bool() ? "True" : "False"; return;
    case json::Kind::kNumber: out += python_number_repr(v); return;
    case json::Kind::kString: out += python_str_repr(v.as_string()); return;
    case json::Kind::kArray: {
      out += '[';
      bool first = true;
      for (const json::Value& item : v.items()) {
        if (!first) out += ", ";
        first = false;
        append_repr(out, item);
      }
      out += ']';
      return;
    }
    case json::Kind::kObject: {
      out += '{';
      bool first = true;
      for (const json::Member* m : dict_members(v)) {
        if (!first) out += ", ";
        first = false;
        out += python_str_repr(m->first);
        out += ": ";
        append_repr(out, m->second);
      }
      out += '}';
      return;
    }
  }
}

}  // namespace

std::string python_str_repr(std::string_view s) {
  const bool has_single = s.find('\'') != std::string_view::npos;
  const bool has_double = s.find('"') != std::string_view::npos;
  const char quote = has_single && !has_double ? '"' : '\'';
  std::string out(1, quote);
  for (size_t i = 0; i < s.size();) {
    const size_t start = i;
    const uint32_t cp = next_code_point(s, i);
    if (cp == static_cast<uint32_t>(quote) || cp == '\\') {
      out += '\\';
      out += static_cast<char>(cp);
    } else if (cp == '\t') {
      out += "\\t";
    } else if (cp == '\n') {
      out += "\\n";
    } else if (cp == '\r') {
      out += "\\r";
    } else if (printable(cp)) {
      out.append(s.substr(start, i - start));
    } else {
      char buf[16];
      if (cp < 0x100) std::snprintf(buf, sizeof buf, "\\x%02x", cp);
      else if (cp < 0x10000) std::snprintf(buf, sizeof buf, "\\u%04x", cp);
      else std::snprintf(buf, sizeof buf, "\\U%08x", cp);
      out += buf;
    }
  }
  out += quote;
  return out;
}

std::string python_repr(const json::Value& v) {
  std::string out;
  append_repr(out, v);
  return out;
}

std::string python_str(const json::Value& v) { return v.is_string() ? v.as_string() : python_repr(v); }

const char* python_type_name(const json::Value& v) {
  switch (v.kind()) {
    case json::Kind::kNull: return "NoneType";
    case json::Kind::kBool: return "bool";
    case json::Kind::kNumber: return v.is_integer() ? "int" : "float";
    case json::Kind::kString: return "str";
    case json::Kind::kArray: return "list";
    case json::Kind::kObject: return "dict";
  }
  return "object";
}

std::string python_number_repr(const json::Value& number) {
  if (number.is_integer()) return normalized_int_text(number.number_text());
  return float_repr(number.as_double());
}

bool python_key_equal(const json::Value& a, const json::Value& b) {
  const auto numeric = [](const json::Value& v) { return v.is_bool() || v.is_number(); };
  if (a.is_string() || b.is_string()) {
    return a.is_string() && b.is_string() && a.as_string() == b.as_string();
  }
  if (a.is_null() || b.is_null()) return a.is_null() && b.is_null();
  if (!numeric(a) || !numeric(b)) return false;
  const bool a_float = a.is_number() && !a.is_integer();
  const bool b_float = b.is_number() && !b.is_integer();
  if (a_float && b_float) {
    const double x = a.as_double(), y = b.as_double();
    return x == y || (std::isnan(x) && std::isnan(y));
  }
  const std::string x = integer_text(a), y = integer_text(b);
  return !x.empty() && x == y;
}

}  // namespace laya::decide
