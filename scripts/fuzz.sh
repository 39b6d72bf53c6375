#!/usr/bin/env bash
# Builds the libFuzzer harnesses (`fuzz` preset: clang, LAYA_FUZZ=ON, ASan + UBSan) and runs each
# for a bounded time over a scratch copy of its checked-in seed corpus (tests/fuzz/corpus/<harness>),
# printing executions and crashes per harness. Exits non-zero if any harness crashed; reproducers
# are left in build/fuzz/findings/<harness>/.
# Usage: scripts/fuzz.sh [seconds-per-harness (default 30)] [harness ...]
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-30}"
shift || true
harnesses=("$@")
if [[ ${#harnesses[@]} -eq 0 ]]; then
  harnesses=(json_parse_fuzz safetensors_header_fuzz config_parse_fuzz tokenizer_encode_fuzz tokenizer_load_fuzz request_fuzz)
fi

cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j "${LAYA_JOBS:-2}" --target "${harnesses[@]}"

export ASAN_OPTIONS="allocator_may_return_null=1:detect_leaks=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
failed=0
printf '%-26s %12s %8s\n' harness executions crashes
for h in "${harnesses[@]}"; do
  work="build/fuzz/corpus-work/$h"
  findings="build/fuzz/findings/$h"
  mkdir -p "$work" "$findings"
  cp -n tests/fuzz/corpus/"$h"/* "$work"/ 2>/dev/null || true
  log="build/fuzz/$h.log"
  set +e
  # -rss_limit_mb: a harness that grows past it is a finding; -timeout: one input past it is a hang.
  build/fuzz/tests/fuzz/"$h" "$work" tests/fuzz/corpus/"$h" -max_total_time="$seconds" -timeout=10 \
    -rss_limit_mb=2048 -max_len=65536 -artifact_prefix="$findings/" -print_final_stats=1 >"$log" 2>&1
  rc=$?
  set -e
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
  crashes=$(find "$findings" -type f | wc -l)
  printf '%-26s %12s %8s\n' "$h" "$execs" "$crashes"
  if [[ $rc -ne 0 || $crashes -ne 0 ]]; then
    failed=1
    echo "--- $h failed (exit $rc); the end of $log:"
    tail -n 40 "$log"
  fi
done
exit $failed
