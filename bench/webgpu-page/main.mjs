// The bench page (bench/webgpu-page): loads a checkpoint from a URL on the page's own thread with
// backend webgpu (or wasm, to compare), then for each length times one question of that many
// tokens (bench/workload.mjs: [CLS] seeded random ids [SEP], 4 [MASK] markers) through
// model.forward: the first call (it compiles the GPU pipelines of that bucket), the median of the
// runs after it, and from one more run with profiling on, the time by step kind. GEMM time comes
// from the GPU's timestamp queries, which only adapters with 'timestamp-query' have; without them
// the profile has one "gpu_batches" entry and the page prints totals only. Query parameters
// (url, backend, lengths, runs, gemm, f16: the GEMM kernel and shader-f16 staging, load option
// gpuKernels) fill the form; for each length the page also prints the GPU work of the profiled run
// (dispatches per question and per layer, compute passes, submits) and the GEMM kernels that ran; run=1 starts at once (bench/webgpu-page/run.mjs
// --headless). body[data-done] is "true" when the table is complete, "error" when it failed.
import { load } from '../../web/src/index.browser.js';
import { question } from '../workload.mjs';

const $ = (id) => document.getElementById(id);
const out = $('out');
const log = (line) => { out.textContent += `${line}\n`; };
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
const kCpuEmulation = /swiftshader|llvmpipe|lavapipe|software|microsoft basic render/i;

const params = new URLSearchParams(location.search);
for (const name of ['url', 'backend', 'lengths', 'runs', 'gemm', 'f16']) if (params.has(name)) $(name).value = params.get(name);

/** The page's high-performance adapter (the one load() asks for too), described; null without one. */
async function adapterInfo() {
  const adapter = await navigator.gpu?.requestAdapter({ powerPreference: 'high-performance' }).catch(() => null);
  if (!adapter) return null;
  const i = adapter.info ?? {};
  const name = [i.vendor, i.architecture, i.device, i.description].filter((p) => p).join(' ') || 'unnamed adapter';
  return { name, timestamps: adapter.features.has('timestamp-query'), f16: adapter.features.has('shader-f16'),
    maxBuffer: adapter.limits.maxBufferSize };
}

async function run() {
  out.textContent = '';
  document.body.dataset.done = 'false';
  const url = new URL($('url').value, document.baseURI).href;
  const backend = $('backend').value;
  const lengths = $('lengths').value.split(',').map(Number).filter((n) => n >= 3);
  const runs = Math.max(1, Number($('runs').value) || 1);
  log(`browser: ${navigator.userAgent}`);
  log(`cores: ${navigator.hardwareConcurrency}, crossOriginIsolated: ${self.crossOriginIsolated}`);
  const adapter = await adapterInfo();
  log(adapter === null ? 'WebGPU adapter: none' : `WebGPU adapter: ${adapter.name} (timestamp-query ${adapter.timestamps ? 'yes' : 'no'}, ` +
    `shader-f16 ${adapter.f16 ? 'yes' : 'no'}, maxBufferSize ${(adapter.maxBuffer / 2 ** 20).toFixed(0)} MiB)`);
  if (backend === 'webgpu' && adapter !== null && kCpuEmulation.test(adapter.name)) {
    log('NOTE: this adapter emulates a GPU on the CPU: the numbers below only prove the GPU path runs.');
  }
  log(`checkpoint: ${url}, backend asked: ${backend}, runs: ${runs} (median, after a first call)`);

  const started = performance.now();
  const gpuKernels = { gemm: $('gemm').value, f16: $('f16').value };
  log(`GPU kernels asked: gemm ${gpuKernels.gemm}, shader-f16 ${gpuKernels.f16}`);
  const model = await load({ url }, {
    backend,
    gpuKernels,
    // The classic scripts served from /dist/wasm/ (run.mjs serves dist/), as the demo loads them.
    wasm: { moduleUrl: new URL('/dist/wasm/laya-core.js', document.baseURI).href },
    onWarning: (w) => log(`warning: ${w}`),
  });
  try {
    const c = model.config;
    log(`load: ${(performance.now() - started).toFixed(0)} ms; ran on: ${model.backend}; ${c.encoder}: d ${c.hiddenSize}, ` +
      `${c.encoderLayers} layers, weights ${(c.weightsFileBytes / 1e6).toFixed(1)} MB`);
    const stamped = model.backend === 'wasm' || adapter?.timestamps === true;
    if (!stamped) log("the adapter has no 'timestamp-query': no GEMM time; total GFLOP over the batches' wall time only");
    const work = [];
    log('tokens | ms/question | first call ms | GFLOP/question | GEMM ms | GEMM TFLOP/s | all steps TFLOP/s');
    for (const L of lengths) {
      if (L > c.maxLen) {
        log(`${L} | skipped: above the encoder's max_len ${c.maxLen}`);
        continue;
      }
      const inputs = { inputs: [question(L, 1)], embed_inputs: [] };
      let t = performance.now();
      await model.forward(inputs);
      const first = performance.now() - t;
      const times = [];
      for (let r = 0; r < runs; ++r) {
        t = performance.now();
        await model.forward(inputs);
        times.push(performance.now() - t);
      }
      // Profiled apart: timestamps give each step its own pass, which slows the run they time.
      model.setProfiling(true);
      await model.forward(inputs);
      const profile = model.profile();
      const steps = profile.steps;
      model.setProfiling(false);
      const g = profile.gpu;
      if (g !== undefined && g.runs > 0) {
        work.push(`${L}: ${g.dispatches / g.runs} dispatches per question (${(g.dispatches / g.runs / c.encoderLayers).toFixed(1)} per layer), ` +
          `${g.submits / g.runs} submits, ${g.passes / g.runs} passes (one per step while stamping); gemm ${g.gemm}, ` +
          `shader-f16 staging ${g.shaderF16 ? 'on' : 'off'}, kernels ${Object.keys(g.gemmKernels).join(', ')}`);
      }
      const gflop = steps.reduce((s, x) => s + x.gflop, 0);
      const ms = steps.reduce((s, x) => s + x.ms, 0);
      const gemm = steps.find((s) => s.kind === 'gemm');
      // GFLOP per millisecond is TFLOP/s; 3 significant digits, as they span 1e-5 (SwiftShader) to 10.
      const tflops = (g, t) => (t > 0 ? (g / t).toPrecision(3) : 'n/a');
      const gemmCols = gemm === undefined ? 'n/a | n/a' : `${gemm.ms.toFixed(2)} | ${tflops(gemm.gflop, gemm.ms)}`;
      log(`${L} | ${median(times).toFixed(2)} | ${first.toFixed(0)} | ${gflop.toFixed(4)} | ${gemmCols} | ${tflops(gflop, ms)}`);
    }
    for (const line of work) log(`GPU work ${line}`);
    document.body.dataset.done = 'true';
  } finally {
    model.dispose();
  }
}

$('form').addEventListener('submit', (event) => {
  event.preventDefault();
  run().catch((error) => {
    log(`error: ${error.code ?? error.name}: ${error.message}`);
    document.body.dataset.done = 'error';
  });
});
if (params.get('run') === '1') $('run').click();
