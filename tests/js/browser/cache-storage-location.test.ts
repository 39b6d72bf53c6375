// The browser cache location (Cache API) with an in-memory CacheLike: a miss downloads straight
// into the cache and reads back from it; a hit makes no request; a truncated body is not stored.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CacheStorageLocation, type CacheLike } from '../../../web/src/browser/cache-storage-location.js';
import { loadModelWith } from '../../../web/src/load.js';
import type { LoadProgressEvent } from '../../../web/src/options.js';
import type { Runtime } from '../../../web/src/runtime.js';
import { kCheckpointFiles } from '../../../web/src/sources/checkpoint-source.js';
import { hubFileUrls } from '../../../web/src/sources/file-urls.js';
import { HttpLocation } from '../../../web/src/sources/http-location.js';
import { FakeCore } from '../helpers/fake-core.js';
import { startCheckpointServer, type CheckpointServer } from '../helpers/checkpoint-server.js';
import { expectSameBytes, kTinyCheckpoint, safetensorsDataSection } from '../helpers/fixtures.js';

/** Stores bodies as bytes, as a browser stores them on disk. */
class MemoryCache implements CacheLike {
  readonly entries = new Map<string, { body: Uint8Array; headers: Headers }>();
  async match(url: string): Promise<Response | undefined> {
    const entry = this.entries.get(url);
    return entry && new Response(entry.body as BodyInit, { headers: entry.headers });
  }
  async put(url: string, response: Response): Promise<void> {
    const body = new Uint8Array(await response.arrayBuffer());
    this.entries.set(url, { body, headers: response.headers });
  }
  async delete(url: string): Promise<boolean> {
    return this.entries.delete(url);
  }
}

const kPrefix = '/org/tiny/resolve/main/';
let server: CheckpointServer;
afterEach(async () => server?.close());

function cachedRuntime(cache: CacheLike): Runtime {
  return {
    locate: async (source, options) => new CacheStorageLocation(
      new HttpLocation(hubFileUrls(source as { repo: string; hubUrl: string }), options.fetch), cache),
    createCore: async () => { throw new Error('unused'); },
    cores: () => 1,
  };
}

test('a miss stores each file in the cache and a hit loads with no request', async () => {
  server = await startCheckpointServer({ [kPrefix]: kTinyCheckpoint }, { chunkBytes: 100000 });
  const cache = new MemoryCache();
  const source = { repo: 'org/tiny', hubUrl: server.origin };
  const runtime = cachedRuntime(cache);
  const events: LoadProgressEvent[] = [];
  const first = new FakeCore();
  (await loadModelWith({ ...runtime, createCore: async () => ({ core: await first.factory() }) }, source, { onProgress: (e) => events.push(e) })).dispose();
  expect(server.requests).toHaveLength(kCheckpointFiles.length);
  for (const f of kCheckpointFiles) {
    const entry = cache.entries.get(`${server.origin}${kPrefix}${f}`);
    expect(entry && Buffer.from(entry.body).equals(readFileSync(join(kTinyCheckpoint, f)))).toBe(true);
  }
  expectSameBytes(first.session.weights, safetensorsDataSection(join(kTinyCheckpoint, 'model.safetensors')));
  const size = readFileSync(join(kTinyCheckpoint, 'model.safetensors')).length;
  const weightEvents = events.filter((e) => e.type === 'download' && e.file === 'model.safetensors');
  expect(weightEvents.length).toBeGreaterThan(3);
  expect(weightEvents.at(-1)).toEqual({ type: 'download', file: 'model.safetensors', loaded: size, total: size });

  const second = new FakeCore();
  (await loadModelWith({ ...runtime, createCore: async () => ({ core: await second.factory() }) }, source)).dispose();
  expect(server.requests).toHaveLength(kCheckpointFiles.length);
  expectSameBytes(second.session.weights, safetensorsDataSection(join(kTinyCheckpoint, 'model.safetensors')));
});

test('a body that ends early is a network error and is not stored', async () => {
  server = await startCheckpointServer({ [kPrefix]: kTinyCheckpoint },
    { noContentLength: ['model.safetensors'], endAfter: { 'model.safetensors': 400000 } });
  const cache = new MemoryCache();
  const fake = new FakeCore();
  const error = await loadModelWith({ ...cachedRuntime(cache), createCore: async () => ({ core: await fake.factory() }) },
    { repo: 'org/tiny', hubUrl: server.origin }).catch((e: unknown) => e);
  expect(error).toMatchObject({ code: 'network' });
  expect((error as Error).message).toContain('model.safetensors');
  expect(cache.entries.has(`${server.origin}${kPrefix}model.safetensors`)).toBe(false);
  expect(fake.live).toBe(0);
});
