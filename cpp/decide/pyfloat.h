// Python's float semantics where upstream's output depends on them: `repr(float)` (the shortest
// digits that read back to the same double, spelled as CPython spells them) and `round(x, n)`
// (correctly rounded from the exact binary value, ties to even). laya-spec §4.2 (state and
// criterion numbers) and §5.6 (rounding). Built on snprintf/strtod only: Emscripten 3.1.6's libc++ has no
// floating std::to_chars.
#pragma once

#include <string>
#include <string_view>

namespace laya::decide {

// CPython's repr(x): "1.0", "0.0001", "1e-05", "1e+16", "1.5e+300", "-0.0", "inf", "nan".
std::string float_repr(double x);

// The number as Python's json.dumps writes a float: repr, except "Infinity", "-Infinity", "NaN".
std::string float_json(double x);

// CPython's round(x, ndigits) for 0 <= ndigits <= 17; non-finite values come back unchanged.
double python_round(double x, int ndigits);

// Python's float(text) for a str: surrounding whitespace allowed, "inf"/"infinity"/"nan" in any
// case with an optional sign, and '_' between digits. False when Python raises ValueError.
bool python_parse_float(std::string_view text, double& out);

}  // namespace laya::decide
