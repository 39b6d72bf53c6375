// Step kind names, FLOP counts and the JSON of a profile (see step_profile.h).
#include "engine/step_profile.h"

#include <algorithm>
#include <cstdio>
#include <utility>


namespace laya {

namespace {

// Each alternative's kKind, in the variant's order: built from the variant itself, so the table
// cannot fall out of step with it and a step struct without a name does not compile.
template <size_t... kIndex>
constexpr std::array<const char*, sizeof...(kIndex)> step_kind_names(std::index_sequence<kIndex...>) {
  return {std::variant_alternative_t<kIndex, Step>::kKind...};
}

}  // namespace

const char* StepProfile::kind_name(size_t kind) {
  static constexpr auto kNames = step_kind_names(std::make_index_sequence<kKinds>());
  return kind < kNames.size() ? kNames[kind] : "?";
}

StepProfile& StepProfile::operator+=(const StepProfile& other) {
  for (size_t k = 0; k < kKinds; ++k) {
    seconds[k] += other.seconds[k];
    calls[k] += other.calls[k];
    flops[k] += other.flops[k];
  }
  runs += other.runs;
  return *this;
}

std::string StepProfile::to_json() const {
  std::string s = "{\"runs\":" + std::to_string(runs) + ",\"steps\":[";
  bool first = true;
  char buf[160];
  for (size_t k = 0; k < kKinds; ++k) {
    if (calls[k] == 0) continue;
    std::snprintf(buf, sizeof buf, "%s{\"kind\":\"%s\",\"calls\":%lld,\"ms\":%.3f,\"gflop\":%.6f}", first ? "" : ",",
                  kind_name(k), static_cast<long long>(calls[k]), seconds[k] * 1e3, flops[k] * 1e-9);
    s += buf;
    first = false;
  }
  return s + "]}";
}

}  // namespace laya
