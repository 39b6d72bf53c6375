// load() end to end over the sources, with the fake wasm module: every byte of the weights lands
// where planWeights said, progress is monotonic and complete, failures reject with the right code
// and free the session, abort rejects with AbortError.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { kLayaCoreAbi } from '../../web/src/core/laya-core.js';
import { LayaError } from '../../web/src/errors.js';
import { loadModelWith, loadPipelineWith } from '../../web/src/load.js';
import { nodeRuntime } from '../../web/src/node/node-runtime.js';
import type { LoadProgressEvent } from '../../web/src/options.js';
import { kCheckpointFiles } from '../../web/src/sources/checkpoint-source.js';
import { FakeCore } from './helpers/fake-core.js';
import { startCheckpointServer, type CheckpointServer, type ServerBehaviour } from './helpers/checkpoint-server.js';
import { expectSameBytes, kTinyCheckpoint, safetensorsDataSection } from './helpers/fixtures.js';

const kWeights = join(kTinyCheckpoint, 'model.safetensors');
const kRepoPrefix = '/org/tiny/resolve/main/';
const totalBytes = kCheckpointFiles.reduce((sum, f) => sum + statSync(join(kTinyCheckpoint, f)).size, 0);

let server: CheckpointServer | null = null;
async function serve(behaviour: ServerBehaviour = {}): Promise<CheckpointServer> {
  server = await startCheckpointServer({ [kRepoPrefix]: kTinyCheckpoint }, behaviour);
  return server;
}
afterEach(async () => {
  await server?.close();
  server = null;
});

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}

