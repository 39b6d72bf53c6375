// The store location (store/stored-location.ts) on an in-memory Cache API, in Node: a first load
// stores every file while it streams in (one request each), a second revalidates (304) and reads
// the store; a torn entry, a changed remote file, a quota too small, a store that fails mid-write
// and an abort during either load each leave no half entry. The same cases run in real browsers
// in page-store.test.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CacheApiStore, type CacheApiRead, type CacheLike } from '../../../web/src/browser/store/cache-api-store.js';
import { StoredLocation, type EstimateFunction } from '../../../web/src/store/stored-location.js';
import { loadModelWith } from '../../../web/src/load.js';
import type { LoadProgressEvent } from '../../../web/src/options.js';
import type { Runtime } from '../../../web/src/runtime.js';
import { kCheckpointFiles } from '../../../web/src/sources/checkpoint-source.js';
import { hubFileUrls } from '../../../web/src/sources/file-urls.js';
import { HttpLocation } from '../../../web/src/sources/http-location.js';
import { FakeCore } from '../helpers/fake-core.js';
import { startCheckpointServer, type CheckpointServer, type ServerBehaviour } from '../helpers/checkpoint-server.js';
import { expectSameBytes, kTinyCheckpoint, safetensorsDataSection } from '../helpers/fixtures.js';

/** Stores bodies as bytes, as a browser stores them on disk; a body that errors stores nothing. */
class MemoryCache implements CacheLike {
  readonly entries = new Map<string, { body: Uint8Array; headers: Headers }>();
  /** Throws this from the body's read after so many bytes (a disk that fills up). */
  failAfter: { bytes: number; error: Error } | undefined;
  /** Holds put() back after the body is read, until it resolves (a disk slow to commit). */
  commitGate: Promise<void> | undefined;
  /** Holds every commit back until the function returned is called. */
  holdCommits(): () => void {
    let release = (): void => undefined;
    this.commitGate = new Promise((resolve) => { release = resolve; });
    return release;
  }
  async match(url: string): Promise<Response | undefined> {
    const entry = this.entries.get(url);
    return entry && new Response(entry.body as BodyInit, { headers: entry.headers });
  }
  async put(url: string, response: Response): Promise<void> {
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const parts: Uint8Array[] = [];
    let total = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (this.failAfter !== undefined && total > this.failAfter.bytes) {
        await reader.cancel();
        throw this.failAfter.error;
      }
      parts.push(value);
    }
    await this.commitGate;
    this.entries.set(url, { body: new Uint8Array(Buffer.concat(parts)), headers: response.headers });
  }
  async delete(url: string): Promise<boolean> {
    return this.entries.delete(url);
  }
}

const kPrefix = '/org/tiny/resolve/main/';
const kWeights = join(kTinyCheckpoint, 'model.safetensors');
const kWeightsSize = readFileSync(kWeights).length;
const kEtags = Object.fromEntries(kCheckpointFiles.map((f) => [f, `"v1-${f}"`]));
let server: CheckpointServer;
afterEach(async () => server?.close());

interface Loaded { fake: FakeCore; warnings: string[]; events: LoadProgressEvent[]; stored: Promise<void> }

/** One load, its model disposed at once; resolves when the store is done with it (model.stored), unless `storeBehind`. */
async function loadOnce(cache: MemoryCache, options: { estimate?: EstimateFunction; signal?: AbortSignal; read?: CacheApiRead; storeBehind?: boolean } = {}): Promise<Loaded> {
  const fake = new FakeCore();
  const warnings: string[] = [];
  const events: LoadProgressEvent[] = [];
  const runtime: Runtime = {
    locate: async (source, resolved) => new StoredLocation(
      new HttpLocation(hubFileUrls(source as { repo: string; hubUrl: string }), resolved.fetch), new CacheApiStore(cache, options.read),
      { onWarning: resolved.onWarning, estimate: options.estimate }),
    createCore: async () => ({ core: await fake.factory() }),
    cores: () => 1,
  };
  const model = await loadModelWith(runtime, { repo: 'org/tiny', hubUrl: server.origin }, {
    onWarning: (w) => warnings.push(w), onProgress: (e) => events.push(e), ...(options.signal ? { signal: options.signal } : {}),
  });
  model.dispose();
  if (options.storeBehind !== true) await model.stored;
  return { fake, warnings, events, stored: model.stored };
}

const entryOf = (cache: MemoryCache, file: string) => cache.entries.get(`${server.origin}${kPrefix}${file}`);
const serve = async (behaviour: ServerBehaviour = {}) => {
  server = await startCheckpointServer({ [kPrefix]: kTinyCheckpoint }, { etag: { ...kEtags }, ...behaviour });
};

