#!/usr/bin/env bash
# Builds the wasm module with Emscripten (the `wasm` CMake preset) and places laya-core.js/.wasm
# where the package loads them from: dist/wasm/.
set -euo pipefail
cd "$(dirname "$0")/.."
export NODE_PATH=/usr/share/nodejs
cmake --preset wasm >/dev/null
cmake --build --preset wasm --target laya_core_module -j"$(nproc)"
mkdir -p dist/wasm
cp build/wasm/cpp/bind/laya-core.js build/wasm/cpp/bind/laya-core.wasm dist/wasm/
# The generated loader is CommonJS; the package is "type": "module".
echo '{"type": "commonjs"}' > dist/wasm/package.json
