#!/usr/bin/env bash
# The C++ tests under AddressSanitizer + UndefinedBehaviorSanitizer (+ LeakSanitizer, on with ASan
# on Linux): builds the `asan` preset (clang, LAYA_SANITIZE=ON, Debug) and runs ctest on it.
# Any sanitizer report fails its test. Usage: scripts/sanitize.sh [ctest -R regex]
set -euo pipefail
cd "$(dirname "$0")/.."

jobs="${LAYA_JOBS:-2}"
cmake --preset asan >/dev/null
cmake --build --preset asan -j "$jobs"

# allocator_may_return_null: the engine reports a failed allocation as out_of_memory (a test asks
# for 2^48 bytes), which ASan would otherwise turn into an abort. detect_leaks: LSan at exit.
export ASAN_OPTIONS="allocator_may_return_null=1:detect_leaks=1:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

args=(--test-dir build/asan --output-on-failure -j "$jobs")
if [[ $# -gt 0 ]]; then args+=(-R "$1"); fi
start=$(date +%s)
ctest "${args[@]}"
echo "sanitize: every test clean under ASan + UBSan + LSan in $(( $(date +%s) - start )) s"
