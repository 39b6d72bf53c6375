// Downloads that drop mid-body, through load() (fake wasm module): resumed with Range / If-Range
// (the weights, into the Node cache too, and a small file of known size), every byte lands where
// planWeights put it and progress stays monotonic; a server that ignores
// Range, a file that changed between attempts, or too many drops fail with a network error naming
// the file and the byte offset, never a spliced file; an abort during the wait before a resume
// rejects with AbortError and frees the session. resumableBody() alone for the answers a test
// server does not give (a wrong Content-Range, a compressed 206, a weak ETag).
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LayaError } from '../../../web/src/errors.js';
import { loadModelWith } from '../../../web/src/load.js';
import { nodeRuntime } from '../../../web/src/node/node-runtime.js';
import type { LoadOptions, LoadProgressEvent } from '../../../web/src/options.js';
import { baseFileUrls } from '../../../web/src/sources/file-urls.js';
import { HttpLocation } from '../../../web/src/sources/http-location.js';
import { resumableBody } from '../../../web/src/sources/resumable-body.js';
import type { ForwardRequest, ForwardResult } from '../../../web/src/request.js';
import type { Runtime } from '../../../web/src/runtime.js';
import { FakeCore } from '../helpers/fake-core.js';
import { startFlakyServer, type FlakyBehaviour, type FlakyServer } from '../helpers/flaky-server.js';
import { expectSameBytes, kFixturesDir, kTinyCheckpoint, safetensorsDataSection } from '../helpers/fixtures.js';
import { describeWithCore, kWasm } from '../helpers/real-core.js';

const kPrefix = '/org/tiny/resolve/main/';
const kWeights = join(kTinyCheckpoint, 'model.safetensors');
const kSize = statSync(kWeights).size;
const kWeightsPath = `${kPrefix}model.safetensors`;

let server: FlakyServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

async function serve(behaviour: FlakyBehaviour): Promise<FlakyServer> {
  server = await startFlakyServer(kPrefix, kTinyCheckpoint, behaviour);
  return server;
}

async function load(origin: string, fake: FakeCore, options: LoadOptions = {}, runtime: Runtime = nodeRuntime): Promise<unknown> {
  return loadModelWith(runtime, { repo: 'org/tiny', hubUrl: origin }, { ...options, wasm: { factory: fake.factory } })
    // model.stored: the Node download cache commits behind the load.
    .then(async (model) => { model.dispose(); await model.stored; return null; }, (error: unknown) => error);
}

/** The requests for the weights file only. */
const weightRequests = (s: FlakyServer): string[] => s.requests.filter((r) => r.includes(kWeightsPath));

