// laya-wasm vs onnxruntime-web (wasm backend, same thread count) on random F16
// checkpoints shaped like ModernBERT-base and the English (ModernBERT-large) model, in one command.
// The ONNX model is the reference export (tools/reference/export_onnx.py, f32) of the same
// checkpoint. Per engine and model a fresh child process (bench/speed-child.mjs) loads, answers
// once (load-to-first-answer), then times questions of each length (median of --runs after a
// warm-up) and a call of 3 questions of 128 tokens. Prints ms/question, tokens/s, effective GF/s,
// the fraction of the GEMM ceiling when bench/gemm-ceiling has been built, peak memory, ratios,
// and the largest logit / act difference between the engines on one question.
// Usage: node bench/speed-bench.mjs [--runs N] [--lengths 64,128,256,512] [--models base-f16,english-f16]
//                                   [--threads 1,2] [--engines laya,laya-relaxed,laya-q8,ort]
// laya is the plain-SIMD module, laya-relaxed the relaxed-SIMD one (fused multiply-add;
// its child runs with Node 20's --experimental-wasm-relaxed-simd); each is reported against its own
// GEMM ceiling (plain / relaxed), and both against onnxruntime-web. laya-q8 is the plain module on
// the same file loaded with { weights: 'q8' } (quantized while it streams), reported against laya.
// With several thread counts each runs both engines; times are process CPU time with 1 thread and
// wall time with more (CPU time then counts every thread).
//
// --backend webgpu: laya-wasm on the GPU through WebGPU (Node's optional `webgpu` package,
// Dawn) beside the wasm engine on the same checkpoint: ms per question (wall), GEMM time and
// TFLOP/s by step kind (the GPU's timestamp queries, model.setProfiling), load time, the adapter's
// name, and the largest logit / act difference from wasm. The adapter is the environment's (a real
// GPU's Vulkan driver, or what VK_ICD_FILENAMES names); only when there is none and VK_ICD_FILENAMES
// is unset does it use Debian Chromium's SwiftShader, a CPU emulation whose numbers only prove the
// path runs (bench/webgpu-adapter.mjs). On a CPU emulation the defaults shrink to
// --models small-f16 --lengths 64,128 --runs 1 (any of them given on the command line wins).
// Usage: node bench/speed-bench.mjs --backend webgpu [--engines laya-webgpu,laya] [--models ...] [--lengths ...] [--runs N]
//
// Kernel variants: an engine laya-webgpu:<gemm>[:f16off] loads with gpuKernels
// { gemm: <gemm>, f16: 'off' } (<gemm>: auto, scalar, t32x32, t32x64, t64x64, t128x64, t64x128, t32x128).
// --gpu-variants all adds every one of them (auto with f16 on and off, each tile, the scalar GEMM)
// before the other engines, so that one run times them all; it is the default on a real GPU
// (--gpu-variants none: only the engines named), not on a CPU emulation (minutes per variant). For each GPU engine the report gives
// the GEMM kernels that ran, dispatches per question and per layer, compute passes and queue
// submits per question, GEMM TFLOP/s from the GPU's timestamps, and a summary across variants.
//
// Before and after a change, --baseline <dir>: <dir> is another built checkout of laya-wasm (its
// dist/ and wasm build, e.g. `git worktree add /tmp/base <commit> && cd /tmp/base && npm ci && npm run build`);
// its plain module runs as the engine laya-baseline beside laya, each in its own process, in the
// same command, and the report gives the ratio per length. Default engines then: laya-baseline,laya.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateCheckpoint, kShapes } from './gen-checkpoint.mjs';
import { machineLines, median, runChild } from './machine.mjs';
import { questionFlops } from './workload.mjs';
import { adapterLines, chooseWebGpuEnv } from './webgpu-adapter.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const args = process.argv.slice(2);
const flag = (name, fallback) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : fallback; };
const backend = flag('--backend', 'wasm');
if (backend !== 'wasm' && backend !== 'webgpu') { console.error(`--backend must be wasm or webgpu, got ${backend}`); process.exit(2); }
// --backend webgpu: which adapter the children get (and the environment that gives it).
const gpuChoice = backend === 'webgpu' ? chooseWebGpuEnv() : null;
const emulated = gpuChoice?.adapter?.emulated === true;
const runs = Number(flag('--runs', emulated ? '1' : '2'));
const threadCounts = flag('--threads', '1').split(',').map(Number);
const lengths = flag('--lengths', emulated ? '64,128' : '64,128,256,512');
const models = flag('--models', emulated ? 'small-f16' : 'base-f16,english-f16').split(',');
const baseline = flag('--baseline', null);
if (baseline !== null && !fs.existsSync(path.join(baseline, 'dist', 'index.node.js'))) {
  console.error(`--baseline ${baseline}: no dist/index.node.js there (build that checkout first: npm ci && npm run build)`);
  process.exit(2);
}
const defaultEngines = backend === 'webgpu' ? 'laya-webgpu,laya' : baseline !== null ? 'laya-baseline,laya' : 'laya,laya-relaxed,laya-q8,ort';
const kGpuVariants = ['laya-webgpu', 'laya-webgpu:auto:f16off', 'laya-webgpu:t32x32', 'laya-webgpu:t32x64', 'laya-webgpu:t64x64',
  'laya-webgpu:t128x64', 'laya-webgpu:t64x128', 'laya-webgpu:t32x128', 'laya-webgpu:scalar'];
