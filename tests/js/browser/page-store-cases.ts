// The browser side of page-store.test.ts: each case loads the tiny checkpoint with the fake wasm
// module, through the real store (the Cache API or the OPFS), with a fetch that plays a server
// giving ETags (and 304 to a matching If-None-Match), and with the storage APIs patched where a
// case simulates a fault. It returns plain data for the test to check. Served as an ES module by
// page-server.ts, to the page or to a dedicated worker of the page's (page-store-worker.ts), as
// a store runs in the package's own worker: so nothing here says `window`.
import { load } from '../../../web/src/index.browser.js';
import { FakeCore } from '../helpers/fake-core.js';

/** 'opfs' as the engine gives it (sync access handles in a worker where it can); 'opfs-writable' with no Worker (createWritable). */
export type StoreName = 'cache-api' | 'opfs' | 'opfs-writable';
export type CaseName = 'store-then-revalidate' | 'shared-memory' | 'torn' | 'changed' | 'quota-estimate' | 'quota-exceeded' | 'refused' | 'abort' | 'persist';

export interface CaseResult {
  /** SHA-256 of what reached wasm memory, per load. */
  digests: string[];
  /** The checkpoint requests, per load, sorted: "file" or "file if-none-match". */
  requests: string[][];
  warnings: string[];
  /** Bytes the store holds for the weights after the case (0: no entry), and its recorded ETag. */
  storedWeights: number;
  storedEtag: string | null;
  /** Sessions not freed. */
  live: number;
  /** Per load: the last weights progress event (download or from the store). */
  lastWeightEvents: unknown[];
  errors: string[];
  persisted?: boolean;
  /** Workers started during the case (the OPFS store's, on the sync-handle route of a page). */
  workers: number;
  /** Of those, the workers started during each load. */
  workersPerLoad: number[];
}

const kWeights = 'model.safetensors';
const kCacheName = 'laya-wasm-test';

export async function runCase(name: CaseName, store: StoreName, hubUrl: string): Promise<CaseResult> {
  await clearStores();
  const result: CaseResult = { digests: [], requests: [], warnings: [], storedWeights: 0, storedEtag: null, live: 0, lastWeightEvents: [], errors: [], workers: 0, workersPerLoad: [] };
  const fake = new FakeCore({ sharedMemory: name === 'shared-memory' });
  const restoreWorker = watchWorkers(result, store, name === 'quota-exceeded');
  try {
    await playCase(name, store, hubUrl, fake, result);
  } finally {
    restoreWorker();
  }
  result.live = fake.live;
  const stored = await storedWeights(store, hubUrl);
  result.storedWeights = stored.bytes;
  result.storedEtag = stored.etag;
  return result;
}