describe('a dropped download of the weights', () => {
  test('resumes once with Range and If-Range: every byte lands where planWeights put it', async () => {
    const s = await serve({ cuts: [300000] });
    const fake = new FakeCore();
    expect(await load(s.origin, fake)).toBeNull();
    expectSameBytes(fake.session.weights, safetensorsDataSection(kWeights));
    expect(weightRequests(s)).toEqual([`GET ${kWeightsPath}`, `GET ${kWeightsPath} range=bytes=300000- if-range="v1"`]);
    expect(fake.live).toBe(0);
  });

  test('resumes twice, and progress stays monotonic and counts every byte once', async () => {
    const s = await serve({ cuts: [200000, 700000], chunkBytes: 50000 });
    const fake = new FakeCore();
    const events: LoadProgressEvent[] = [];
    expect(await load(s.origin, fake, { onProgress: (e) => events.push(e) })).toBeNull();
    expectSameBytes(fake.session.weights, safetensorsDataSection(kWeights));
    expect(weightRequests(s).slice(1)).toEqual([
      `GET ${kWeightsPath} range=bytes=200000- if-range="v1"`, `GET ${kWeightsPath} range=bytes=700000- if-range="v1"`]);
    const weights = events.filter((e): e is Extract<LoadProgressEvent, { type: 'download' }> =>
      e.type === 'download' && e.file === 'model.safetensors');
    const totals = events.filter((e): e is Extract<LoadProgressEvent, { type: 'total' }> => e.type === 'total');
    for (const series of [weights, totals]) {
      for (let i = 1; i < series.length; i++) expect(series[i]?.loaded).toBeGreaterThanOrEqual(series[i - 1]?.loaded ?? 0);
      expect(series.every((e) => e.loaded <= e.total)).toBe(true);
    }
    expect(new Set(weights.map((e) => e.total))).toEqual(new Set([kSize]));
    expect(weights.at(-1)?.loaded).toBe(kSize);
    expect(weights.some((e) => e.loaded === 200000)).toBe(true);  // the bytes before the first drop were reported
    expect(events.at(-1)).toEqual({ type: 'ready' });
  });

  test('with only a Last-Modified date, If-Range carries the date', async () => {
    const s = await serve({ cuts: [300000], etag: false, lastModified: true });
    const fake = new FakeCore();
    expect(await load(s.origin, fake)).toBeNull();
    expectSameBytes(fake.session.weights, safetensorsDataSection(kWeights));
    expect(weightRequests(s)[1]).toBe(`GET ${kWeightsPath} range=bytes=300000- if-range=Tue, 02 Jan 2024 03:04:05 GMT`);
  });

  test('resumes into the Node download cache, which then holds the file byte for byte', async () => {
    const s = await serve({ cuts: [300000] });
    const cache = mkdtempSync(join(tmpdir(), 'laya-resume-cache-'));
    try {
      const fake = new FakeCore();
      expect(await load(s.origin, fake, { cache })).toBeNull();
      expectSameBytes(fake.session.weights, safetensorsDataSection(kWeights));
      const [folder] = readdirSync(cache);
      expect(readFileSync(join(cache, folder ?? '', 'model.safetensors')).equals(readFileSync(kWeights))).toBe(true);
      expect(weightRequests(s)).toHaveLength(2);
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });

  test('a small file of known size resumes the same way', async () => {
    const s = await serve({ file: 'tokenizer/tokenizer.json', cuts: [4000], chunkBytes: 1000 });
    const fake = new FakeCore();
    expect(await load(s.origin, fake)).toBeNull();
    expect(fake.session.configured?.tokenizerJson).toBe(readFileSync(join(kTinyCheckpoint, 'tokenizer/tokenizer.json'), 'utf8'));
    expect(s.requests.filter((r) => r.includes('tokenizer.json'))).toEqual([
      `GET ${kPrefix}tokenizer/tokenizer.json`, `GET ${kPrefix}tokenizer/tokenizer.json range=bytes=4000- if-range="v1"`]);
  });

  test('a 503 to the first resume request is tried again after a wait', async () => {
    const s = await serve({ cuts: [300000], failRanges: 1 });
    const fake = new FakeCore();
    expect(await load(s.origin, fake)).toBeNull();
    expectSameBytes(fake.session.weights, safetensorsDataSection(kWeights));
    expect(weightRequests(s)).toHaveLength(3);
  });
});

describe('a dropped download that cannot be resumed', () => {
  async function failure(behaviour: FlakyBehaviour, options: LoadOptions = {}): Promise<{ error: LayaError; fake: FakeCore; s: FlakyServer }> {
    const s = await serve(behaviour);
    const fake = new FakeCore();
    const error = await load(s.origin, fake, options);
    expect(error).toBeInstanceOf(LayaError);
    // Never a half-loaded or spliced model: the weights were never bound, and the session is gone.
    expect(fake.session.calls).not.toContain('finishWeights');
    expect(fake.live).toBe(0);
    return { error: error as LayaError, fake, s };
  }

  test('a server that ignores Range is a network error naming the file, the offset and why', async () => {
    const { error } = await failure({ cuts: [300000], ranges: 'ignore' });
    expect({ code: error.code, file: error.file, status: error.status }).toEqual({ code: 'network', file: 'model.safetensors', status: 200 });
    expect(error.message).toMatch(/^model\.safetensors: reading http:\/\/127\.0\.0\.1:\d+\/org\/tiny\/resolve\/main\/model\.safetensors failed after 300000 of \d+ bytes: .*; could not resume the download at byte 300000: the server sent the whole file \(HTTP 200 OK\)/);
  });

  test.each([
    ['answers the whole new file (200)', 'full', 'the server sent the whole file (HTTP 200 OK)'],
    ['answers 412 Precondition Failed', '412', 'the file changed since the download began (HTTP 412 Precondition Failed)'],
    ['ignores If-Range and sends a 206 of the new file', 'ignore-if-range', 'the file changed since the download began (ETag "v1" became "v2")'],
  ] as const)('a file that changed after the drop is refused when the server %s', async (_what, mode, reason) => {
    const { error, s } = await failure({ cuts: [300000], changeAfterCut: mode });
    expect(error.code).toBe('network');
    expect(error.message).toContain(`could not resume the download at byte 300000: ${reason}`);
    expect(weightRequests(s)).toEqual([`GET ${kWeightsPath}`, `GET ${kWeightsPath} range=bytes=300000- if-range="v1"`]);
  });

  test('a connection that keeps dropping fails once `retries` resumes are used', async () => {
    const { error, s } = await failure({ cuts: [100000, 150000, 200000, 250000] }, { retries: 2 });
    expect(error.code).toBe('network');
    expect(error.message).toMatch(/failed after 200000 of \d+ bytes: .*; could not resume the download at byte 200000: the 2 resume attempts allowed \(options\.retries\) are used up$/);
    expect(weightRequests(s)).toEqual([`GET ${kWeightsPath}`,
      `GET ${kWeightsPath} range=bytes=100000- if-range="v1"`, `GET ${kWeightsPath} range=bytes=150000- if-range="v1"`]);
  });

  test('resume requests that keep failing give up after `retries` attempts, naming the last failure', async () => {
    const { error, s } = await failure({ cuts: [300000], failRanges: 5 }, { retries: 2 });
    expect(error.message).toMatch(/could not resume the download at byte 300000: the 2 resume attempts allowed \(options\.retries\) are used up; the last failed: HTTP 503 Service Unavailable to the Range request$/);
    expect(weightRequests(s)).toHaveLength(3);
  });

  test('retries: 0 turns resuming off', async () => {
    const { error, s } = await failure({ cuts: [300000] }, { retries: 0 });
    expect(error.code).toBe('network');
    expect(error.message).toMatch(/^model\.safetensors: reading .* failed after 300000 of \d+ bytes/);
    expect(weightRequests(s)).toEqual([`GET ${kWeightsPath}`]);
  });

  test('an abort during the wait before a resume rejects with AbortError at once and frees the session', async () => {
    const s = await serve({ cuts: [300000] });
    const fake = new FakeCore();
    const controller = new AbortController();
    const waits: number[] = [];
    // A long wait, so the abort surely lands inside it; the abort comes 50 ms into the wait.
    const runtime: Runtime = {
      ...nodeRuntime,
      locate: async (_source, options) => new HttpLocation(baseFileUrls({ url: `${s.origin}${kPrefix}` }), options.fetch, {
        retries: 3,
        backoffMs: (attempt) => {
          waits.push(attempt);
          setTimeout(() => controller.abort(), 50);
          return 60_000;
        },
      }),
    };
    const started = Date.now();
    const error = await load(s.origin, fake, { signal: controller.signal }, runtime);
    expect((error as Error).name).toBe('AbortError');
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(waits).toEqual([1]);
    expect(weightRequests(s)).toEqual([`GET ${kWeightsPath}`]);  // no resume request was sent
    expect(fake.session.calls).not.toContain('finishWeights');
    expect(fake.live).toBe(0);
  });

  test('options.retries must be a non-negative integer', async () => {
    for (const retries of [-1, 1.5, Number.NaN]) {
      const error = await load('http://127.0.0.1:9', new FakeCore(), { retries });
      expect(error).toMatchObject({ code: 'invalid_request', message: `load: options.retries must be a non-negative integer, got ${String(retries)}` });
    }
  });
});

describe('resumableBody on answers a test server does not give', () => {
  const file = 'model.safetensors';
  const url = 'http://x/model.safetensors';
  const bytes = Uint8Array.from({ length: 100 }, (_, i) => i);

  /** A first answer whose body errors after `n` bytes. */
  function dropping(n: number, headers: Record<string, string> = {}): Response {
    let pulls = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (pulls++ === 0) controller.enqueue(bytes.slice(0, n));
        else controller.error(new TypeError('terminated'));
      },
    }, { highWaterMark: 0 });
    return new Response(body, { status: 200, headers: { 'content-length': '100', ...headers } });
  }

  async function readAll(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
    const out: number[] = [];
    const reader = stream.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return Uint8Array.from(out);
      out.push(...value);
    }
  }

  function body(first: Response, answer: (headers: Record<string, string>) => Response, sent: Array<Record<string, string>> = []): ReadableStream<Uint8Array> {
    return resumableBody({
      file, url, size: 100, first, policy: { retries: 3, backoffMs: () => 1 },
      request: async (headers) => { sent.push(headers); return answer(headers); },
    }).body;
  }

  const partial = (from: number, contentRange: string, headers: Record<string, string> = {}): Response =>
    new Response(bytes.slice(from), { status: 206, headers: { 'content-range': contentRange, ...headers } });

  test('a good 206 continues the file byte for byte; a weak ETag is not sent as If-Range but must not change', async () => {
    const sent: Array<Record<string, string>> = [];
    const got = await readAll(body(dropping(40, { etag: 'W/"a"' }), () => partial(40, 'bytes 40-99/100', { etag: 'W/"a"' }), sent));
    expect(Array.from(got)).toEqual(Array.from(bytes));
    expect(sent).toEqual([{ Range: 'bytes=40-' }]);
    await expect(readAll(body(dropping(40, { etag: 'W/"a"' }), () => partial(40, 'bytes 40-99/100', { etag: 'W/"b"' }))))
      .rejects.toThrow('could not resume the download at byte 40: the file changed since the download began (ETag W/"a" became W/"b")');
  });

  test.each([
    ['starts elsewhere', 'bytes 0-99/100', 'the 206 answer\'s Content-Range is "bytes 0-99/100", expected bytes 40-99/100'],
    ['has another total', 'bytes 40-199/200', 'the 206 answer\'s Content-Range is "bytes 40-199/200", expected bytes 40-99/100'],
    ['has an unknown total', 'bytes 40-99/*', 'the 206 answer\'s Content-Range is "bytes 40-99/*", expected bytes 40-99/100'],
  ])('a 206 whose Content-Range %s is refused', async (_what, contentRange, reason) => {
    const error = await readAll(body(dropping(40), () => partial(40, contentRange))).then(() => null, (e: unknown) => e);
    expect(error).toMatchObject({ code: 'network', file, url, status: 206 });
    expect((error as Error).message).toBe(`${file}: reading ${url} failed after 40 of 100 bytes: terminated; could not resume the download at byte 40: ${reason}`);
  });

  test('a compressed 206 is refused', async () => {
    await expect(readAll(body(dropping(40), () => partial(40, 'bytes 40-99/100', { 'content-encoding': 'gzip' }))))
      .rejects.toThrow('the 206 answer is content-encoded (gzip)');
  });

  test('cancelling the stream while it waits to resume ends the wait', async () => {
    let requested = 0;
    const stream = resumableBody({
      file, url, size: 100, first: dropping(40), policy: { retries: 3, backoffMs: () => 60_000 },
      request: async () => { requested++; return partial(40, 'bytes 40-99/100'); },
    }).body;
    const reader = stream.getReader();
    expect((await reader.read()).value?.byteLength).toBe(40);
    const pending = reader.read();
    await new Promise((r) => setTimeout(r, 20));
    const started = Date.now();
    await reader.cancel();
    await pending.catch(() => undefined);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(requested).toBe(0);
  });
});