const isGpu = (engine) => engine.startsWith('laya-webgpu');
const gpuVariants = flag('--gpu-variants', backend === 'webgpu' && !emulated ? 'all' : 'none');
if (gpuVariants !== 'all' && gpuVariants !== 'none') { console.error(`--gpu-variants takes all or none, got ${gpuVariants}`); process.exit(2); }
const engines = [...new Set([...(gpuVariants === 'all' ? kGpuVariants : []), ...flag('--engines', defaultEngines).split(',')])];
const kLayaEngines = ['laya', 'laya-relaxed', 'laya-q8', 'laya-baseline', ...engines.filter(isGpu)];
const ortVersion = JSON.parse(fs.readFileSync(path.join(root, 'node_modules/onnxruntime-web/package.json'), 'utf8')).version;

for (const line of machineLines({ 'onnxruntime-web': ortVersion })) console.log(line);
if (gpuChoice !== null) {
  for (const line of adapterLines(gpuChoice)) console.log(line);
  if (gpuChoice.adapter === null && engines.some(isGpu)) process.exit(1);
  if (emulated) console.log('*** On this CPU emulation the defaults are --models small-f16 --lengths 64,128 --runs 1 (an English-size model would take hours).');
}
console.log(`settings: runs ${runs} (median, after one warm-up), threads ${threadCounts.join(', ')}, lengths ${lengths}, models ${models.join(', ')}`);

// The GEMM ceilings (scripts/bench-gemm-ceiling.sh), if built: GF/s of an ideal 4x8 wasm SIMD kernel
// with mul + add (plain) and with relaxed_madd (relaxed). laya-relaxed is measured against the
// relaxed one, laya and onnxruntime-web against the plain one.
const kRelaxedFlag = '--experimental-wasm-relaxed-simd';
const ceilings = {};
for (const [kind, file, flags] of [['plain', 'gemm-ceiling.cjs', []], ['relaxed', 'gemm-ceiling-relaxed.cjs', [kRelaxedFlag]]]) {
  const js = path.join(root, 'build', 'bench', file);
  if (!fs.existsSync(js)) {
    console.log(`GEMM ceiling (${kind}): not built (npm run bench:gemm-ceiling builds and runs it)`);
    continue;
  }
  const out = execFileSync(process.execPath, [...flags, '--no-experimental-fetch', js], { encoding: 'utf8' });
  const m = out.match(/ceiling_gflops=([\d.]+)/);
  if (m) ceilings[kind] = Number(m[1]);
  console.log(`GEMM ceiling (${kind} wasm SIMD 4x8 f32 register tile, L1-resident): ${ceilings[kind]?.toFixed(2)} GF/s`);
}
const ceilingOf = (engine) => (isGpu(engine) ? null : ceilings[engine === 'laya-relaxed' ? 'relaxed' : 'plain'] ?? null);

function child(engine, dir, onnx, threads) {
  const flags = engine === 'laya-relaxed' ? [kRelaxedFlag] : [];
  const env = isGpu(engine) ? gpuChoice.env : engine === 'laya-baseline' ? { ...process.env, LAYA_BASELINE_ROOT: path.resolve(baseline) } : process.env;
  return runChild([...flags, '--expose-gc', path.join(here, 'speed-child.mjs'), engine, dir, onnx, String(runs), String(threads), lengths],
    { env, label: `${engine} child` });
}

