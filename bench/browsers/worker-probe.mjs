// Why a browser's package worker answers slower than its page: for one engine, (1) what the page
// and a module worker of it each see (cross-origin isolation, SharedArrayBuffer, relaxed SIMD, the
// cores reported, a plain-JavaScript loop's ms), and (2) the same 128-token questions answered for
// a few seconds on 1 thread, first by a page-thread model, then by a { worker: true } model, while
// this script samples the browser's threads in /proc: which thread did the work, its CPU seconds,
// and the scheduling it ran under (policy and nice value: a thread the engine marks as background
// gets a smaller share of a busy machine's cores).
// Usage: node bench/browsers/worker-probe.mjs [--engine webkit] [--shape small-f16] [--seconds 8]
// Environment variables reach the browser: e.g. JSC_useWebAssemblyFastMemory=0 for WebKit.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateCheckpoint, kShapes } from '../gen-checkpoint.mjs';
import { machineLines } from '../machine.mjs';
import { engineNamed } from '../../tests/js/helpers/browsers/engines.mjs';
import { startServer } from './serve.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const args = process.argv.slice(2);
const flag = (name, fallback) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : fallback; };
const engineName = flag('--engine', 'webkit');
const shape = flag('--shape', 'small-f16');
const seconds = Number(flag('--seconds', '8'));
const kPolicies = ['SCHED_OTHER', 'SCHED_FIFO', 'SCHED_RR', 'SCHED_BATCH', 'SCHED_ISO', 'SCHED_IDLE'];

/** Every thread of every descendant of this process: key pid/tid -> process, thread name, CPU s, nice, policy. */
function threads() {
  const parent = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      parent.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch { /* gone */ }
  }
  const mine = [...parent.keys()].filter((pid) => {
    for (let p = pid; p > 1; p = parent.get(p) ?? 0) if (p === process.pid) return pid !== process.pid;
    return false;
  });
  const out = new Map();
  for (const pid of mine) {
    let comm = '?';
    try { comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim(); } catch { continue; }
    let tids = [];
    try { tids = readdirSync(`/proc/${pid}/task`); } catch { continue; }
    for (const tid of tids) {
      try {
        const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
        const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        // Fields from 3 on: utime 14, stime 15, nice 19, policy 41 (proc(5)), here at index n - 3.
        out.set(`${pid}/${tid}`, { process: comm, thread: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')),
          cpu: (Number(f[11]) + Number(f[12])) / 100, nice: Number(f[16]), policy: kPolicies[Number(f[38])] ?? f[38] });
      } catch { /* gone */ }
    }
  }
  return out;
}

/** `fn()` while sampling threads(): the threads that used over 0.2 CPU s, busiest first. */
async function busyThreads(fn) {
  const first = threads();
  const last = new Map(first);
  const timer = setInterval(() => { for (const [k, v] of threads()) { if (!first.has(k)) first.set(k, { ...v, cpu: 0 }); last.set(k, v); } }, 250);
  try {
    const result = await fn();
    for (const [k, v] of threads()) last.set(k, v);
    const busy = [...last].map(([k, v]) => ({ ...v, id: k, used: v.cpu - (first.get(k)?.cpu ?? 0) }))
      .filter((t) => t.used > 0.2).sort((a, b) => b.used - a.used);
    return { result, busy };
  } finally {
    clearInterval(timer);
  }
}

async function facts() {
  const { pageFacts, workerFacts } = await import('/bench/browsers/page/facts.mjs');
  return { page: pageFacts(), worker: await workerFacts() };
}

/** Loads the checkpoint on 1 thread (in the package worker with `worker`), then answers questions for `seconds`. */
async function questionsFor({ worker, seconds }) {
  const { load } = await import('/dist/index.browser.js');
  const { question } = await import('/bench/workload.mjs');
  const model = await load({ url: new URL('/checkpoint/', location.href).href }, { backend: 'wasm', cache: false, threads: 1, worker, onWarning: () => undefined });
  try {
    await model.forward({ inputs: [question(128, 7)] });
    const ms = [];
    const end = performance.now() + seconds * 1000;
    for (let i = 0; performance.now() < end; i++) {
      const t = performance.now();
      await model.forward({ inputs: [question(128, 11 + i)] });
      ms.push(performance.now() - t);
    }
    return { simd: model.simd, threads: model.threads, ms: ms.sort((a, b) => a - b) };
  } finally {
    model.dispose();
  }
}

const dir = path.join(root, 'build', 'bench', shape);
generateCheckpoint(dir, kShapes[shape], 1234, () => undefined);
const server = await startServer(root, dir, path.join(root, 'dist'));
const session = await engineNamed(engineName).launch();
try {
  for (const line of machineLines()) console.log(line);
  const jsc = Object.entries(process.env).filter(([k]) => k.startsWith('JSC_')).map(([k, v]) => `${k}=${v}`);
  console.log(`${session.version}, ${shape} checkpoint, 1 thread${jsc.length > 0 ? `, ${jsc.join(' ')}` : ''}`);
  const page = await session.open(`${server.origin}/bench/browsers/page/index.html`);
  try {
    const seen = await page.evaluate(facts);
    for (const [where, f] of Object.entries(seen)) {
      console.log(`${where.padEnd(6)}: crossOriginIsolated ${f.isolated}, SharedArrayBuffer ${f.sharedArrayBuffer}, relaxed SIMD ${f.relaxedSimd}, ` +
        `hardwareConcurrency ${f.cores}, JS loop ${f.jsLoopMs.toFixed(1)} ms`);
    }
    for (const worker of [false, true]) {
      const { result, busy } = await busyThreads(() => page.evaluate(questionsFor, { worker, seconds }));
      const median = result.ms[result.ms.length >> 1];
      console.log(`\n${worker ? 'worker' : 'page'}: ${result.simd} SIMD, ${result.threads} thread, ${result.ms.length} questions, best ${result.ms[0].toFixed(1)} ms, median ${median.toFixed(1)} ms`);
      for (const t of busy) console.log(`  ${t.process} ${t.id} "${t.thread}": ${t.used.toFixed(2)} CPU s, ${t.policy}, nice ${t.nice}`);
    }
  } finally {
    await page.close();
  }
} finally {
  await session.close();
  server.stop();
}