// Both ways of reading an entry back (cache-api-store.ts CacheApiRead): a Blob in slices, or the
// whole body read and counted first (WebKit's).
test.each(['blob', 'body'] as const)('a first load stores each file as it streams in, and the next revalidates and reads the store (read as a %s)', async (read) => {
  await serve({ chunkBytes: 100000 });
  const cache = new MemoryCache();
  const first = await loadOnce(cache, { read });
  // The five files are asked for at once: their order is the network's.
  expect([...server.requests].sort()).toEqual(kCheckpointFiles.map((f) => `GET ${kPrefix}${f}`).sort());
  for (const f of kCheckpointFiles) {
    expect(Buffer.from(entryOf(cache, f)?.body ?? []).equals(readFileSync(join(kTinyCheckpoint, f)))).toBe(true);
  }
  expectSameBytes(first.fake.session.weights, safetensorsDataSection(kWeights));
  expect(first.warnings).toEqual([]);
  // Downloaded: no progress event says the store.
  expect(first.events.filter((e) => e.type === 'download' && 'fromStore' in e)).toEqual([]);

  const before = server.requests.length;
  const second = await loadOnce(cache, { read });
  expect(server.requests.slice(before).sort()).toEqual(kCheckpointFiles.map((f) => `GET ${kPrefix}${f} if-none-match=${kEtags[f]}`).sort());
  expectSameBytes(second.fake.session.weights, safetensorsDataSection(kWeights));
  // Read from the store: every file's progress events say so.
  const downloads = second.events.filter((e) => e.type === 'download');
  expect(new Set(downloads.map((e) => e.type === 'download' && e.fromStore))).toEqual(new Set([true]));
  const fromStore = downloads.filter((e) => e.type === 'download' && e.file === 'model.safetensors');
  expect(fromStore.at(-1)).toEqual({ type: 'download', file: 'model.safetensors', loaded: kWeightsSize, total: kWeightsSize, fromStore: true });
});

test('the load resolves before the store commits its files, and model.stored settles once they are stored', async () => {
  await serve();
  const cache = new MemoryCache();
  const release = cache.holdCommits();
  const loaded = await loadOnce(cache, { storeBehind: true });
  expectSameBytes(loaded.fake.session.weights, safetensorsDataSection(kWeights));
  let settled = false;
  void loaded.stored.then(() => { settled = true; });
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(settled).toBe(false);
  expect(entryOf(cache, 'model.safetensors')).toBeUndefined();

  release();
  await loaded.stored;
  for (const f of kCheckpointFiles) expect(entryOf(cache, f)?.body.byteLength).toBe(readFileSync(join(kTinyCheckpoint, f)).length);
  expect(loaded.warnings).toEqual([]);
});

test('a load started while an earlier one is still committing waits for that commit and reads the store', async () => {
  await serve();
  const cache = new MemoryCache();
  const release = cache.holdCommits();
  const first = await loadOnce(cache, { storeBehind: true });
  const before = server.requests.length;
  const second = loadOnce(cache);
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(server.requests.length).toBe(before);
  release();
  const again = await second;
  expect(server.requests.slice(before).sort()).toEqual(kCheckpointFiles.map((f) => `GET ${kPrefix}${f} if-none-match=${kEtags[f]}`).sort());
  expectSameBytes(again.fake.session.weights, safetensorsDataSection(kWeights));
  await first.stored;
});

test('a store that fails its commit behind the load leaves no entry, and says why through onWarning', async () => {
  await serve();
  const cache = new MemoryCache();
  cache.commitGate = Promise.reject(Object.assign(new Error('the quota has been exceeded'), { name: 'QuotaExceededError' }));
  const loaded = await loadOnce(cache, { estimate: async () => ({ usage: 0, quota: 1e9 }) });
  expectSameBytes(loaded.fake.session.weights, safetensorsDataSection(kWeights));
  expect(entryOf(cache, 'model.safetensors')).toBeUndefined();
  expect(loaded.warnings.find((w) => w.includes('model.safetensors'))).toMatch(
    /^laya-wasm: model\.safetensors \(\d+ bytes\) is loaded from the network without being stored: storing it failed \(QuotaExceededError: the quota has been exceeded\)/);
});

test('a body that ends early is a network error and is not stored', async () => {
  await serve({ noContentLength: ['model.safetensors'], endAfter: { 'model.safetensors': 400000 } });
  const cache = new MemoryCache();
  const error = await loadOnce(cache).catch((e: unknown) => e);
  expect(error).toMatchObject({ code: 'network' });
  expect(entryOf(cache, 'model.safetensors')).toBeUndefined();
});

test('a connection cut mid-body leaves no entry for that file', async () => {
  await serve({ cutAfter: { 'model.safetensors': 300000 }, ranges: false });
  const cache = new MemoryCache();
  await expect(loadOnce(cache)).rejects.toMatchObject({ code: 'network' });
  expect(entryOf(cache, 'model.safetensors')).toBeUndefined();
});

test.each(['blob', 'body'] as const)('a torn entry (fewer bytes than its record) is downloaded again, never loaded truncated (read as a %s)', async (read) => {
  await serve();
  const cache = new MemoryCache();
  await loadOnce(cache, { read });
  const entry = entryOf(cache, 'model.safetensors');
  if (entry === undefined) throw new Error('not stored');
  entry.body = entry.body.subarray(0, 1000);
  const before = server.requests.length;
  const again = await loadOnce(cache, { read });
  expect(server.requests.slice(before)).toContain(`GET ${kPrefix}model.safetensors`);
  expectSameBytes(again.fake.session.weights, safetensorsDataSection(kWeights));
  expect(entryOf(cache, 'model.safetensors')?.body.byteLength).toBe(kWeightsSize);
});

