// Per-language temperature overrides (laya-spec-current §13, item 1, upstream's resolve_lang_temperatures):
// `{lang: {"temperature": [choice, score, noul], "temperature_by_options": {bucket: t}} | null}`,
// keyed by the lowercased primary subtag, chosen per call by `lang`.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "decide/answer.h"
#include "util/json.h"
#include "util/status.h"

namespace laya::decide {

// One resolved override per language, in the order given (a later spelling of the same subtag wins).
struct LangTemperatures {
  std::vector<std::pair<std::string, Calibration>> by_lang;

  // The calibration for `lang` (its primary subtag), or null when no override names it.
  const Calibration* find(std::string_view lang) const;
};

// "en-GB", "EN_gb", " en " -> "en".
std::string primary_subtag(std::string_view lang);

// Validates and clamps the overrides against the checkpoint's calibration. A null entry is the
// checkpoint's calibration; a null `temperature` takes the checkpoint's three temperatures; an
// entry's `temperature_by_options` (absent or null: none) replaces the checkpoint's table rather
// than adding to it (UNVERIFIED: upstream's selection code was not read). Values are clamped as at
// load, a bool giving 1.0 (upstream 0.3.28 on).
Result<LangTemperatures> resolve_lang_temperatures(const json::Value& overrides, const Calibration& checkpoint);

}  // namespace laya::decide
