#!/usr/bin/env bash
# Installs what a fresh machine of this kind lacks: Debian's Emscripten and C++ test tools (and
# Chromium for the browser tests), then the npm dependencies from the lock file. Safe to re-run:
# packages already present are skipped. `--bench` adds what the benchmarks need.
set -euo pipefail
cd "$(dirname "$0")/.."

# libsimde-dev: SIMDe's wasm_simd128.h on SSE / NEON, so native builds (tests, sanitizers, fuzzers)
# compile and run the SIMD128 kernels too (CMake's LAYA_SIMDE).
# libvulkan1: the Vulkan loader the `webgpu` package (Dawn) needs in Node; the tests point it at the
# SwiftShader CPU driver Debian's Chromium ships (Mesa 22's lavapipe lacks features Dawn requires).
# firefox-esr, webkit2gtk-driver and xvfb: the browser suite's other two engines, stock Firefox
# (driven over WebDriver BiDi) and WebKitGTK, Safari's engine (WebKitWebDriver driving its
# MiniBrowser, which needs a display: Xvfb).
packages=(emscripten doctest-dev libsimde-dev cmake ninja-build clang lld libclang-rt-14-dev chromium libvulkan1
  firefox-esr webkit2gtk-driver xvfb)
# The benchmarks export their ONNX comparison model with Debian's PyTorch (tools/reference/).
if [ "${1:-}" = "--bench" ]; then packages+=(python3-torch python3-onnx); fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [ -f package-lock.json ]; then
  if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    # A registry connection reset mid-install (seen on these machines) is retried, not fatal.
    for attempt in 1 2 3; do
      npm ci --no-audit --no-fund && break
      [ "$attempt" -eq 3 ] && exit 1
      echo "setup: npm ci failed (attempt $attempt of 3); retrying in 10 s"
      sleep 10
    done
  fi
fi
