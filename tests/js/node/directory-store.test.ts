// The Node download cache (a DirectoryStore under the shared StoredLocation): the first load stores
// every file (and its record) while streaming it, committed once model.stored settles; the second
// makes no request when the server gave no validator, and a conditional one (304) when it did; a
// torn file, a file without its record and a file changed on the server are downloaded again; a
// download that fails leaves nothing half-written behind; offline, the cache serves.
import { mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadModelWith } from '../../../web/src/load.js';
import { cacheFolderName } from '../../../web/src/node/cache-folder.js';
import { nodeRuntime } from '../../../web/src/node/node-runtime.js';
import type { LoadOptions } from '../../../web/src/options.js';
import type { Runtime } from '../../../web/src/runtime.js';
import { kCheckpointFiles, type CheckpointLocation } from '../../../web/src/sources/checkpoint-source.js';
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

/** One load with nodeRuntime, its model disposed; resolves once the cache holds what it downloaded (model.stored). */
async function loadAndStore(source: { repo: string; hubUrl: string }, options: LoadOptions): Promise<void> {
  const model = await loadModelWith(nodeRuntime, source, options);
  model.dispose();
  await model.stored;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile()).map((e) => join(e.parentPath ?? (e as unknown as { path: string }).path, e.name).slice(dir.length + 1)).sort();
}

test('a second load reads every file from the cache directory without any request', async () => {
  server = await startCheckpointServer({ [kPrefix]: kTinyCheckpoint });
  const source = { repo: 'org/tiny', hubUrl: server.origin };
  const first = new FakeCore();
  await loadAndStore(source, { cache, wasm: { factory: first.factory } });
  expect(server.requests).toHaveLength(kCheckpointFiles.length);

  const folder = cacheFolderName(`${server.origin}${kPrefix}`);
  expect(filesUnder(cache)).toEqual(kCheckpointFiles.flatMap((f) => [join(folder, f), join(folder, `${f}.laya.json`)]).sort());
  for (const f of kCheckpointFiles) {
    expect(readFileSync(join(cache, folder, f)).equals(readFileSync(join(kTinyCheckpoint, f)))).toBe(true);
  }

  const second = new FakeCore();
  await loadAndStore(source, { cache, wasm: { factory: second.factory } });
  expect(server.requests).toHaveLength(kCheckpointFiles.length);
  expectSameBytes(second.session.weights, safetensorsDataSection(join(kTinyCheckpoint, 'model.safetensors')));
});

test('a download cut short is not stored; the next load fetches only that file again', async () => {
  const behaviour = { cutAfter: { 'model.safetensors': 200000 } as Record<string, number> };
  server = await startCheckpointServer({ [kPrefix]: kTinyCheckpoint }, behaviour);
  const source = { repo: 'org/tiny', hubUrl: server.origin };
  // The location, to wait for the files it stored behind the failed load (no model to ask).
  let location: CheckpointLocation | undefined;
  const runtime: Runtime = { ...nodeRuntime, locate: async (...args) => (location = await nodeRuntime.locate(...args)) };
  await expect(loadModelWith(runtime, source, { cache, wasm: { factory: new FakeCore().factory } }))
    .rejects.toMatchObject({ code: 'network' });
  await location?.storing?.();
  const stored = filesUnder(cache);
  expect(stored.some((f) => f.includes('model.safetensors'))).toBe(false);
  expect(stored.filter((f) => f.includes('partial'))).toEqual([]);
  expect(stored).toHaveLength(2 * (kCheckpointFiles.length - 1));

  behaviour.cutAfter = {};
  const before = server.requests.length;
  const fake = new FakeCore();
  await loadAndStore(source, { cache, wasm: { factory: fake.factory } });
  expect(server.requests.slice(before)).toEqual([`GET ${kPrefix}model.safetensors`]);
  expectSameBytes(fake.session.weights, safetensorsDataSection(join(kTinyCheckpoint, 'model.safetensors')));
});

const kEtags = Object.fromEntries(kCheckpointFiles.map((f) => [f, `"v1-${f}"`]));
const kWeightsPath = (folder: string) => join(cache, folder, 'model.safetensors');

async function loadWith(source: { repo: string; hubUrl: string }, warnings: string[] = []): Promise<FakeCore> {
  const fake = new FakeCore();
  await loadAndStore(source, { cache, wasm: { factory: fake.factory }, onWarning: (w) => warnings.push(w) });
  return fake;
}

test('with an ETag, a second load asks the server (304) and reads every file from disk', async () => {
  server = await startCheckpointServer({ [kPrefix]: kTinyCheckpoint }, { etag: kEtags });
  const source = { repo: 'org/tiny', hubUrl: server.origin };
  await loadWith(source);
  const before = server.requests.length;
  const fake = await loadWith(source);
  // The five files are asked for at once: their order is the network's.
  expect(server.requests.slice(before).sort()).toEqual(kCheckpointFiles.map((f) => `GET ${kPrefix}${f} if-none-match=${kEtags[f]}`).sort());
  expectSameBytes(fake.session.weights, safetensorsDataSection(join(kTinyCheckpoint, 'model.safetensors')));
});

