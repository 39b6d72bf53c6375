// The bench page's script (bundled by run.mjs from the package's browser sources): the driver calls
// window.pageLoadBench.* through the engine seam and reads back plain numbers.
import { load } from '../../web/src/index.browser.ts';

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

  /** Empties both stores, so the next load is a first load. */
  async clear() {
    await caches.delete(kCacheName).catch(() => false);
    const root = await navigator.storage?.getDirectory?.().catch(() => undefined);
    await root?.removeEntry(kCacheName, { recursive: true }).catch(() => undefined);
  },

  /** One load of the checkpoint with options.cache, timed, with the store's warnings. */
  async load({ hubUrl, repo, store, moduleUrl }) {
    const warnings = [];
    let fromNetwork = 0;
    const t0 = performance.now();
    const model = await load({ repo, hubUrl }, {
      cache: kCacheName, cacheStore: store, threads: 1, wasm: { moduleUrl },
      onWarning: (w) => warnings.push(w),
      onProgress: (e) => { if (e.type === 'download' && e.file === 'model.safetensors') fromNetwork = e.loaded; },
    });
    const seconds = (performance.now() - t0) / 1000;
    model.dispose();
    // The checkpoint's own warnings (random weights) are not the store's.
    return { seconds, warnings: warnings.filter((w) => w.startsWith('laya-wasm:')), loaded: fromNetwork };
  },

  userAgent() {
    return navigator.userAgent;
  },
};
document.body.dataset.ready = 'true';
