// One engine on one model in a fresh process (so its peak RSS is its own): laya-wasm through the
// package (model.forward on token ids) or onnxruntime-web (wasm backend) on the reference export.
// Prints one JSON line: load / first-answer times, per-length run times, the 3-question call,
// the outputs of the parity question, peak RSS, wasm memory.
// Usage: node --expose-gc bench/speed-child.mjs <laya|laya-relaxed|laya-q8|laya-baseline|ort> <checkpoint dir> <model.onnx> <runs> <threads> <lengths,...>
// laya runs the plain-SIMD module, laya-relaxed the relaxed-SIMD one (the parent passes Node 20
// --experimental-wasm-relaxed-simd for it); the JSON line says which ran ("simd"). laya-q8 is the
// plain-SIMD module loading the same F16 file with { weights: 'q8' } (q8 weights, f32
// compute). laya-webgpu loads it with { backend: 'webgpu' } through the `webgpu` package (the parent
// chooses the Vulkan driver through the environment, bench/webgpu-adapter.mjs); its times are wall
// time (the work runs on the GPU, or on SwiftShader's threads), and its JSON line names the adapter.
// laya-webgpu:<gemm>[:f16off] is the same with load option gpuKernels { gemm, f16: 'off' } (so
// one bench run times each GEMM tile choice, and F16 staging with shader-f16 on and off).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { question } from './workload.mjs';
import { adapterName, isCpuEmulation, recordingGpu } from './webgpu-adapter.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const [engine, dir, onnxPath, runsText, threadsText, lengthsText] = process.argv.slice(2);
const runs = Number(runsText), threads = Number(threadsText);
const lengths = lengthsText.split(',').map(Number);
const kCallLength = 128, kCallQuestions = 3;

let runOne, runCall, memory = () => null, profiled = null, version = '', simd, backend, adapter;
const gpuEngine = engine.startsWith('laya-webgpu');
// laya-webgpu:t64x64:f16off -> { gemm: 't64x64', f16: 'off' }; plain laya-webgpu: the defaults.
const [, gemmChoice, f16Choice] = engine.split(':');
const gpuKernels = { ...(gemmChoice ? { gemm: gemmChoice } : {}), ...(f16Choice === 'f16off' ? { f16: 'off' } : {}) };
const t0 = performance.now();
if (engine === 'laya' || engine === 'laya-relaxed' || engine === 'laya-q8' || engine === 'laya-baseline' || gpuEngine) {
  // laya-baseline: another built checkout (speed-bench --baseline), run exactly as laya is.
  const packageRoot = engine === 'laya-baseline' ? process.env.LAYA_BASELINE_ROOT : root;
  const { load } = await import(path.join(packageRoot, 'dist/index.node.js'));
  let gpuOptions = {};
  const seen = {};
  if (gpuEngine) {
    // The package's own GPU, wrapped to learn which adapter load() gets (globals as laya-wasm sets them).
    const webgpu = await import('webgpu');
    Object.assign(globalThis, webgpu.globals);
    gpuOptions = { backend: 'webgpu', gpu: recordingGpu(webgpu.create([]), seen), gpuKernels };
  }
  const model = await load({ directory: dir }, {
    onWarning: (w) => console.error(w), threads, simd: engine === 'laya-relaxed' ? 'relaxed' : 'plain',
    ...(engine === 'laya-q8' ? { weights: 'q8' } : {}), ...gpuOptions });
  simd = model.simd;
  backend = model.backend;
  if (gpuEngine && backend !== 'webgpu') throw new Error(`asked for backend 'webgpu', the model runs on ${backend}`);
  if (gpuEngine) adapter = { name: adapterName(seen.info), emulated: isCpuEmulation(seen.info) };
  const toOut = (r) => r.expected.map((e) => ({ logits: e.logits, act: e.act }));
  runOne = async (q) => toOut(await model.forward({ inputs: [q] }))[0];
  runCall = async (qs) => toOut(await model.forward({ inputs: qs }));
  memory = () => model.memory();
  // One more run of a question with the per-step timer on (kept out of the timed runs).
  profiled = async (q) => {
    model.setProfiling(true);
    await model.forward({ inputs: [q] });
    const p = model.profile();
    model.setProfiling(false);
    return p;
  };
  version = JSON.parse(fs.readFileSync(path.join(packageRoot, 'package.json'), 'utf8')).version;
} else {
  const ort = await import('onnxruntime-web');
  ort.env.wasm.numThreads = threads;
  const session = await ort.InferenceSession.create(fs.readFileSync(onnxPath), { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
  const i64 = (xs) => BigInt64Array.from(xs.map(BigInt));
  runOne = async (q) => {
    const out = await session.run({
      ids: new ort.Tensor('int64', i64(q.ids), [1, q.ids.length]),
      markers: new ort.Tensor('int64', i64(q.markers), [1, q.markers.length]),
      qtype: new ort.Tensor('int64', i64([q.qtype]), [1]),
    });
    return { logits: Array.from(out.logits.data), act: Array.from(out.act.data) };
  };
  runCall = async (qs) => { const r = []; for (const q of qs) r.push(await runOne(q)); return r; };
  version = ort.env.versions?.web ?? '?';
}
const loadSeconds = (performance.now() - t0) / 1000;
const parityQuestion = question(kCallLength, 7);
const first = await runOne(parityQuestion);
const firstAnswerSeconds = (performance.now() - t0) / 1000;

// Wall and process CPU milliseconds of one call: both engines run on this thread (threads = 1),
// so CPU time is their compute time even when other processes hold the cores.
async function timed(fn) {
  const c = process.cpuUsage(), s = performance.now();
  await fn();
  const d = process.cpuUsage(c);
  return { wall: performance.now() - s, cpu: (d.user + d.system) / 1000 };
}
// V8 goes on compiling a large wasm module's optimized code on background threads for a while
// after its first calls, and that CPU time is not the engine's: on 1 thread, warm up until a run's
// CPU time is within 5% of its wall time (at most 8 runs).
async function settle(q) {
  for (let i = 0; i < 8; ++i) {
    const t = await timed(() => runOne(q));
    // On the GPU the CPU time is not the engine's compute (SwiftShader's threads count in it): one warm-up.
    if (threads > 1 || gpuEngine || t.cpu <= 1.05 * t.wall) return;
  }
}
const perLength = {}, perLengthCpu = {}, profiles = {};
for (const L of lengths) {
  const q = question(L, L);
  await settle(q); // warm-up (first run of a bucket plans/allocates)
  const t = [];
  for (let i = 0; i < runs; ++i) t.push(await timed(() => runOne(q)));
  perLength[L] = t.map((x) => x.wall);
  perLengthCpu[L] = t.map((x) => x.cpu);
  if (profiled) profiles[L] = await profiled(q);
}
const callQuestions = Array.from({ length: kCallQuestions }, (_, i) => question(kCallLength, 100 + i));
await runCall(callQuestions);
const callT = [];
for (let i = 0; i < runs; ++i) callT.push(await timed(() => runCall(callQuestions)));
const callMs = callT.map((x) => x.wall), callCpuMs = callT.map((x) => x.cpu);
const line = JSON.stringify({
  engine, version, simd, backend, adapter, wallClock: gpuEngine, loadSeconds, firstAnswerSeconds, perLength, perLengthCpu, profiles, callMs, callCpuMs, callLength: kCallLength, callQuestions: kCallQuestions,
  parity: first, peakRss: process.resourceUsage().maxRSS * 1024, memory: memory(),
});
// Dawn's instance keeps the event loop alive: exit once the line is written.
process.stdout.write(line + '\n', () => process.exit(0));