test('a file changed on the server (new ETag) is downloaded again and replaces the cached one', async () => {
  const behaviour = { etag: { ...kEtags } };
  server = await startCheckpointServer({ [kPrefix]: kTinyCheckpoint }, behaviour);
  const source = { repo: 'org/tiny', hubUrl: server.origin };
  await loadWith(source);
  behaviour.etag['model.safetensors'] = '"v2"';
  const before = server.requests.length;
  const fake = await loadWith(source);
  expect(server.requests.slice(before)).toContain(`GET ${kPrefix}model.safetensors if-none-match=${kEtags['model.safetensors']}`);
  const folder = cacheFolderName(`${server.origin}${kPrefix}`);
  expect(JSON.parse(readFileSync(`${kWeightsPath(folder)}.laya.json`, 'utf8'))).toMatchObject({ etag: '"v2"' });
  expectSameBytes(fake.session.weights, safetensorsDataSection(join(kTinyCheckpoint, 'model.safetensors')));
});

test('a cached file shorter than its record (torn) is downloaded again, never loaded truncated', async () => {
  server = await startCheckpointServer({ [kPrefix]: kTinyCheckpoint });
  const source = { repo: 'org/tiny', hubUrl: server.origin };
  await loadWith(source);
  const folder = cacheFolderName(`${server.origin}${kPrefix}`);
  truncateSync(kWeightsPath(folder), 1000);
  const before = server.requests.length;
  const fake = await loadWith(source);
  expect(server.requests.slice(before)).toEqual([`GET ${kPrefix}model.safetensors`]);
  expectSameBytes(fake.session.weights, safetensorsDataSection(join(kTinyCheckpoint, 'model.safetensors')));
  expect(readFileSync(kWeightsPath(folder)).equals(readFileSync(join(kTinyCheckpoint, 'model.safetensors')))).toBe(true);
});

test('a cached file without its record (a crash before it was written) is downloaded again', async () => {
  server = await startCheckpointServer({ [kPrefix]: kTinyCheckpoint });
  const source = { repo: 'org/tiny', hubUrl: server.origin };
  await loadWith(source);
  const folder = cacheFolderName(`${server.origin}${kPrefix}`);
  rmSync(`${kWeightsPath(folder)}.laya.json`);
  const before = server.requests.length;
  await loadWith(source);
  expect(server.requests.slice(before)).toEqual([`GET ${kPrefix}model.safetensors`]);
});

test('offline, a cached file with a validator is read from disk and a warning says the server was not asked', async () => {
  server = await startCheckpointServer({ [kPrefix]: kTinyCheckpoint }, { etag: kEtags });
  const source = { repo: 'org/tiny', hubUrl: server.origin };
  await loadWith(source);
  await server.close();
  const warnings: string[] = [];
  const fake = await loadWith(source, warnings);
  expectSameBytes(fake.session.weights, safetensorsDataSection(join(kTinyCheckpoint, 'model.safetensors')));
  expect(warnings).toHaveLength(kCheckpointFiles.length);
  // The files are asked for at once: their warnings come in the network's order.
  expect(warnings.find((w) => w.startsWith('laya-wasm: rl_agent_config.json:'))).toMatch(/^laya-wasm: rl_agent_config\.json: could not ask http:\/\/127\.0\.0\.1:\d+\/org\/tiny\/resolve\/main\/rl_agent_config\.json whether it changed \(.+\); using the stored copy$/);
});

test('cache folder names are readable, distinct per source URL and safe as paths', () => {
  const a = cacheFolderName('https://huggingface.co/org/repo/resolve/main/');
  const b = cacheFolderName('https://huggingface.co/org/repo/resolve/v2/');
  expect(a).toMatch(/^huggingface\.co-org-repo-resolve-main-[0-9a-f]{12}$/);
  expect(a).not.toBe(b);
});

test('a file the server sends without a size is stored all the same, and the next load reads it from disk', async () => {
  server = await startCheckpointServer({ [kPrefix]: kTinyCheckpoint }, { noContentLength: ['tokenizer/tokenizer.json'] });
  const source = { repo: 'org/tiny', hubUrl: server.origin };
  const warnings: string[] = [];
  await loadWith(source, warnings);
  expect(warnings).toEqual([]);
  const folder = cacheFolderName(`${server.origin}${kPrefix}`);
  const tokenizer = join(cache, folder, 'tokenizer', 'tokenizer.json');
  const served = readFileSync(join(kTinyCheckpoint, 'tokenizer', 'tokenizer.json'));
  expect(readFileSync(tokenizer).equals(served)).toBe(true);
  expect(JSON.parse(readFileSync(`${tokenizer}.laya.json`, 'utf8'))).toEqual({ size: served.length });
  const before = server.requests.length;
  await loadWith(source);
  expect(server.requests.slice(before)).toEqual([]);
});

test('a cache directory that cannot be written is a warning per file: the load goes on from the network', async () => {
  server = await startCheckpointServer({ [kPrefix]: kTinyCheckpoint });
  // A regular file where the cache directory should be: creating the folder fails, as a full or read-only disk would.
  const blocked = join(cache, 'not-a-directory');
  writeFileSync(blocked, '');
  const warnings: string[] = [];
  const fake = new FakeCore();
  await loadAndStore({ repo: 'org/tiny', hubUrl: server.origin }, { cache: blocked, wasm: { factory: fake.factory }, onWarning: (w) => warnings.push(w) });
  expectSameBytes(fake.session.weights, safetensorsDataSection(join(kTinyCheckpoint, 'model.safetensors')));
  expect(warnings).toHaveLength(kCheckpointFiles.length);
  expect(warnings.find((w) => w.startsWith('laya-wasm: model.safetensors'))).toMatch(
    /^laya-wasm: model\.safetensors \(\d+ bytes\) is loaded from the network without being stored: the file system refused storage \(.*(ENOTDIR|EEXIST).*\)$/);
  expect(filesUnder(cache)).toEqual(['not-a-directory']);
});
