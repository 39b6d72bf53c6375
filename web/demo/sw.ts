// The demo's service worker: keeps the page itself (HTML, CSS, bundles, the wasm module) so a
// second visit works offline. Network first (a rebuilt demo is picked up at once), the cache when
// the network fails. Checkpoint files are not handled here: the package keeps them in the Cache
// API itself (load option `cache`).
interface FetchEventLike extends Event {
  request: Request;
  respondWith(response: Promise<Response>): void;
}
interface ExtendableEventLike extends Event {
  waitUntil(promise: Promise<unknown>): void;
}
interface ServiceWorkerScope {
  addEventListener(type: 'install' | 'activate', listener: (event: ExtendableEventLike) => void): void;
  addEventListener(type: 'fetch', listener: (event: FetchEventLike) => void): void;
  skipWaiting(): Promise<void>;
  clients: { claim(): Promise<void> };
  registration: { scope: string };
}

const worker = self as unknown as ServiceWorkerScope;
const kShellCache = 'laya-demo-shell-v4';
const kShell = ['./', 'index.html', 'demo.css', 'app.js', 'laya-worker.js', 'dist/wasm/laya-core.js', 'dist/wasm/laya-core.wasm',
  'dist/wasm/laya-core-mt.js', 'dist/wasm/laya-core-mt.wasm', 'dist/wasm/laya-core-mt.worker.js',
  'dist/wasm/laya-core-relaxed.js', 'dist/wasm/laya-core-relaxed.wasm', 'dist/wasm/laya-core-mt-relaxed.js',
  'dist/wasm/laya-core-mt-relaxed.wasm', 'dist/wasm/laya-core-mt-relaxed.worker.js'];
const shellUrls = new Set(kShell.map((path) => new URL(path, worker.registration.scope).href));

worker.addEventListener('install', (event) => {
  event.waitUntil(caches.open(kShellCache).then((cache) => cache.addAll([...shellUrls])).then(() => worker.skipWaiting()));
});

worker.addEventListener('activate', (event) => {
  event.waitUntil(worker.clients.claim());
});

worker.addEventListener('fetch', (event) => {
  const { request } = event;
  const url = new URL(request.url);
  url.search = '';
  // Only the shell: other pages of the origin (a checkpoint file opened in a tab) pass through.
  if (request.method !== 'GET' || !shellUrls.has(url.href)) return;
  const root = new URL('./', worker.registration.scope).href;
  const key = url.href === new URL('index.html', root).href ? root : url.href;
  event.respondWith((async () => {
    const cache = await caches.open(kShellCache);
    try {
      const response = await fetch(request);
      if (response.ok) await cache.put(key, response.clone());
      return response;
    } catch (error) {
      const cached = await cache.match(key);
      if (cached !== undefined) return cached;
      throw error;
    }
  })());
});
