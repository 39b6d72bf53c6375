// The facts bench/browsers/worker-probe.mjs compares between the page and its module worker.
import { relaxedSimdSupported } from '/dist/core/simd.js';

/** A fixed floating-point loop in plain JavaScript, best ms of five (the JIT's top tier, not wasm). */
export function jsLoopMs() {
  let best = Infinity;
  for (let run = 0; run < 5; run++) {
    const t = performance.now();
    let x = 0;
    for (let i = 0; i < 2e7; i++) x += Math.sqrt(i) * 1e-9;
    best = Math.min(best, performance.now() - t);
    if (x < 0) throw new Error('unreachable');
  }
  return best;
}

export function pageFacts() {
  return { isolated: crossOriginIsolated, sharedArrayBuffer: typeof SharedArrayBuffer === 'function',
    relaxedSimd: relaxedSimdSupported(), cores: navigator.hardwareConcurrency, jsLoopMs: jsLoopMs() };
}

export function workerFacts() {
  const worker = new Worker('/bench/browsers/page/facts-worker.mjs', { type: 'module' });
  return new Promise((resolve, reject) => {
    worker.onmessage = (event) => { worker.terminate(); resolve(event.data); };
    worker.onerror = (event) => { worker.terminate(); reject(new Error(`facts worker: ${event.message}`)); };
    worker.postMessage(null);
  });
}