describe('load from a Hub-layout HTTP server', () => {
  test('every weight byte lands in wasm memory where planWeights put it', async () => {
    const { origin } = await serve({ chunkBytes: 10000 });
    const fake = new FakeCore();
    const model = await loadModelWith(nodeRuntime, { repo: 'org/tiny', hubUrl: origin }, { wasm: { factory: fake.factory } });
    expectSameBytes(fake.session.weights, safetensorsDataSection(kWeights));
    expect(fake.session.configured?.rlAgentConfig).toBe(readFileSync(join(kTinyCheckpoint, 'rl_agent_config.json'), 'utf8'));
    expect(fake.session.configured?.tokenizerJson).toBe(readFileSync(join(kTinyCheckpoint, 'tokenizer/tokenizer.json'), 'utf8'));
    expect(model.config).toMatchObject({ hiddenSize: 64, encoderLayers: 4, vocabSize: 512, headLayers: 2, actOutputs: 2,
      weightsFileBytes: statSync(kWeights).size });
    model.dispose();
    expect(fake.live).toBe(0);
  });

  test('the session hears how much of the data section is written after each chunk, up to all of it, before finishWeights', async () => {
    const { origin } = await serve({ chunkBytes: 10000 });
    const fake = new FakeCore();
    const model = await loadModelWith(nodeRuntime, { repo: 'org/tiny', hubUrl: origin }, { wasm: { factory: fake.factory } });
    const dataLength = safetensorsDataSection(kWeights).byteLength;
    const written = fake.session.written;
    expect(written.length).toBeGreaterThan(10);  // the server sends 10000-byte chunks; streams may merge some
    expect(written.every((n, i) => i === 0 || n > written[i - 1]!)).toBe(true);
    expect(written.at(-1)).toBe(dataLength);
    const calls = fake.session.calls;
    expect(calls.lastIndexOf('weightsWritten')).toBeLessThan(calls.indexOf('finishWeights'));
    model.dispose();
  });

  test('progress is monotonic per file and overall, and reaches every total before ready', async () => {
    const { origin } = await serve({ chunkBytes: 50000 });
    const events: LoadProgressEvent[] = [];
    const model = await loadModelWith(nodeRuntime, { repo: 'org/tiny', hubUrl: origin },
      { wasm: { factory: new FakeCore().factory }, onProgress: (e) => events.push(e) });
    model.dispose();
    expect(events.at(-1)).toEqual({ type: 'ready' });
    expect(events.filter((e) => e.type === 'ready')).toHaveLength(1);
    const last = new Map<string, number>();
    for (const e of events) {
      if (e.type === 'ready') continue;
      const key = e.type === 'download' ? e.file : '(total)';
      expect(e.loaded).toBeGreaterThanOrEqual(last.get(key) ?? 0);
      expect(e.loaded).toBeLessThanOrEqual(e.total);
      last.set(key, e.loaded);
    }
    for (const file of kCheckpointFiles) {
      const final = events.filter((e) => e.type === 'download' && e.file === file).at(-1);
      expect(final).toEqual({ type: 'download', file, loaded: statSync(join(kTinyCheckpoint, file)).size, total: statSync(join(kTinyCheckpoint, file)).size });
    }
    const totals = events.filter((e) => e.type === 'total');
    expect(totals.at(-1)).toEqual({ type: 'total', loaded: totalBytes, total: totalBytes });
    // The weights arrive in several chunks, each reported.
    expect(events.filter((e) => e.type === 'download' && e.file === 'model.safetensors').length).toBeGreaterThan(5);
  });

  test('a subfolder and a revision are part of every request path', async () => {
    server = await startCheckpointServer({ '/org/all/resolve/v1.0/typed/': kTinyCheckpoint });
    const model = await loadModelWith(nodeRuntime, { repo: 'org/all', revision: 'v1.0', subfolder: 'typed', hubUrl: server.origin },
      { wasm: { factory: new FakeCore().factory } });
    model.dispose();
    expect([...server.requests].sort()).toEqual(kCheckpointFiles.map((f) => `GET /org/all/resolve/v1.0/typed/${f}`).sort());
  });

  test('a missing file is invalid_checkpoint naming the file and URL, and frees the session', async () => {
    const { origin } = await serve({ status: { 'tokenizer/tokenizer_config.json': 404 } });
    const fake = new FakeCore();
    const error = await rejection(loadModelWith(nodeRuntime, { repo: 'org/tiny', hubUrl: origin }, { wasm: { factory: fake.factory } }));
    expect(error).toBeInstanceOf(LayaError);
    expect((error as LayaError).code).toBe('invalid_checkpoint');
    expect(error.message).toContain('tokenizer/tokenizer_config.json');
    expect(error.message).toContain(`${origin}${kRepoPrefix}tokenizer/tokenizer_config.json`);
    expect(error.message).toContain('404');
    expect(fake.sessions).toHaveLength(1);
    expect(fake.live).toBe(0);
  });

  test('a server error is a network error naming the status and URL', async () => {
    const { origin } = await serve({ status: { 'model.safetensors': 500 } });
    const fake = new FakeCore();
    const error = await rejection(loadModelWith(nodeRuntime, { repo: 'org/tiny', hubUrl: origin }, { wasm: { factory: fake.factory } }));
    expect((error as LayaError).code).toBe('network');
    expect((error as LayaError).status).toBe(500);
    expect(error.message).toContain(`HTTP 500`);
    expect(error.message).toContain(`${origin}${kRepoPrefix}model.safetensors`);
    expect(fake.live).toBe(0);
  });

  test('a connection cut in the middle of the weights is a network error naming the file', async () => {
    const { origin } = await serve({ cutAfter: { 'model.safetensors': 300000 } });
    const fake = new FakeCore();
    const error = await rejection(loadModelWith(nodeRuntime, { repo: 'org/tiny', hubUrl: origin }, { wasm: { factory: fake.factory } }));
    expect((error as LayaError).code).toBe('network');
    expect(error.message).toContain('model.safetensors');
    expect(fake.session.calls).not.toContain('finishWeights');
    expect(fake.live).toBe(0);
  });

  test('without Content-Length the size comes from a Range probe', async () => {
    const { origin, requests } = await serve({ noContentLength: kCheckpointFiles.slice() });
    const fake = new FakeCore();
    const events: LoadProgressEvent[] = [];
    const model = await loadModelWith(nodeRuntime, { repo: 'org/tiny', hubUrl: origin },
      { wasm: { factory: fake.factory }, onProgress: (e) => events.push(e) });
    expectSameBytes(fake.session.weights, safetensorsDataSection(kWeights));
    expect(requests).toContain(`GET ${kRepoPrefix}model.safetensors range=bytes=0-0`);
    expect(events.filter((e) => e.type === 'total').at(-1)).toEqual({ type: 'total', loaded: totalBytes, total: totalBytes });
    model.dispose();
  });

  test('a body that ends early (no Content-Length) is a truncation error naming the file', async () => {
    const { origin } = await serve({ noContentLength: ['model.safetensors'], endAfter: { 'model.safetensors': 500000 } });
    const fake = new FakeCore();
    const error = await rejection(loadModelWith(nodeRuntime, { repo: 'org/tiny', hubUrl: origin }, { wasm: { factory: fake.factory } }));
    expect((error as LayaError).code).toBe('network');
    expect(error.message).toMatch(/model\.safetensors: .* ended after 500000 of \d+ bytes \(truncated\)/);
    expect(fake.live).toBe(0);
  });

  test('no Content-Length and no Range support is a clear network error', async () => {
    const { origin } = await serve({ noContentLength: ['model.safetensors'], ranges: false });
    const error = await rejection(loadModelWith(nodeRuntime, { repo: 'org/tiny', hubUrl: origin }, { wasm: { factory: new FakeCore().factory } }));
    expect((error as LayaError).code).toBe('network');
    expect(error.message).toContain('model.safetensors');
    expect(error.message).toContain('Content-Length');
  });

  test('abort in the middle of the download rejects with AbortError and deletes the session', async () => {
    const { origin } = await serve({ chunkBytes: 32 * 1024, chunkDelayMs: 5 });
    const fake = new FakeCore();
    const controller = new AbortController();
    let weightBytesSeen = 0;
    const error = await rejection(loadModelWith(nodeRuntime, { repo: 'org/tiny', hubUrl: origin }, {
      wasm: { factory: fake.factory },
      signal: controller.signal,
      onProgress: (e) => {
        if (e.type === 'download' && e.file === 'model.safetensors') {
          weightBytesSeen = e.loaded;
          if (e.loaded > 0 && e.loaded < e.total) controller.abort();
        }
      },
    }));
    expect(error.name).toBe('AbortError');
    expect(weightBytesSeen).toBeGreaterThan(0);
    expect(weightBytesSeen).toBeLessThan(statSync(kWeights).size);
    expect(fake.sessions).toHaveLength(1);
    expect(fake.live).toBe(0);
    expect(fake.session.calls).not.toContain('finishWeights');
  });

  test('an already aborted signal rejects at once without creating a session', async () => {
    const fake = new FakeCore();
    const error = await rejection(loadModelWith(nodeRuntime, { repo: 'org/tiny', hubUrl: 'http://127.0.0.1:9' },
      { wasm: { factory: fake.factory }, signal: AbortSignal.abort() }));
    expect(error.name).toBe('AbortError');
    expect(fake.sessions).toHaveLength(0);
  });

  test('an unreachable server is a network error naming the URL', async () => {
    const { origin } = await serve();
    await server?.close();
    server = null;
    const error = await rejection(loadModelWith(nodeRuntime, { url: `${origin}/x/` }, { wasm: { factory: new FakeCore().factory } }));
    expect((error as LayaError).code).toBe('network');
    expect(error.message).toContain(`${origin}/x/`);
  });

  test('the files are asked for while the wasm module is still being made', async () => {
    const { origin, requests } = await serve();
    const fake = new FakeCore();
    let requestsWhileMaking = -1;
    const model = await loadModelWith(nodeRuntime, { repo: 'org/tiny', hubUrl: origin }, {
      wasm: {
        factory: async (options) => {
          // The module takes as long as every file's first answer, up to 5 s.
          for (let waited = 0; requests.length < kCheckpointFiles.length && waited < 5000; waited += 10) await new Promise((r) => setTimeout(r, 10));
          requestsWhileMaking = requests.length;
          return fake.factory(options);
        },
      },
    });
    model.dispose();
    expect(requestsWhileMaking).toBe(kCheckpointFiles.length);
  });

  test('a wasm module that fails to load closes every file opened meanwhile', async () => {
    const { origin } = await serve();
    const bodies: Array<{ url: string; closed: boolean }> = [];
    const error = await rejection(loadModelWith(nodeRuntime, { repo: 'org/tiny', hubUrl: origin }, {
      wasm: {
        factory: async () => {
          for (let waited = 0; bodies.length < kCheckpointFiles.length && waited < 5000; waited += 10) await new Promise((r) => setTimeout(r, 10));
          throw new Error('no memory for the module');
        },
      },
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        const body = { url: input, closed: false };
        bodies.push(body);
        const reader = response.body?.getReader();
        const tracked = new ReadableStream<Uint8Array>({
          async pull(controller) {
            const next = await reader?.read();
            if (next === undefined || next.done) {
              body.closed = true;
              controller.close();
            } else {
              controller.enqueue(next.value);
            }
          },
          async cancel(reason) {
            body.closed = true;
            await reader?.cancel(reason);
          },
        });
        return new Response(tracked, { status: response.status, headers: response.headers });
      },
    }));
    expect(error.message).toContain('no memory for the module');
    expect(bodies.filter((b) => !b.closed)).toEqual([]);
    expect(bodies).toHaveLength(kCheckpointFiles.length);
  });

  test('a custom fetch function is used for every file', async () => {
    const { origin } = await serve();
    const seen: string[] = [];
    const model = await loadModelWith(nodeRuntime, { url: `${origin}${kRepoPrefix}` }, {
      wasm: { factory: new FakeCore().factory },
      fetch: (input, init) => {
        seen.push(input);
        return fetch(input, init);
      },
    });
    model.dispose();
    expect(seen.sort()).toEqual(kCheckpointFiles.map((f) => `${origin}${kRepoPrefix}${f}`).sort());
  });
});

