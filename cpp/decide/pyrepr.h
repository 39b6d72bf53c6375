// Python's view of a JSON value as json.loads builds it (dict, list, str, int, float, bool,
// None): repr and str for upstream's validation messages and option texts (laya-spec §4.1, §4.2), the
// type names those messages print, and dict-key equality (1 == 1.0 == True) for label lists.
#pragma once

#include <string>
#include <string_view>

#include "util/json.h"

namespace laya::decide {

// repr(s) of a Python str: single quotes unless s has a ' and no ", escapes as CPython writes
// them (\n, \t, \r, \\, \xNN, \uNNNN, \UNNNNNNNN for non-printable characters).
std::string python_str_repr(std::string_view s);

// repr(v): "'text'", "1", "1.5", "True", "None", "['a', 1]", "{'k': 2.0}".
std::string python_repr(const json::Value& v);

// str(v): like repr, but a str is itself.
std::string python_str(const json::Value& v);

// type(v).__name__: "dict", "list", "str", "int", "float", "bool", "NoneType".
const char* python_type_name(const json::Value& v);

// The number as Python prints it after json.loads: an int exactly (so "-0" is "0"), a float as
// float(text) reprs (so "1e400" is "inf" and json.dumps writes "Infinity").
std::string python_number_repr(const json::Value& number);

// `a == b` for two scalars used as dict keys (str, number, bool, None). Numbers compare exactly
// across int and float, True == 1 and False == 0; every NaN json.loads makes is the same object,
// so NaN keys are equal too.
bool python_key_equal(const json::Value& a, const json::Value& b);

}  // namespace laya::decide
