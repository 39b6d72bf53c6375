#!/usr/bin/env bash
# Every test of the project, from a fresh clone: set-up, the native C++ tests, the same tests
# compiled to wasm and run under Node, then the TypeScript tests against the wasm build.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

export NODE_PATH=/usr/share/nodejs
jobs=$(nproc)

echo "== native C++ tests"
cmake --preset native >/dev/null
cmake --build --preset native -j"$jobs"
ctest --preset native -j"$jobs"

echo "== wasm C++ tests (Node)"
cmake --preset wasm >/dev/null
cmake --build --preset wasm -j"$jobs"
ctest --preset wasm -j"$jobs"

echo "== TypeScript tests"
npm run build --silent
npm run test:js --silent
