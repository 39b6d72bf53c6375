// How many threads help on this device, for the default thread count. Chromium and Firefox report
// the logical cores in navigator.hardwareConcurrency (Firefox's fingerprinting guard reports fewer,
// never more). WebKit does not: it reports a rounded figure (4 on a 2-core machine, 8 on larger
// Macs, 2 on older iOS), and a pool larger than the cores it runs on is slower than one that
// fits (each step waits for its slowest part, and a thread that shares a core finishes last). So in
// WebKit the package counts, once per page, how many busy workers actually run at once: one worker
// spins for a window and counts its loop turns, then `hardwareConcurrency` workers spin together;
// their total over the lone worker's is the cores they got (a fraction of a second, once).
// The count corrects the padding, not the load: other programs busy at that moment lower it for
// the page's whole life, so it is never taken below 2 (where 2 are reported), the count Chromium
// and Firefox would use on the same machine whatever its load (the figures: docs/performance.md).
// `threads` in the load options overrides it.

/** How long each worker spins per measurement. */
const kWindowMs = 40;

let measured: Promise<number> | undefined;

/** The default thread count's base: the cores, or in WebKit the cores measured (cached per page). */
export function usefulThreads(): number | Promise<number> {
  const reported = reportedCores();
  if (reported <= 1 || !padsHardwareConcurrency() || !canMeasure()) return reported;
  measured ??= measureConcurrentWorkers(reported).catch(() => reported);
  return measured;
}

export function reportedCores(): number {
  const n = (globalThis as { navigator?: { hardwareConcurrency?: number } }).navigator?.hardwareConcurrency;
  return typeof n === 'number' && n > 0 ? Math.floor(n) : 1;
}

/**
 * True in WebKit (Safari, and every iOS browser, which must use WebKit): its user agent names
 * AppleWebKit without the Chromium tokens; Firefox's has no AppleWebKit.
 */
export function padsHardwareConcurrency(): boolean {
  const ua = (globalThis as { navigator?: { userAgent?: string } }).navigator?.userAgent ?? '';
  return /AppleWebKit\//.test(ua) && !/(Chrome|Chromium|HeadlessChrome|Edg)\//.test(ua);
}

function canMeasure(): boolean {
  const g = globalThis as { Worker?: unknown; Blob?: unknown; URL?: { createObjectURL?: unknown } };
  return typeof g.Worker === 'function' && typeof g.Blob === 'function' && typeof g.URL?.createObjectURL === 'function';
}

// The worker: warms its loop up, says it is ready, then on each message spins for the window and
// answers with its loop turns.
const kSpinner = `
const spin = (ms) => { let turns = 0, x = 1; const end = performance.now() + ms;
  while (performance.now() < end) { for (let i = 0; i < 2000; i++) x = (x * 1103515245 + 12345) | 0; turns++; }
  return turns + (x === 0.5 ? 1 : 0); };
spin(5); postMessage('ready');
onmessage = (e) => postMessage(spin(e.data));`;

/** The cores `count` busy workers get at once, between min(2, count) and `count`. */
export async function measureConcurrentWorkers(count: number): Promise<number> {
  const url = URL.createObjectURL(new Blob([kSpinner], { type: 'text/javascript' }));
  const workers: Worker[] = [];
  try {
    for (let i = 0; i < count; i++) workers.push(new Worker(url));
    await Promise.all(workers.map((w) => nextMessage(w)));
    const alone = await spinAll(workers.slice(0, 1));
    const together = await spinAll(workers);
    const cores = together / Math.max(1, alone);
    return Math.max(Math.min(2, count), Math.min(count, Math.round(cores)));
  } finally {
    for (const w of workers) w.terminate();
    URL.revokeObjectURL(url);
  }
}

async function spinAll(workers: Worker[]): Promise<number> {
  const turns = workers.map((w) => nextMessage(w));
  for (const w of workers) w.postMessage(kWindowMs);
  return (await Promise.all(turns)).reduce((sum: number, t) => sum + Number(t), 0);
}

function nextMessage(worker: Worker): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the spinning worker did not answer')), 5000);
    worker.onmessage = (e: MessageEvent) => { clearTimeout(timer); resolve(e.data); };
    worker.onerror = (e: ErrorEvent) => { clearTimeout(timer); reject(new Error(e.message)); };
  });
}