test('a file that changed on the server (new ETag) replaces the stored one', async () => {
  await serve();
  const cache = new MemoryCache();
  await loadOnce(cache);
  await server.close();
  await serve({ etag: { ...kEtags, 'model.safetensors': '"v2"' } });
  const first = new Map(cache.entries);
  // The old entries are keyed by the old server's origin; copy them to the new one.
  cache.entries.clear();
  for (const [url, entry] of first) cache.entries.set(url.replace(/^http:\/\/[^/]+/, server.origin), entry);
  const again = await loadOnce(cache);
  expect(server.requests).toContain(`GET ${kPrefix}model.safetensors if-none-match=${kEtags['model.safetensors']}`);
  expect(entryOf(cache, 'model.safetensors')?.headers.get('x-laya-etag')).toBe('"v2"');
  expectSameBytes(again.fake.session.weights, safetensorsDataSection(kWeights));
});

test('a quota too small loads from the network unstored, naming the bytes needed and available', async () => {
  await serve();
  const cache = new MemoryCache();
  const loaded = await loadOnce(cache, { estimate: async () => ({ usage: 1000, quota: 5000 }) });
  expectSameBytes(loaded.fake.session.weights, safetensorsDataSection(kWeights));
  expect(entryOf(cache, 'model.safetensors')).toBeUndefined();
  // One warning per file, saying why: nothing more when the writer that was opening turns out not to store.
  expect(loaded.warnings.filter((w) => w.includes('model.safetensors'))).toEqual([
    `laya-wasm: model.safetensors (${kWeightsSize} bytes) is loaded from the network without being stored: the browser gives this site 4000 bytes of storage`]);
});

test('a QuotaExceededError while storing stops the storing, not the load, and leaves no entry', async () => {
  await serve({ chunkBytes: 65536 });
  const cache = new MemoryCache();
  cache.failAfter = { bytes: 200000, error: Object.assign(new Error('the quota has been exceeded'), { name: 'QuotaExceededError' }) };
  const loaded = await loadOnce(cache, { estimate: async () => ({ usage: 0, quota: 1e9 }) });
  expectSameBytes(loaded.fake.session.weights, safetensorsDataSection(kWeights));
  expect(entryOf(cache, 'model.safetensors')).toBeUndefined();
  const warning = loaded.warnings.find((w) => w.includes('model.safetensors')) ?? '';
  expect(warning).toMatch(new RegExp(`^laya-wasm: model\\.safetensors \\(${kWeightsSize} bytes\\) is loaded from the network without being stored: ` +
    'storing it failed \\(QuotaExceededError: the quota has been exceeded\\); 1000000000 bytes of storage are available$'));
});

test.each(['blob', 'body'] as const)('an abort during the download or during a load from the store frees everything and leaves no half entry (read as a %s)', async (read) => {
  await serve({ chunkBytes: 65536, chunkDelayMs: 5 });
  const cache = new MemoryCache();
  const controller = new AbortController();
  const fake = new FakeCore();
  const aborted = loadOnceWith(cache, fake, controller.signal, () => controller.abort(), read);
  await expect(aborted).rejects.toMatchObject({ name: 'AbortError' });
  expect(fake.live).toBe(0);
  expect(entryOf(cache, 'model.safetensors')).toBeUndefined();

  await loadOnce(cache, { read });
  const stored = new AbortController();
  const second = new FakeCore();
  await expect(loadOnceWith(cache, second, stored.signal, () => stored.abort(), read)).rejects.toMatchObject({ name: 'AbortError' });
  expect(second.live).toBe(0);
  expect(entryOf(cache, 'model.safetensors')?.body.byteLength).toBe(kWeightsSize);
});

/** A load that calls `abortNow` once the weights' first bytes are in. */
async function loadOnceWith(cache: MemoryCache, fake: FakeCore, signal: AbortSignal, abortNow: () => void, read: CacheApiRead): Promise<void> {
  const runtime: Runtime = {
    locate: async (source, resolved) => new StoredLocation(
      new HttpLocation(hubFileUrls(source as { repo: string; hubUrl: string }), resolved.fetch), new CacheApiStore(cache, read),
      { onWarning: resolved.onWarning }),
    createCore: async () => ({ core: await fake.factory() }),
    cores: () => 1,
  };
  let called = false;
  const model = await loadModelWith(runtime, { repo: 'org/tiny', hubUrl: server.origin }, {
    signal, onWarning: () => undefined,
    onProgress: (e) => {
      if (!called && e.type === 'download' && e.file === 'model.safetensors' && e.loaded > 0) {
        called = true;
        abortNow();
      }
    },
  });
  model.dispose();
}
