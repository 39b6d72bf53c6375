// One measurement of bench:browsers, the same code in a browser page and in Node: load the
// English-shaped checkpoint with `threads` (undefined: the package's default), answer one 128-token
// question to warm up, time `runs` more (ms each), then one more with the step profiler on.
// `worker`: loaded with { worker: true }, the package's own worker (browsers only); its model's
// profile() is the worker's as of its last answered call, so it is read after the profiled question.
import { question } from '../workload.mjs';

export const kQuestionTokens = 128;

export async function measure(load, source, { threads, runs, worker = false }) {
  const warnings = [];
  const t0 = performance.now();
  const model = await load(source, {
    backend: 'wasm', cache: false, onWarning: (w) => warnings.push(w), ...(threads === undefined ? {} : { threads }),
    ...(worker ? { worker: true } : {}),
  });
  const loadMs = performance.now() - t0;
  try {
    await model.forward({ inputs: [question(kQuestionTokens, 7)] });
    const ms = [];
    for (let i = 0; i < runs; i++) {
      const q = question(kQuestionTokens, 11 + i);
      const t = performance.now();
      await model.forward({ inputs: [q] });
      ms.push(performance.now() - t);
    }
    model.setProfiling(true);
    await model.forward({ inputs: [question(kQuestionTokens, 7)] });
    const profile = Object.fromEntries(model.profile().steps.map((s) => [s.kind, s.ms]));
    model.setProfiling(false);
    // The checkpoint is random: its decision head's temperatures are out of range, which load warns about.
    return { worker, threads: model.threads, simd: model.simd, loadMs, ms, profile, warnings: warnings.filter((w) => !w.includes('temperatures')) };
  } finally {
    model.dispose();
  }
}
