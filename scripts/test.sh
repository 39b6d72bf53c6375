#!/usr/bin/env bash
# Every test of the project, from a fresh clone: set-up, the native C++ tests (plain, then under
# sanitizers, then the fuzzers for a bounded time), the same tests compiled to wasm (plain SIMD, then
# relaxed SIMD) and run under Node, then the TypeScript tests (Jest, with Chromium) against the wasm build.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

export NODE_PATH=/usr/share/nodejs
jobs=$(nproc)

echo "== native C++ tests"
cmake --preset native >/dev/null
cmake --build --preset native -j"$jobs"
ctest --preset native -j"$jobs"

echo "== C++ tests under ASan + UBSan + LSan"
LAYA_JOBS="$jobs" bash scripts/sanitize.sh

echo "== fuzzing: each libFuzzer harness for a bounded time"
LAYA_JOBS="$jobs" bash scripts/fuzz.sh "${LAYA_FUZZ_SECONDS:-20}"

echo "== wasm C++ tests (Node)"
cmake --preset wasm >/dev/null
cmake --build --preset wasm -j"$jobs"
ctest --preset wasm -j"$jobs"

echo "== wasm C++ tests, relaxed-SIMD build (fused multiply-add; Node with --experimental-wasm-relaxed-simd)"
cmake --preset wasm-relaxed >/dev/null
cmake --build --preset wasm-relaxed -j"$jobs"
ctest --preset wasm-relaxed -j"$jobs"

echo "== TypeScript tests"
npm run build --silent
echo "== API reference (typedoc, warnings fail)"
npm run docs:api --silent
npm run test:js --silent
