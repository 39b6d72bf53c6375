// The WebGPU memory target, measured: "after a WebGPU load, the process's RSS is at most 0.3x the
// checkpoint above a fresh Node process (weights live on the GPU)". One command, one fresh process
// per case (this file run as a child with a mode), side by side:
//   fresh   a Node process that imported nothing
//   device  laya-wasm and `webgpu` imported, a WebGPU device made, no model (the GPU runtime's own cost)
//   webgpu  after load(dir, { backend: 'webgpu' })
//   wasm    after load(dir) (the weights in wasm memory)
// Each prints RSS now (after two GCs) and its peak, V8 heap used, ArrayBuffer bytes (wasm memory
// included), and model.memory() (wasm memory, and the weights' bytes in GPU buffers). The parent
// prints the ratios (RSS above fresh) / checkpoint. On a CPU emulation of a GPU (SwiftShader) the
// "GPU buffers" are this process's own RAM: RSS then holds the weights, and only the JS / wasm side
// of the target can be checked there (see bench/README.md).
// Usage: node bench/webgpu-memory.mjs [--model mem-f16] [--dir <checkpoint dir>] [--runs N]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');

async function settle() {
  for (let i = 0; i < 2; ++i) {
    globalThis.gc?.();
    await new Promise((r) => setTimeout(r, 50));
  }
}

function usage(extra) {
  const m = process.memoryUsage();
  return {
    rss: m.rss, peakRss: process.resourceUsage().maxRSS * 1024, heapUsed: m.heapUsed, external: m.external,
    arrayBuffers: m.arrayBuffers, ...extra,
  };
}

async function childMain(mode, dir) {
  if (mode === 'fresh') {
    await settle();
    return usage({});
  }
  const { load } = await import(path.join(root, 'dist/index.node.js'));
  const { adapterName, recordingGpu } = await import('./webgpu-adapter.mjs');
  const seen = {};
  let gpu;
  if (mode !== 'wasm') {
    const webgpu = await import('webgpu');
    Object.assign(globalThis, webgpu.globals);
    gpu = recordingGpu(webgpu.create([]), seen);
  }
  if (mode === 'device') {
    const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
    const device = await adapter.requestDevice();
    await settle();
    const u = usage({ adapter: adapterName(seen.info) });
    device.destroy();
    return u;
  }
  const t0 = performance.now();
  const model = await load({ directory: dir }, { onWarning: () => undefined, ...(mode === 'webgpu' ? { backend: 'webgpu', gpu } : {}) });
  const loadSeconds = (performance.now() - t0) / 1000;
  if (model.backend !== mode) throw new Error(`asked for ${mode}, the model runs on ${model.backend}`);
  await settle();
  return usage({ loadSeconds, backend: model.backend, memory: model.memory(), adapter: mode === 'webgpu' ? adapterName(seen.info) : undefined });
}

