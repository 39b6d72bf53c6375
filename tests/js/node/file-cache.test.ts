// The Node download cache: the first load stores every file while streaming it, the second makes
// no request at all; a download that fails leaves nothing half-written behind.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadModelWith } from '../../../web/src/load.js';
import { cacheFolderName } from '../../../web/src/node/file-cache.js';
import { nodeRuntime } from '../../../web/src/node/node-runtime.js';
import { kCheckpointFiles } from '../../../web/src/sources/checkpoint-source.js';
import { FakeCore } from '../helpers/fake-core.js';
import { startCheckpointServer, type CheckpointServer } from '../helpers/checkpoint-server.js';
import { expectSameBytes, kTinyCheckpoint, safetensorsDataSection } from '../helpers/fixtures.js';

const kPrefix = '/org/tiny/resolve/main/';
let server: CheckpointServer;
let cache: string;

beforeEach(() => {
  cache = mkdtempSync(join(tmpdir(), 'laya-cache-test-'));
});
afterEach(async () => {
  await server?.close();
  rmSync(cache, { recursive: true, force: true });
});

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile()).map((e) => join(e.parentPath ?? (e as unknown as { path: string }).path, e.name).slice(dir.length + 1)).sort();
}

test('a second load reads every file from the cache directory without any request', async () => {
  server = await startCheckpointServer({ [kPrefix]: kTinyCheckpoint });
  const source = { repo: 'org/tiny', hubUrl: server.origin };
  const first = new FakeCore();
  (await loadModelWith(nodeRuntime, source, { cache, wasm: { factory: first.factory } })).dispose();
  expect(server.requests).toHaveLength(kCheckpointFiles.length);

  const folder = cacheFolderName(`${server.origin}${kPrefix}`);
  expect(filesUnder(cache)).toEqual(kCheckpointFiles.map((f) => join(folder, f)).sort());
  for (const f of kCheckpointFiles) {
    expect(readFileSync(join(cache, folder, f)).equals(readFileSync(join(kTinyCheckpoint, f)))).toBe(true);
  }

  const second = new FakeCore();
  (await loadModelWith(nodeRuntime, source, { cache, wasm: { factory: second.factory } })).dispose();
  expect(server.requests).toHaveLength(kCheckpointFiles.length);
  expectSameBytes(second.session.weights, safetensorsDataSection(join(kTinyCheckpoint, 'model.safetensors')));
});

test('a download cut short is not stored; the next load fetches only that file again', async () => {
  const behaviour = { cutAfter: { 'model.safetensors': 200000 } as Record<string, number> };
  server = await startCheckpointServer({ [kPrefix]: kTinyCheckpoint }, behaviour);
  const source = { repo: 'org/tiny', hubUrl: server.origin };
  await expect(loadModelWith(nodeRuntime, source, { cache, wasm: { factory: new FakeCore().factory } }))
    .rejects.toMatchObject({ code: 'network' });
  const stored = filesUnder(cache);
  expect(stored.some((f) => f.includes('model.safetensors'))).toBe(false);
  expect(stored.filter((f) => f.includes('partial'))).toEqual([]);
  expect(stored).toHaveLength(kCheckpointFiles.length - 1);

  behaviour.cutAfter = {};
  const before = server.requests.length;
  const fake = new FakeCore();
  (await loadModelWith(nodeRuntime, source, { cache, wasm: { factory: fake.factory } })).dispose();
  expect(server.requests.slice(before)).toEqual([`GET ${kPrefix}model.safetensors`]);
  expectSameBytes(fake.session.weights, safetensorsDataSection(join(kTinyCheckpoint, 'model.safetensors')));
});

test('cache folder names are readable, distinct per source URL and safe as paths', () => {
  const a = cacheFolderName('https://huggingface.co/org/repo/resolve/main/');
  const b = cacheFolderName('https://huggingface.co/org/repo/resolve/v2/');
  expect(a).toMatch(/^huggingface\.co-org-repo-resolve-main-[0-9a-f]{12}$/);
  expect(a).not.toBe(b);
});