for (const name of models) {
  const shape = { ...kShapes[name], globalEvery: 3, window: 128 };
  const dir = path.join(root, 'build', 'bench', name);
  generateCheckpoint(dir, kShapes[name], 1234, console.log);
  const onnx = path.join(root, 'build', 'bench', 'onnx', `${name}.onnx`);
  if (engines.includes('ort')) {
    fs.mkdirSync(path.dirname(onnx), { recursive: true });
    execFileSync('/usr/bin/python3', [path.join(root, 'tools/reference/export_onnx.py'), dir, onnx], { stdio: ['ignore', 'inherit', 'ignore'] });
  }
  const fileBytes = fs.statSync(path.join(dir, 'model.safetensors')).size;
  console.log(`\n== ${name}: d ${shape.d}, ${shape.layers} layers, heads ${shape.heads}, intermediate ${shape.inter}, vocab ${shape.vocab}; F16 file ${(fileBytes / 1e9).toFixed(3)} GB`);
  const byThreads = {};
  for (const threads of threadCounts) {
    const res = {};
    byThreads[threads] = res;
    for (const engine of engines) {
      try { res[engine] = await child(engine, dir, onnx, threads); } catch (e) { console.log(`${engine}: FAILED ${e.message}`); }
    }
    report(shape, res, threads);
  }
  for (const engine of kLayaEngines.filter((e) => threadCounts.length > 1 && !isGpu(e) && engines.includes(e))) {
    const [a, b] = [threadCounts[0], threadCounts.at(-1)];
    const ra = byThreads[a][engine], rb = byThreads[b][engine];
    if (ra && rb) {
      const speedups = lengths.split(',').map(Number).map((L) => `${L}: ${(time(ra, L, a) / time(rb, L, b)).toFixed(2)}x`);
      console.log(`  ${engine} ${b} threads vs ${a}: ${speedups.join(', ')} (wall time with ${b}, CPU time with ${a})`);
    }
  }
}

// A run's median time at length L: CPU time with one thread (what the engine itself spent on a
// shared machine), wall time with more, and always wall time on the GPU (r.wallClock).
function time(r, L, threads) { return threads > 1 || r.wallClock ? median(r.perLength[L]) : median(r.perLengthCpu[L]); }
function fmtMs(ms) { return ms >= 100 ? ms.toFixed(0) : ms.toPrecision(3); }
function fmtRatio(x) { return x >= 0.1 ? x.toFixed(2) : x.toPrecision(2); }
function clockOf(r, threads) { return threads > 1 || r.wallClock ? 'wall' : 'cpu'; }
function callTime(r, threads) { return clockOf(r, threads) === 'wall' ? median(r.callMs) : median(r.callCpuMs); }
function clocks(a, b, threads) { return clockOf(a, threads) === clockOf(b, threads) ? clockOf(a, threads) : `${clockOf(a, threads)} / ${clockOf(b, threads)}`; }