if (process.argv[2] === '--child') {
  const result = await childMain(process.argv[3], process.argv[4]);
  // Dawn's instance keeps the event loop alive: exit once the line is written.
  process.stdout.write(JSON.stringify(result) + '\n', () => process.exit(0));
} else {
  const { generateCheckpoint, kShapes } = await import('./gen-checkpoint.mjs');
  const { machineLines, median, runChild } = await import('./machine.mjs');
  const { adapterLines, chooseWebGpuEnv } = await import('./webgpu-adapter.mjs');
  const args = process.argv.slice(2);
  const flag = (name, fallback) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : fallback; };
  const runs = Number(flag('--runs', '1'));
  const modelName = flag('--model', 'mem-f16');
  let dir = flag('--dir', null);
  if (dir === null) {
    dir = path.join(root, 'build', 'bench', modelName);
    generateCheckpoint(dir, kShapes[modelName], 1234, console.log);
  }
  const ckpt = fs.statSync(path.join(dir, 'model.safetensors')).size;
  const webgpuVersion = JSON.parse(fs.readFileSync(path.join(root, 'node_modules/webgpu/package.json'), 'utf8')).version;
  for (const line of machineLines({ webgpu: webgpuVersion })) console.log(line);
  const gpuChoice = chooseWebGpuEnv();
  for (const line of adapterLines(gpuChoice)) console.log(line);
  console.log(`checkpoint: ${dir}, model.safetensors ${(ckpt / 1e6).toFixed(1)} MB; runs ${runs} (median of each figure)`);

  const child = (mode) => runChild(['--expose-gc', fileURLToPath(import.meta.url), '--child', mode, dir],
    { env: mode === 'fresh' || mode === 'wasm' ? process.env : gpuChoice.env, stderr: 'ignore', label: `${mode} child` });
  const modes = gpuChoice.adapter === null ? ['fresh', 'wasm'] : ['fresh', 'device', 'webgpu', 'wasm'];
  const res = {};
  for (const mode of modes) {
    const all = [];
    for (let i = 0; i < runs; ++i) all.push(await child(mode));
    // Median of each number over the runs; the rest from the first.
    res[mode] = { ...all[0] };
    for (const k of ['rss', 'peakRss', 'heapUsed', 'external', 'arrayBuffers', 'loadSeconds']) {
      if (typeof all[0][k] === 'number') res[mode][k] = median(all.map((r) => r[k]));
    }
  }
  const mb = (b) => `${(b / 1e6).toFixed(1)} MB`;
  const fresh = res.fresh.rss;
  console.log('\ncase     RSS now    above fresh  (/ checkpoint)  peak RSS   V8 heap used  ArrayBuffers  model.memory()');
  for (const mode of modes) {
    const r = res[mode];
    const above = r.rss - fresh;
    const m = r.memory;
    const mm = m ? `wasm memory ${mb(m.wasmMemoryBytes)} (weights ${mb(m.weightsBytes)})${m.gpuWeightsBytes !== undefined ? `, GPU weight buffers ${mb(m.gpuWeightsBytes)}` : ''}` : '';
    const load = r.loadSeconds !== undefined ? `, load ${r.loadSeconds.toFixed(2)} s` : '';
    console.log(`${mode.padEnd(8)} ${mb(r.rss).padStart(9)}  ${mode === 'fresh' ? '' .padStart(11) : mb(above).padStart(11)}  ${mode === 'fresh' ? ''.padStart(14) : `${(above / ckpt).toFixed(2)}x`.padStart(14)}  ${mb(r.peakRss).padStart(9)}  ${mb(r.heapUsed).padStart(12)}  ${mb(r.arrayBuffers).padStart(12)}  ${mm}${load}`);
  }
  if (res.webgpu) {
    const g = res.webgpu, d = res.device, w = res.wasm;
    const gpuBytes = g.memory.gpuWeightsBytes ?? 0;
    console.log(`\nWebGPU memory target: (RSS after the WebGPU load - fresh) / checkpoint <= 0.3: measured ${((g.rss - fresh) / ckpt).toFixed(2)}x on ${g.adapter}` +
      ` (peak ${((g.peakRss - fresh) / ckpt).toFixed(2)}x); wasm load for comparison ${((w.rss - fresh) / ckpt).toFixed(2)}x (peak ${((w.peakRss - fresh) / ckpt).toFixed(2)}x)`);
    const held = (r) => r.heapUsed + r.arrayBuffers + r.memory.wasmMemoryBytes;
    console.log(`what laya-wasm holds after the WebGPU load: V8 heap ${mb(g.heapUsed)} + ArrayBuffers ${mb(g.arrayBuffers)} + wasm memory ${mb(g.memory.wasmMemoryBytes)} ` +
      `(weights in it ${mb(g.memory.weightsBytes)}) = ${mb(held(g))} = ${(held(g) / ckpt).toFixed(3)}x the checkpoint; after the wasm load ${mb(held(w))} = ${(held(w) / ckpt).toFixed(3)}x`);
    if (gpuChoice.adapter.emulated) {
      const offGpu = g.rss - fresh - gpuBytes, own = g.rss - d.rss - gpuBytes;
      console.log(`*** ${g.adapter} is a CPU emulation: its "GPU" buffers (${mb(gpuBytes)}) are this process's RAM, so the RSS above holds the weights;`);
      console.log('*** the measured ratio is not the target\'s, which assumes a GPU with its own memory. Inferred, not measured, from the rows above:');
      console.log(`***   RSS after the WebGPU load - fresh - the weights' buffers = ${mb(offGpu)} = ${(offGpu / ckpt).toFixed(2)}x the checkpoint (Dawn + SwiftShader's own RAM included)`);
      console.log(`***   RSS after the WebGPU load - RSS with the device alone - the weights' buffers = ${mb(own)} = ${(own / ckpt).toFixed(2)}x (laya-wasm's share; a real GPU driver's own RAM is not known here)`);
    }
  }
}
