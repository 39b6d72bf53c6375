// bench/browsers/worker-probe.mjs: what a module worker of the bench page sees (the same facts the
// page reports of itself), and the same plain-JavaScript loop timed, to tell the engine's worker
// from the package's.
import { relaxedSimdSupported } from '/dist/core/simd.js';
import { jsLoopMs } from '/bench/browsers/page/facts.mjs';

self.onmessage = () => self.postMessage({
  isolated: self.crossOriginIsolated, sharedArrayBuffer: typeof SharedArrayBuffer === 'function',
  relaxedSimd: relaxedSimdSupported(), cores: navigator.hardwareConcurrency, jsLoopMs: jsLoopMs(),
});