describeWithCore('a resumed load in the real wasm module', () => {
  test('answers bit for bit like a clean load, after one drop and after two', async () => {
    const fixture = JSON.parse(readFileSync(join(kFixturesDir, 'reference', 'tiny-fanin', 'fixture.json'), 'utf8')) as ForwardRequest;
    const request: ForwardRequest = { inputs: fixture.inputs, embed_inputs: fixture.embed_inputs ?? [] };
    const quiet = { wasm: kWasm, onWarning: (): void => undefined };
    const clean = await loadModelWith(nodeRuntime, { directory: kTinyCheckpoint }, quiet);
    const expected = await clean.forward(request);
    clean.dispose();
    for (const cuts of [[300000], [150000, 900000]]) {
      const s = await serve({ cuts, chunkBytes: 20000 });
      const model = await loadModelWith(nodeRuntime, { repo: 'org/tiny', hubUrl: s.origin }, quiet);
      const got = await model.forward(request);
      model.dispose();
      await s.close();
      server = null;
      expect(weightRequests(s)).toHaveLength(1 + cuts.length);
      // Bit for bit: every float's bits, not a tolerance.
      const bits = (r: ForwardResult): string[] => [...r.expected.flatMap((e) => [...e.logits, ...e.act]),
        ...r.embed_expected.flatMap((e) => e.pooled)].map((x) => Buffer.from(new Float64Array([x]).buffer).toString('hex'));
      expect(bits(got)).toEqual(bits(expected));
      expect(bits(got).length).toBeGreaterThan(100);
    }
  });
});

// The fixture must be big enough for the cut offsets above to fall in its data section.
test('the cut offsets lie inside the tiny checkpoint\'s data section', () => {
  const dataStart = kSize - safetensorsDataSection(kWeights).byteLength;
  expect(dataStart).toBeLessThan(100000);
  expect(readFileSync(kWeights).byteLength).toBeGreaterThan(700000);
});
