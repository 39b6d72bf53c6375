// The bench page's script (bundled by run.mjs from the package's browser sources): the driver calls
// window.pageLoadBench.* through the engine seam and reads back plain numbers.
import { load as loadOnPage } from '../../web/src/index.browser.ts';

const kCacheName = 'laya-wasm-bench';

window.pageLoadBench = {
  /** The page's wire time: a plain fetch of the weights, read chunk by chunk to the end and dropped. */
  async wire(url) {
    const t0 = performance.now();
    const reader = (await fetch(url, { cache: 'no-store' })).body.getReader();
    let bytes = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
    }
    return { seconds: (performance.now() - t0) / 1000, bytes };
  },

  /**
   * One load of the checkpoint with options.cache in `store` ('none': cache off, what storing
   * costs), timed, with the store's warnings. `inWorker`: with { worker: true }, the package's
   * own worker, from dist/ (as the demo loads), not the bundle's page-thread load.
   */
  async load({ hubUrl, repo, store, moduleUrl, inWorker }) {
    // A URL built at run time, so the bundler leaves the import to the browser.
    const load = inWorker ? (await import(new URL('/dist/index.browser.js', location.href).href)).load : loadOnPage;
    const warnings = [];
    let fromNetwork = 0;
    // The weights' answer: 200 (downloaded) or 304 (read from the store), so the table shows which.
    let weightsStatus = null;
    // Whether the weights' progress events said they came from the store (also seen from a worker).
    let weightsFromStore = false;
    const counted = async (url, init) => {
      const answer = await fetch(url, init);
      if (url.endsWith('/model.safetensors')) weightsStatus = answer.status;
      return answer;
    };
    // Where the time goes: when the weights' first and last bytes were in and when the store had them, seconds after the start.
    const phases = { weightsFirst: null, weightsLast: null, stored: null };
    const t0 = performance.now();
    const model = await load({ repo, hubUrl }, {
      cache: store === 'none' ? false : kCacheName, cacheStore: store === 'none' ? 'auto' : store, threads: 1, wasm: { moduleUrl },
      // A function cannot cross into the worker: there the weights' status is not seen.
      ...(inWorker ? { worker: true } : { fetch: counted }),
      onWarning: (w) => warnings.push(w),
      onProgress: (e) => {
        if (e.type !== 'download' || e.file !== 'model.safetensors') return;
        fromNetwork = e.loaded;
        weightsFromStore = e.fromStore === true;
        const at = (performance.now() - t0) / 1000;
        if (e.loaded > 0) phases.weightsFirst ??= at;
        if (e.loaded === e.total) phases.weightsLast = at;
      },
    });
    const seconds = (performance.now() - t0) / 1000;
    // The store's commit runs behind the load: the next visit finds the entry only once it ends.
    await model.stored;
    phases.stored = (performance.now() - t0) / 1000;
    model.dispose();
    // The checkpoint's own warnings (random weights) are not the store's.
    return { seconds, warnings: warnings.filter((w) => w.startsWith('laya-wasm:')), loaded: fromNetwork, weightsStatus, weightsFromStore, phases };
  },

  /**
   * Why a store load costs what it does: the stored weights read three ways into one buffer of
   * their size, without the engine: the Cache API entry's body stream chunk by chunk (what the
   * package does in WebKit, CacheApiRead 'body'), and the same entry as a Blob in 16 MiB slices
   * (what it does in Chromium and Firefox, 'blob').
   */
  async readStore(url) {
    const out = {};
    const tMatch = performance.now();
    const cached = await (await caches.open(kCacheName)).match(url);
    out.matchSeconds = (performance.now() - tMatch) / 1000;
    out.found = cached !== undefined;
    if (cached !== undefined) {
      let heap = null;
      let t0 = performance.now();
      const reader = cached.body.getReader();
      let at = 0;
      let chunks = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        heap ??= new Uint8Array(Number(cached.headers.get('x-laya-size')));
        heap.set(value, at);
        at += value.byteLength;
        chunks += 1;
      }
      out.cacheStream = { seconds: (performance.now() - t0) / 1000, chunks, meanChunk: Math.round(at / Math.max(1, chunks)) };
      t0 = performance.now();
      const blob = await (await (await caches.open(kCacheName)).match(url)).blob();
      const blobSeconds = (performance.now() - t0) / 1000;
      for (let pos = 0; pos < blob.size; pos += 16 << 20) heap.set(new Uint8Array(await blob.slice(pos, Math.min(blob.size, pos + (16 << 20))).arrayBuffer()), pos);
      out.cacheSlices = { seconds: (performance.now() - t0) / 1000, blobSeconds };
    }
    return out;
  },

  /**
   * Why an OPFS load costs what it does where the store reads the File itself (WebKit, whose sync
   * access handles are refused): the stored weights' File read into one buffer of its size in
   * 16, 32 and 64 MiB slices (two in flight) and 8 MiB slices (four in flight), and as
   * file.stream() (the store's way), each slice or chunk released once copied, as the store does.
   */
  async readOpfs() {
    const root = await navigator.storage.getDirectory();
    const folder = await root.getDirectoryHandle(kCacheName);
    let file = null;
    for await (const [name, handle] of folder.entries()) {
      if (!name.endsWith('.bin')) continue;
      const candidate = await handle.getFile();
      if (file === null || candidate.size > file.size) file = candidate;
    }
    if (file === null) return { found: false };
    const heap = new Uint8Array(file.size);
    // `inFlight` slices being read at once, each copied in as soon as it and those before it are in.
    const sliced = async (sliceBytes, inFlight) => {
      const t0 = performance.now();
      const queue = [];
      let next = 0;
      const more = () => {
        while (queue.length < inFlight && next < file.size) {
          queue.push({ at: next, bytes: file.slice(next, Math.min(file.size, next + sliceBytes)).arrayBuffer() });
          next += sliceBytes;
        }
      };
      more();
      while (queue.length > 0) {
        const { at, bytes } = queue.shift();
        more();
        const buffer = await bytes;
        heap.set(new Uint8Array(buffer), at);
        buffer.transfer?.(0);
      }
      return (performance.now() - t0) / 1000;
    };
    const out = { found: true, bytes: file.size, slices: [] };
    for (const [mib, inFlight] of [[16, 2], [32, 2], [64, 2], [8, 4]]) out.slices.push({ mib, inFlight, seconds: await sliced(mib << 20, inFlight) });
    const t0 = performance.now();
    const reader = file.stream().getReader();
    let at = 0;
    let chunks = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      heap.set(value, at);
      value.buffer.transfer?.(0);
      at += value.byteLength;
      chunks += 1;
    }
    out.stream = { seconds: (performance.now() - t0) / 1000, chunks };
    return out;
  },

  userAgent() {
    return navigator.userAgent;
  },
};
document.body.dataset.ready = 'true';
