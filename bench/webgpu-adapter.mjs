// The WebGPU adapter the GPU benchmarks run on, through Node's optional `webgpu` package (Dawn).
// The Vulkan loader reads VK_ICD_FILENAMES once, when Dawn starts; so the adapter is probed in a
// child process: first with the environment as it is (a real GPU's driver, or the driver
// VK_ICD_FILENAMES names), then, only if that gives no adapter and VK_ICD_FILENAMES is unset,
// with Debian Chromium's SwiftShader ICD. SwiftShader (like lavapipe / llvmpipe) is a CPU emulation
// of a GPU: its numbers only prove that the GPU path runs.
// Usage as a script: node bench/webgpu-adapter.mjs   (prints one JSON line: the adapter or null)
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

export const kSwiftShaderIcd = '/usr/lib/chromium/vk_swiftshader_icd.json';
const kCpuEmulation = /swiftshader|llvmpipe|lavapipe|software|microsoft basic render|cpu/i;

/** The adapter's name as laya-wasm's GpuDevice builds it (web/src/webgpu/gpu-device.ts). */
export function adapterName(info) {
  const parts = [info?.vendor, info?.architecture, info?.device, info?.description].filter((p) => p !== undefined && p !== '');
  return parts.length > 0 ? parts.join(' ') : 'unnamed adapter';
}

/** Whether an adapter is a CPU emulation of a GPU (its numbers say nothing about GPUs). */
export function isCpuEmulation(info) {
  return kCpuEmulation.test(adapterName(info)) || info?.type === 'cpu';
}

function probe(env) {
  try {
    const out = execFileSync(process.execPath, [fileURLToPath(import.meta.url)], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 120_000 });
    return JSON.parse(out.trim().split('\n').pop());
  } catch {
    return null;
  }
}

/**
 * The environment for the GPU benchmark's children and what adapter it gives:
 * { env, adapter: {name, features, limits, emulated} | null, icd: 'environment' | 'swiftshader' }.
 */
export function chooseWebGpuEnv() {
  const env = { ...process.env };
  const adapter = probe(env);
  if (adapter !== null || env.VK_ICD_FILENAMES !== undefined || !fs.existsSync(kSwiftShaderIcd)) {
    return { env, adapter, icd: 'environment' };
  }
  const swift = { ...env, VK_ICD_FILENAMES: kSwiftShaderIcd };
  return { env: swift, adapter: probe(swift), icd: 'swiftshader' };
}

/** Lines describing the adapter (with the CPU-emulation warning where it is one). */
export function adapterLines(choice) {
  const a = choice.adapter;
  if (a === null) return ['WebGPU adapter: none (no GPU driver Dawn can use; install the `webgpu` package and a Vulkan driver)'];
  const lines = [`WebGPU adapter: ${a.name}${choice.icd === 'swiftshader' ? ` (VK_ICD_FILENAMES=${kSwiftShaderIcd}, set by the bench: no other adapter was found)` : ''}; ` +
    `shader-f16 ${a.features.includes('shader-f16') ? 'yes' : 'no'}, timestamp-query ${a.features.includes('timestamp-query') ? 'yes' : 'no'}, ` +
    `maxBufferSize ${(a.limits.maxBufferSize / 2 ** 20).toFixed(0)} MiB, maxStorageBufferBindingSize ${(a.limits.maxStorageBufferBindingSize / 2 ** 20).toFixed(0)} MiB; webgpu package ${a.packageVersion}`];
  if (a.emulated) {
    lines.push('*** This adapter is a CPU emulation of a GPU (SwiftShader / lavapipe runs the WGSL kernels on the CPU cores).');
    lines.push('*** Its numbers only prove that the WebGPU path runs end to end; they say nothing about GPU speed or GPU memory.');
  }
  return lines;
}

/** Wraps a GPU so that the adapter laya-wasm's load() requests is recorded in `seen.info`. */
export function recordingGpu(gpu, seen) {
  return {
    requestAdapter: async (options) => {
      const adapter = await gpu.requestAdapter(options);
      if (adapter !== null) seen.info = adapter.info;
      return adapter;
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  let result = null;
  try {
    const w = await import('webgpu');
    const adapter = await w.create([]).requestAdapter({ powerPreference: 'high-performance' });
    if (adapter !== null) {
      const info = adapter.info;
      const version = JSON.parse(fs.readFileSync(new URL('../node_modules/webgpu/package.json', import.meta.url), 'utf8')).version;
      result = {
        name: adapterName(info), emulated: isCpuEmulation(info), features: [...adapter.features],
        limits: { maxBufferSize: adapter.limits.maxBufferSize, maxStorageBufferBindingSize: adapter.limits.maxStorageBufferBindingSize },
        packageVersion: version,
      };
    }
  } catch { /* no package or no driver: null */ }
  console.log(JSON.stringify(result));
  process.exit(0); // Dawn's instance keeps the event loop alive
}
