#!/usr/bin/env bash
# Builds bench/gemm_ceiling.cc with em++ (wasm SIMD128, -O3) into build/bench/ and runs it in Node:
# the GF/s of an ideal 4x8 register tile, the ceiling npm run bench reports efficiency against.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# em++'s JS optimiser loads Debian's acorn from here (the same as scripts/test.sh sets).
export NODE_PATH=/usr/share/nodejs
mkdir -p build/bench
em++ -O3 -msimd128 -std=c++20 -sEXIT_RUNTIME=1 bench/gemm_ceiling.cc -o build/bench/gemm-ceiling.cjs
node --no-experimental-fetch build/bench/gemm-ceiling.cjs  # Emscripten 3.1.6 would fetch() a file path
