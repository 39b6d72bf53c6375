#include "decide/lang_temperatures.h"

#include "decide/pyjson.h"
#include "decide/pyrepr.h"

namespace laya::decide {
namespace {

// clamp_temperature of upstream 0.3.28 on: a bool is not a temperature.
double clamp_override(const json::Value& raw) { return raw.is_bool() ? 1.0 : clamp_temperature(raw); }

bool python_space_ascii(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

}  // namespace

std::string primary_subtag(std::string_view lang) {
  size_t begin = 0, end = lang.size();
  while (begin < end && python_space_ascii(lang[begin])) ++begin;
  while (end > begin && python_space_ascii(lang[end - 1])) --end;
  std::string out;
  for (size_t i = begin; i < end && lang[i] != '-' && lang[i] != '_'; ++i) {
    const char c = lang[i];
    out += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  }
  return out;
}

const Calibration* LangTemperatures::find(std::string_view lang) const {
  const std::string key = primary_subtag(lang);
  if (key.empty()) return nullptr;
  for (const auto& [name, calibration] : by_lang) {
    if (name == key) return &calibration;
  }
  return nullptr;
}

Result<LangTemperatures> resolve_lang_temperatures(const json::Value& overrides, const Calibration& checkpoint) {
  LangTemperatures out;
  if (overrides.is_null()) return out;
  if (!overrides.is_object()) {
    return invalid_request(std::string("lang_temperatures must be a mapping of language -> override, got ") +
                           python_type_name(overrides));
  }
  for (const json::Member* m : dict_members(overrides)) {
    const std::string key_repr = python_str_repr(m->first);
    const json::Value& entry = m->second;
    Calibration c;
    c.by_type = checkpoint.by_type;
    if (!entry.is_null()) {
      if (!entry.is_object()) {
        return invalid_request("Language override " + key_repr + " must be a mapping, got " +
                               python_type_name(entry));
      }
      const json::Value* t = entry.find("temperature");
      if (t != nullptr && !t->is_null()) {
        if (!t->is_array() || t->items().size() != 3) {
          return invalid_request("Language override " + key_repr + " temperature must be a list of 3 floats, got " +
                                 python_repr(*t));
        }
        for (size_t i = 0; i < 3; ++i) c.by_type[i] = clamp_override(t->items()[i]);
      }
      const json::Value* table = entry.find("temperature_by_options");
      if (table != nullptr && !table->is_null()) {
        if (!table->is_object()) {
          return invalid_request("Language override " + key_repr +
                                 " temperature_by_options must be a mapping of bucket -> float, got " +
                                 python_type_name(*table));
        }
        for (const json::Member* b : dict_members(*table)) c.by_options.emplace_back(b->first, clamp_override(b->second));
      }
    } else {
      c.by_options = checkpoint.by_options;
    }
    const std::string name = primary_subtag(m->first);
    bool replaced = false;
    for (auto& [existing, calibration] : out.by_lang) {
      if (existing == name) {
        calibration = c;
        replaced = true;
      }
    }
    if (!replaced) out.by_lang.emplace_back(name, std::move(c));
  }
  return out;
}

}  // namespace laya::decide