async function playCase(name: CaseName, storeName: StoreName, hubUrl: string, fake: FakeCore, result: CaseResult): Promise<void> {
  const store = storeName === 'cache-api' ? 'cache-api' : 'opfs';
  let etag = '"v1"';
  let requests: string[] = [];
  const fetchFn = async (url: string, init?: RequestInit): Promise<Response> => {
    const file = url.slice(url.indexOf('/resolve/main/') + '/resolve/main/'.length);
    const conditional = new Headers(init?.headers).get('if-none-match');
    requests.push(conditional === null ? file : `${file} if-none-match`);
    if (conditional === etag) return new Response(null, { status: 304, headers: { etag } });
    const answer = await fetch(url, init);
    const headers = new Headers(answer.headers);
    headers.set('etag', etag);
    return new Response(answer.body, { status: answer.status, headers });
  };
  const loadOnce = async (extra: Record<string, unknown> = {}): Promise<void> => {
    requests = [];
    const workersBefore = result.workers;
    let last: unknown = null;
    const sessions = fake.sessions.length;
    try {
      const model = await load({ repo: 'org/tiny', hubUrl }, {
        cache: kCacheName, cacheStore: store, fetch: fetchFn, wasm: { factory: fake.factory }, threads: 1,
        onWarning: (w: string) => result.warnings.push(w),
        onProgress: (e: { type: string; file?: string }) => { if (e.file === kWeights) last = e; (extra['onProgress'] as ((e: unknown) => void) | undefined)?.(e); },
        ...Object.fromEntries(Object.entries(extra).filter(([k]) => k !== 'onProgress')),
      });
      model.dispose();
      // The store commits behind the load: the next load finds the entry once this settles.
      await model.stored;
      result.digests.push(await digest(fake.sessions[sessions]?.weights as Uint8Array));
    } catch (error) {
      result.errors.push(`${(error as Error).name}: ${(error as Error).message}`);
    }
    // The five files are asked for at once: sorted, since their order is the network's.
    result.requests.push([...requests].sort());
    result.lastWeightEvents.push(last);
    result.workersPerLoad.push(result.workers - workersBefore);
  };

  if (name === 'store-then-revalidate' || name === 'shared-memory') {
    await loadOnce();
    await loadOnce();
  } else if (name === 'torn') {
    await loadOnce();
    await tearWeights(store, hubUrl);
    await loadOnce();
  } else if (name === 'changed') {
    await loadOnce();
    etag = '"v2"';
    await loadOnce();
  } else if (name === 'quota-estimate') {
    const estimate = async (): Promise<StorageEstimate> => ({ usage: 1000, quota: 5000 });
    // Where the engine has no StorageManager (WebKitGTK's MiniBrowser), the page is given one that estimates.
    if (navigator.storage === undefined) Object.defineProperty(navigator, 'storage', { value: { estimate }, configurable: true });
    else (navigator.storage as StorageManager & { estimate: typeof estimate }).estimate = estimate;
    await loadOnce();
  } else if (name === 'quota-exceeded') {
    patchQuotaExceeded(store);
    await loadOnce();
  } else if (name === 'refused') {
    const refuse = async (): Promise<never> => { throw new DOMException('The operation is insecure.', 'SecurityError'); };
    const realCaches = globalThis.caches;
    Object.defineProperty(globalThis, 'caches', { value: { open: refuse }, configurable: true });
    if (navigator.storage !== undefined) Object.defineProperty(navigator.storage, 'getDirectory', { value: refuse, configurable: true });
    await loadOnce();
    Object.defineProperty(globalThis, 'caches', { value: realCaches, configurable: true });
    if (navigator.storage !== undefined) delete (navigator.storage as { getDirectory?: unknown }).getDirectory;
  } else if (name === 'abort') {
    for (let i = 0; i < 2; i++) {
      const controller = new AbortController();
      await loadOnce({
        signal: controller.signal,
        onProgress: (e: { type: string; file?: string; loaded?: number }) => { if (e.file === kWeights && (e.loaded ?? 0) > 0) controller.abort(); },
      });
      if (i === 0) await loadOnce();  // stores it, for the second abort to hit the store load
    }
  } else if (name === 'persist') {
    await loadOnce({ persist: (granted: boolean) => { result.persisted = granted; } });
    // The load does not wait for the answer; give the browser a moment to give it.
    for (let i = 0; i < 40 && result.persisted === undefined; i++) await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Counts the workers the store starts, and undoes what the store needs undone: 'opfs-writable'
 * takes the page's Worker away (the OPFS store then writes with createWritable()); a quota case
 * starts every worker with its sync handles' writes failing as a full disk does, or, in a
 * dedicated worker (where the store opens its handles itself), makes this one's writes fail.
 */
function watchWorkers(result: CaseResult, store: StoreName, quotaExceeded: boolean): () => void {
  if (quotaExceeded && inDedicatedWorker()) failSyncWritesAfter100kB();
  const real = Object.getOwnPropertyDescriptor(globalThis, 'Worker');
  const RealWorker = globalThis.Worker;
  // A worker without nested workers has nothing to count.
  if (real === undefined || RealWorker === undefined) return () => undefined;
  const prelude = quotaExceeded ? `(${failSyncWritesAfter100kB.toString()})();\n` : '';
  const Counted = class extends RealWorker {
    constructor(url: string | URL, options?: WorkerOptions) {
      result.workers += 1;
      const source = `${prelude}importScripts(${JSON.stringify(String(url))});`;
      super(prelude === '' ? url : URL.createObjectURL(new Blob([source], { type: 'text/javascript' })), options);
    }
  };
  Object.defineProperty(globalThis, 'Worker', { value: store === 'opfs-writable' ? undefined : Counted, configurable: true, writable: true });
  return () => Object.defineProperty(globalThis, 'Worker', real);
}

function inDedicatedWorker(): boolean {
  const scope = (globalThis as { DedicatedWorkerGlobalScope?: abstract new () => unknown }).DedicatedWorkerGlobalScope;
  return typeof scope === 'function' && globalThis instanceof scope;
}

/** Runs where the store's sync handles are: they throw QuotaExceededError once 100 kB are written. */
function failSyncWritesAfter100kB(): void {
  const proto = (self as unknown as { FileSystemSyncAccessHandle?: { prototype: { write(data: ArrayBufferView, options?: unknown): number } } })
    .FileSystemSyncAccessHandle?.prototype;
  if (proto === undefined) return;
  const write = proto.write;
  const written = new WeakMap<object, number>();
  proto.write = function (this: object, data: ArrayBufferView, options?: unknown): number {
    const total = (written.get(this) ?? 0) + data.byteLength;
    written.set(this, total);
    if (total > 100000) throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
    return write.call(this, data, options);
  };
}

async function digest(bytes: Uint8Array): Promise<string> {
  return Array.from(new Uint8Array(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>)), (b) => b.toString(16).padStart(2, '0')).join('');
}

async function clearStores(): Promise<void> {
  await caches.delete(kCacheName).catch(() => false);
  // WebKitGTK's MiniBrowser has no navigator.storage (no OPFS) at all.
  const root = await navigator.storage?.getDirectory().catch(() => undefined);
  await root?.removeEntry(kCacheName, { recursive: true }).catch(() => undefined);
}

function weightsUrl(hubUrl: string): string {
  return `${hubUrl}/org/tiny/resolve/main/${kWeights}`;
}

async function opfsEntry(hubUrl: string, cacheName = kCacheName): Promise<{ folder: FileSystemDirectoryHandle; name: string } | undefined> {
  const root = await navigator.storage?.getDirectory();
  if (root === undefined) return undefined;
  const folder = await root.getDirectoryHandle(cacheName).catch(() => undefined);
  if (folder === undefined) return undefined;
  const hash = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(weightsUrl(hubUrl))));
  return { folder, name: Array.from(hash.subarray(0, 16), (b) => b.toString(16).padStart(2, '0')).join('') };
}