describe('load from a directory', () => {
  test('reads the weights straight into wasm memory', async () => {
    const fake = new FakeCore();
    const events: LoadProgressEvent[] = [];
    const model = await loadModelWith(nodeRuntime, { directory: kTinyCheckpoint },
      { wasm: { factory: fake.factory }, onProgress: (e) => events.push(e) });
    expectSameBytes(fake.session.weights, safetensorsDataSection(kWeights));
    expect(events.filter((e) => e.type === 'total').at(-1)).toEqual({ type: 'total', loaded: totalBytes, total: totalBytes });
    expect(events.at(-1)).toEqual({ type: 'ready' });
    model.dispose();
  });

  test('a missing file names the file and the directory', async () => {
    const fake = new FakeCore();
    const error = await rejection(loadModelWith(nodeRuntime, { directory: join(kTinyCheckpoint, 'tokenizer') }, { wasm: { factory: fake.factory } }));
    expect((error as LayaError).code).toBe('invalid_checkpoint');
    expect(error.message).toMatch(/(rl_agent_config\.json|encoder\/config\.json|model\.safetensors) not found in .*tokenizer/);
    expect(fake.live).toBe(0);
  });

  test('an error the engine reports while configuring keeps its code and message', async () => {
    // A checkpoint whose rl_agent_config.json lacks head_layers.
    const files: Record<string, Blob> = {};
    for (const f of kCheckpointFiles) files[f] = new Blob([readFileSync(join(kTinyCheckpoint, f))]);
    files['rl_agent_config.json'] = new Blob(['{"encoder": "x"}']);
    const fake = new FakeCore();
    const error = await rejection(loadModelWith(nodeRuntime, { files }, { wasm: { factory: fake.factory } }));
    expect((error as LayaError).code).toBe('invalid_checkpoint');
    expect(error.message).toContain('head_layers');
    expect(fake.session.calls).toEqual(['configure', 'delete']);
    expect(fake.live).toBe(0);
  });

  test('out of memory while planning the weights keeps its code', async () => {
    const fake = new FakeCore({ failPlan: 'out_of_memory' });
    const error = await rejection(loadModelWith(nodeRuntime, { directory: kTinyCheckpoint }, { wasm: { factory: fake.factory } }));
    expect((error as LayaError).code).toBe('out_of_memory');
    expect(error.message).toContain('model.safetensors');
    expect(fake.live).toBe(0);
  });

  test('a wasm module of another interface version is refused as internal, naming both versions, before any session', async () => {
    const fake = new FakeCore({ abiVersion: kLayaCoreAbi + 1 });
    const error = await rejection(loadModelWith(nodeRuntime, { directory: kTinyCheckpoint }, { wasm: { factory: fake.factory } }));
    expect((error as LayaError).code).toBe('internal');
    expect(error.message).toContain(`interface is version ${kLayaCoreAbi + 1}, but this package needs version ${kLayaCoreAbi}`);
    expect(fake.sessions).toEqual([]);
    expect(fake.shutDowns).toBe(1);
  });

  test('loadPipeline reads the configs and tokenizer only', async () => {
    const fake = new FakeCore();
    const events: LoadProgressEvent[] = [];
    const pipeline = await loadPipelineWith(nodeRuntime, { directory: kTinyCheckpoint },
      { wasm: { factory: fake.factory }, onProgress: (e) => events.push(e) });
    expect(fake.session.calls).toEqual(['configure', 'configSummary', 'warnings']);
    expect(events.some((e) => e.type === 'download' && e.file === 'model.safetensors')).toBe(false);
    expect(pipeline.config.weightsFileBytes).toBe(0);
    pipeline.dispose();
  });
});