function report(shape, res, threads) {
  const clock = threads > 1 ? 'wall' : 'cpu';
  console.log(`  -- ${threads} thread${threads > 1 ? 's' : ''} (times: ${clock}${engines.some(isGpu) ? '; laya-webgpu: wall' : ''})`);
  const row = (label, r, ceiling) => {
    const clock = clockOf(r, threads);
    const parts = [];
    for (const L of lengths.split(',').map(Number)) {
      const cpu = time(r, L, threads), wall = median(r.perLength[L]);
      const gf = questionFlops(shape, L) / (cpu / 1000) / 1e9;
      parts.push(`${L}: ${cpu.toFixed(0)} ms ${clock} (${wall.toFixed(0)} wall), ${(L / (cpu / 1000)).toFixed(0)} tok/s, ${gf.toFixed(2)} GF/s${ceiling ? ` = ${((gf / ceiling) * 100).toFixed(0)}% of ceiling` : ''}`);
    }
    console.log(`  ${label.padEnd(18)} ${parts.join(' | ')}`);
  };
  for (const engine of engines) {
    const r = res[engine];
    if (!r) continue;
    const ceiling = ceilingOf(engine);
    const clock = clockOf(r, threads);
    const where = r.adapter ? `, backend ${r.backend} on ${r.adapter.name}${r.adapter.emulated ? ' (CPU emulation: proves it runs, not GPU speed)' : ''}; times: wall` : '';
    console.log(`  [${engine} ${r.version}${r.simd ? `, ${r.simd}-SIMD module` : ''}${where}${ceiling ? `; % of the ${engine === 'laya-relaxed' ? 'relaxed' : 'plain'} ceiling` : ''}]`);
    row('per question', r, ceiling);
    const callCpu = clock === 'wall' ? median(r.callMs) : median(r.callCpuMs), callWall = median(r.callMs);
    const callGf = (questionFlops(shape, r.callLength) * r.callQuestions) / (callCpu / 1000) / 1e9;
    console.log(`  ${'call of 3 x 128'.padEnd(18)} ${callCpu.toFixed(0)} ms ${clock} (${callWall.toFixed(0)} wall) = ${(callCpu / r.callQuestions).toFixed(0)} ms/question, ${(r.callQuestions * r.callLength / (callCpu / 1000)).toFixed(0)} tok/s, ${callGf.toFixed(2)} GF/s`);
    console.log(`  ${'load'.padEnd(18)} ${r.loadSeconds.toFixed(2)} s wall; load to first answer (128 tokens) ${r.firstAnswerSeconds.toFixed(2)} s wall`);
    const gpuMem = r.memory?.gpuWeightsBytes !== undefined ? `; GPU buffers of the weights ${(r.memory.gpuWeightsBytes / 1e9).toFixed(3)} GB` : '';
    const mem = r.memory ? `${gpuMem}; wasm memory ${(r.memory.wasmMemoryBytes / 1e9).toFixed(3)} GB (weights ${(r.memory.weightsBytes / 1e9).toFixed(3)}, arena with scratch ${((r.memory.arenaBytes + (r.memory.scratchBytes ?? 0)) / 1e6).toFixed(1)} MB)` : '';
    console.log(`  ${'peak memory'.padEnd(18)} RSS ${(r.peakRss / 1e9).toFixed(3)} GB${mem}`);
    if (!r.profiles || Object.keys(r.profiles).length === 0) {
      console.log(`  ${'time by step kind'.padEnd(18)} not collected (onnxruntime-web has no per-op timer here)`);
    }
    for (const [L, p] of Object.entries(r.profiles ?? {})) {
      // One extra run per length with the engine's per-step timer on (model.setProfiling).
      // On the GPU: the GPU's own timestamps around each step's pass (or one gpu_batches entry, the
      // batches' wall time, where the adapter has no timestamp-query), GF/s and TFLOP/s.
      const total = p.steps.reduce((a, s) => a + s.ms, 0);
      const kinds = [...p.steps].sort((a, b) => b.ms - a.ms).map((s) => {
        const rate = s.gflop / (s.ms / 1000);
        const tf = r.wallClock ? ` = ${(rate / 1000).toPrecision(3)} TFLOP/s` : '';
        const gf = s.gflop > 0 ? `, ${r.wallClock ? rate.toPrecision(3) : rate.toFixed(1)} GF/s${tf}${ceiling ? ` = ${((rate / ceiling) * 100).toFixed(0)}%` : ''}` : '';
        return `${s.kind} ${r.wallClock ? fmtMs(s.ms) : s.ms.toFixed(0)} ms (${((s.ms / total) * 100).toFixed(1)}%${gf})`;
      });
      const label = L === String(lengths.split(',')[0]) ? (r.wallClock ? 'GPU time by step' : 'time by step kind') : '';
      console.log(`  ${label.padEnd(18)} ${L}: ${kinds.join(', ')}`);
    }
    if (r.wallClock) {
      const gemm = Object.entries(r.profiles ?? {}).map(([L, p]) => {
        const g = p.steps.find((x) => x.kind === 'gemm');
        return g ? `${L}: ${fmtMs(g.ms)} ms for ${g.gflop.toPrecision(3)} GFLOP = ${(g.gflop / g.ms).toPrecision(3)} TFLOP/s` : `${L}: no per-step GPU timestamps (adapter lacks timestamp-query)`;
      });
      console.log(`  ${'GEMM (GPU stamps)'.padEnd(18)} ${gemm.join(' | ')}`);
      for (const line of gpuWorkLines(shape, r)) console.log(`  ${line}`);
    }
  }
  const diff = (a, b) => Math.max(...a.map((x, i) => Math.abs(x - b[i]) / Math.max(1, Math.abs(b[i]))));
  for (const engine of kLayaEngines) {
    const laya = res[engine];
    if (!laya || !res.ort) continue;
    const ratios = lengths.split(',').map(Number).map((L) => `${L}: ${(time(res.ort, L, threads) / time(laya, L, threads)).toFixed(2)}x`);
    const call = callTime(res.ort, threads) / callTime(laya, threads);
    console.log(`  ratio ORT / ${engine} ${clocks(res.ort, laya, threads)} time (>1: ${engine} faster): ${ratios.join(', ')}, call ${call.toFixed(2)}x; load-to-first-answer (wall) ${(res.ort.firstAnswerSeconds / laya.firstAnswerSeconds).toFixed(2)}x`);
    console.log(`  parity ${engine} vs ORT (128-token question): logits max rel diff ${diff(laya.parity.logits, res.ort.parity.logits).toExponential(2)}, act ${diff(laya.parity.act, res.ort.parity.act).toExponential(2)}`);
  }
  if (res.laya && res['laya-baseline']) {
    const [base, now] = [res['laya-baseline'], res.laya];
    const ratios = lengths.split(',').map(Number).map((L) => `${L}: ${fmtRatio(time(base, L, threads) / time(now, L, threads))}x`);
    console.log(`  ratio laya-baseline / laya ${clocks(base, now, threads)} time (>1: this build faster): ${ratios.join(', ')}, call ${fmtRatio(callTime(base, threads) / callTime(now, threads))}x; peak RSS ${fmtRatio(base.peakRss / now.peakRss)}x`);
    console.log(`  parity laya vs laya-baseline (128-token question): logits max rel diff ${diff(now.parity.logits, base.parity.logits).toExponential(2)}, act ${diff(now.parity.act, base.parity.act).toExponential(2)}`);
  }
  for (const [engine, what] of [['laya-relaxed', 'relaxed'], ['laya-q8', 'q8'], ...engines.filter(isGpu).map((e) => [e, 'webgpu'])]) {
    if (!res.laya || !res[engine]) continue;
    const ratios = lengths.split(',').map(Number).map((L) => `${L}: ${fmtRatio(time(res.laya, L, threads) / time(res[engine], L, threads))}x`);
    const call = isGpu(engine) ? `, call ${fmtRatio(callTime(res.laya, threads) / callTime(res[engine], threads))}x; load (wall) ${fmtRatio(res.laya.loadSeconds / res[engine].loadSeconds)}x` : '';
    console.log(`  ratio laya / ${engine} ${clocks(res.laya, res[engine], threads)} time (>1: ${what} faster): ${ratios.join(', ')}${call}`);
    console.log(`  parity ${engine} vs laya (128-token question): logits max rel diff ${diff(res[engine].parity.logits, res.laya.parity.logits).toExponential(2)}, act ${diff(res[engine].parity.act, res.laya.parity.act).toExponential(2)}`);
  }
  const gpuRuns = engines.filter((e) => isGpu(e) && res[e]);
  if (gpuRuns.length > 1) {
    console.log('  -- GPU kernel variants (ms per question, wall; GEMM TFLOP/s from the GPU stamps; dispatches per question)');
    for (const e of gpuRuns) {
      const r = res[e];
      const parts = lengths.split(',').map(Number).map((L) => {
        const g = r.profiles?.[L]?.steps.find((x) => x.kind === 'gemm');
        const tf = g ? `${(g.gflop / g.ms).toPrecision(3)} TF/s` : 'no stamps';
        return `${L}: ${fmtMs(time(r, L, threads))} ms, GEMM ${tf}, ${dispatchesOf(r, L) ?? '?'} dispatches`;
      });
      console.log(`  ${e.padEnd(26)} ${parts.join(' | ')}`);
    }
  }
}