async function storedWeights(store: StoreName | 'opfs', hubUrl: string, cacheName = kCacheName): Promise<{ bytes: number; etag: string | null }> {
  if (store === 'cache-api') {
    const response = await (await caches.open(cacheName)).match(weightsUrl(hubUrl));
    if (response === undefined) return { bytes: 0, etag: null };
    return { bytes: (await response.blob()).size, etag: response.headers.get('x-laya-etag') };
  }
  const entry = await opfsEntry(hubUrl, cacheName);
  if (entry === undefined) return { bytes: 0, etag: null };
  try {
    const record = JSON.parse(await (await (await entry.folder.getFileHandle(`${entry.name}.json`)).getFile()).text()) as { etag?: string };
    const bytes = (await (await entry.folder.getFileHandle(`${entry.name}.bin`)).getFile()).size;
    return { bytes, etag: record.etag ?? null };
  } catch {
    return { bytes: 0, etag: null };
  }
}

/** Leaves the stored weights 1000 bytes long with their record unchanged (an evicted or torn entry). */
async function tearWeights(store: 'cache-api' | 'opfs', hubUrl: string): Promise<void> {
  if (store === 'cache-api') {
    const cache = await caches.open(kCacheName);
    const response = await cache.match(weightsUrl(hubUrl));
    if (response === undefined) throw new Error('nothing stored to tear');
    const bytes = new Uint8Array(await response.arrayBuffer()).slice(0, 1000);
    await cache.put(weightsUrl(hubUrl), new Response(bytes, { headers: response.headers }));
    return;
  }
  const entry = await opfsEntry(hubUrl);
  if (entry === undefined) throw new Error('nothing stored to tear');
  const writable = await (await entry.folder.getFileHandle(`${entry.name}.bin`)).createWritable({ keepExistingData: true });
  await writable.truncate(1000);
  await writable.close();
}

/** The store's writes fail with QuotaExceededError once 100 kB are written, as a full disk does. */
function patchQuotaExceeded(store: 'cache-api' | 'opfs'): void {
  const quota = (): DOMException => new DOMException('The quota has been exceeded.', 'QuotaExceededError');
  if (store === 'cache-api') {
    const put = Cache.prototype.put;
    Cache.prototype.put = async function (this: Cache, request: RequestInfo | URL, response: Response): Promise<void> {
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      let total = 0;
      const parts: Uint8Array[] = [];
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        total += value.byteLength;
        if (total > 100000) {
          await reader.cancel();
          throw quota();
        }
        parts.push(value);
      }
      return put.call(this, request, new Response(new Blob(parts as BlobPart[]), { headers: response.headers }));
    };
    return;
  }
  const proto = (globalThis as unknown as { FileSystemWritableFileStream: { prototype: { write(data: unknown): Promise<void> } } })
    .FileSystemWritableFileStream.prototype;
  const write = proto.write;
  const written = new WeakMap<object, number>();
  proto.write = async function (this: object, data: unknown): Promise<void> {
    const total = (written.get(this) ?? 0) + ((data as { byteLength?: number }).byteLength ?? 0);
    written.set(this, total);
    if (total > 100000) throw quota();
    return write.call(this, data);
  };
}

/** What one plain load of the tiny checkpoint with options.cache (the store 'auto' picks) gave. */
export interface PlainLoadResult {
  digest: string | null;
  /** The store that held the weights after the load, or null. */
  storedIn: StoreName | null;
  warnings: string[];
  errors: string[];
}

/**
 * A page's load as a user's page does it: the page's own fetch (no ETags from the test server: a
 * stored file then serves without asking), cacheStore 'auto', nothing cleared before.
 */
export async function plainLoad(hubUrl: string, cacheName: string): Promise<PlainLoadResult> {
  const fake = new FakeCore();
  const result: PlainLoadResult = { digest: null, storedIn: null, warnings: [], errors: [] };
  try {
    const model = await load({ repo: 'org/tiny', hubUrl }, { cache: cacheName, wasm: { factory: fake.factory }, onWarning: (w: string) => result.warnings.push(w) });
    model.dispose();
    await model.stored;
    result.digest = await digest(fake.sessions[0]?.weights as Uint8Array);
  } catch (error) {
    result.errors.push(`${(error as Error).name}: ${(error as Error).message}`);
  }
  for (const store of ['cache-api', 'opfs'] as const) {
    if ((await storedWeights(store, hubUrl, cacheName).catch(() => ({ bytes: 0 }))).bytes > 0) result.storedIn = store;
  }
  return result;
}