describe('load from Blobs', () => {
  const blobs = (prefix: string): File[] =>
    kCheckpointFiles.map((f) => Object.assign(new File([readFileSync(join(kTinyCheckpoint, f))], f.split('/').at(-1) as string),
      { webkitRelativePath: `${prefix}${f}` }));

  test('files picked with their folder path stream into wasm memory', async () => {
    const fake = new FakeCore();
    const model = await loadModelWith(nodeRuntime, { files: blobs('my-checkpoint/') }, { wasm: { factory: fake.factory } });
    expectSameBytes(fake.session.weights, safetensorsDataSection(kWeights));
    expect(fake.session.configured?.encoderConfig).toBe(readFileSync(join(kTinyCheckpoint, 'encoder/config.json'), 'utf8'));
    model.dispose();
  });

  test('a map of paths to Blobs works, and a missing path is named', async () => {
    const map = new Map<string, Blob>();
    for (const f of kCheckpointFiles) if (f !== 'encoder/config.json') map.set(f, new Blob([readFileSync(join(kTinyCheckpoint, f))]));
    const error = await rejection(loadModelWith(nodeRuntime, { files: map }, { wasm: { factory: new FakeCore().factory } }));
    expect((error as LayaError).code).toBe('invalid_checkpoint');
    expect(error.message).toContain('encoder/config.json is not among the given files');
  });

  test('a truncated Blob is invalid_checkpoint naming the file', async () => {
    const files: Record<string, Blob> = {};
    for (const f of kCheckpointFiles) files[f] = new Blob([readFileSync(join(kTinyCheckpoint, f))]);
    const whole = readFileSync(kWeights);
    files['model.safetensors'] = new Blob([whole.subarray(0, whole.length - 1000)]);
    const fake = new FakeCore();
    const error = await rejection(loadModelWith(nodeRuntime, { files }, { wasm: { factory: fake.factory } }));
    expect((error as LayaError).code).toBe('invalid_checkpoint');
    expect(error.message).toContain('model.safetensors');
    expect(fake.live).toBe(0);
  });
});

describe('load arguments', () => {
  test('a source of no known kind is invalid_request listing its keys', async () => {
    const error = await rejection(loadModelWith(nodeRuntime, { path: '/x' } as never, { wasm: { factory: new FakeCore().factory } }));
    expect((error as LayaError).code).toBe('invalid_request');
    expect(error.message).toContain('[path]');
  });

  test('bad options are invalid_request naming the option', async () => {
    const error = await rejection(loadModelWith(nodeRuntime, { directory: kTinyCheckpoint }, { threads: 0 }));
    expect((error as LayaError).code).toBe('invalid_request');
    expect(error.message).toContain('threads');
  });
});