/** Dispatches per question at length L (the profiled run's), or null where the engine did not report them. */
function dispatchesOf(r, L) {
  const g = r.profiles?.[L]?.gpu;
  return g && g.runs > 0 ? g.dispatches / g.runs : null;
}

/** What a GPU engine's profiled runs recorded: kernels chosen, dispatches, passes, submits. */
function gpuWorkLines(shape, r) {
  const lines = [];
  for (const [L, p] of Object.entries(r.profiles ?? {})) {
    const g = p.gpu;
    if (!g || g.runs === 0) continue;
    if (lines.length === 0) {
      const kernels = Object.keys(g.gemmKernels).join(', ') || 'none';
      lines.push(`${'GPU kernels'.padEnd(18)} gemm choice ${g.gemm}, shader-f16 staging ${g.shaderF16 ? 'on' : 'off'}; GEMM kernels that ran: ${kernels}`);
    }
    const per = (x) => (x / g.runs).toFixed(1).replace(/\.0$/, '');
    lines.push(`${lines.length === 1 ? 'GPU work'.padEnd(18) : ''.padEnd(18)} ${L}: ${per(g.dispatches)} dispatches per question (${(g.dispatches / g.runs / shape.layers).toFixed(1)} per layer of ${shape.layers}), ` +
      `${per(g.submits)} submits, ${per(g.passes)} compute passes (one per step while stamping; one otherwise)`);
  }
  return lines;
}
