// Hostile checkpoints through the package with the built wasm module: each is the tiny-fanin
// reference checkpoint with one fault, written to a temp directory. load() rejects it with a
// LayaError of the right code whose message names the fault; the CLI exits 1 with one line naming
// it (runCli, and dist/cli.js itself, which must be built). A file cut short, from a directory or
// over HTTP, is one exact line: the bytes its header needs and those present. Also: planWeights on
// a header whose data section cannot fit wasm memory is out_of_memory and the same module then
// loads a good checkpoint, and 20 failed loads in one module instance leave wasm memory where it was.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../../web/src/cli/run.js';
import type { LayaCoreModule } from '../../../web/src/core/laya-core.js';
import { LayaError, type LayaErrorCode } from '../../../web/src/errors.js';
import { loadModelWith } from '../../../web/src/load.js';
import { nodeRuntime } from '../../../web/src/node/node-runtime.js';
import { startCheckpointServer } from '../helpers/checkpoint-server.js';
import { kRepoRoot, kTinyCheckpoint } from '../helpers/fixtures.js';
import { describeWithCore, kCoreJs, kWasm, missingBuild } from '../helpers/real-core.js';

interface Entry { dtype: string; shape: number[]; data_offsets: [number, number] }
type Header = Record<string, Entry | Record<string, string>>;

const kGood = new Uint8Array(readFileSync(join(kTinyCheckpoint, 'model.safetensors')));
const kHeaderLength = Number(new DataView(kGood.buffer, kGood.byteOffset, 8).getBigUint64(0, true));
const kHeaderText = new TextDecoder().decode(kGood.subarray(8, 8 + kHeaderLength));
const kData = kGood.subarray(8 + kHeaderLength);
const kEmb = 'encoder.embeddings.tok_embeddings.weight';  // [512, 64] F32

function header(): Header {
  return JSON.parse(kHeaderText) as Header;
}

function fileOf(headerText: string, data: Uint8Array, declaredLength = BigInt(Buffer.byteLength(headerText))): Uint8Array {
  const h = new TextEncoder().encode(headerText);
  const out = new Uint8Array(8 + h.length + data.length);
  new DataView(out.buffer).setBigUint64(0, declaredLength, true);
  out.set(h, 8);
  out.set(data, 8 + h.length);
  return out;
}

/** The good data section laid out again for `entries` (name -> [source name, dtype, shape]), back to back. */
function relaid(edit: (names: string[]) => Array<[string, string | null, Partial<Entry>?]>): Uint8Array {
  const h = header();
  const names = Object.keys(h).filter((n) => n !== '__metadata__');
  const parts: string[] = [];
  const chunks: Uint8Array[] = [];
  let offset = 0;
  for (const [name, source, change] of edit(names)) {
    const e = source === null ? { dtype: 'F32', shape: [2], data_offsets: [0, 8] as [number, number] } : h[source] as Entry;
    const bytes = source === null ? new Uint8Array(8) : kData.subarray(e.data_offsets[0], e.data_offsets[1]);
    const entry = { dtype: e.dtype, shape: e.shape, ...change, data_offsets: [offset, offset + bytes.length] };
    parts.push(`${JSON.stringify(name)}:${JSON.stringify(entry)}`);
    chunks.push(bytes);
    offset += bytes.length;
  }
  const data = new Uint8Array(offset);
  let at = 0;
  for (const c of chunks) { data.set(c, at); at += c.length; }
  return fileOf(`{${parts.join(',')}}`, data);
}

const same = (names: string[]): Array<[string, string]> => names.map((n) => [n, n]);

function withEntry(name: string, change: (e: Entry) => void): Uint8Array {
  const h = header();
  change(h[name] as Entry);
  return fileOf(JSON.stringify(h), kData);
}

interface Hostile {
  fault: string;
  file?: () => Uint8Array;
  encoder?: (c: Record<string, unknown>) => void;
  agent?: (c: Record<string, unknown>) => void;
  code: LayaErrorCode;
  parts: string[];
  /** The whole message, where it is known exactly. */
  message?: string;
}

/** The one line a file cut short gets: the bytes its header needs and the bytes there are. */
function truncated(needed: number, present: number): string {
  return `model.safetensors is truncated: its header needs ${needed} bytes, only ${present} are present`;
}

const kHostile: Hostile[] = [
  { fault: 'an empty model.safetensors', file: () => new Uint8Array(0), code: 'invalid_checkpoint', parts: ['model.safetensors'] },
  { fault: 'a file shorter than the length prefix', file: () => new Uint8Array(5), code: 'invalid_checkpoint', parts: ['model.safetensors'] },
  { fault: 'a file cut inside its header', file: () => fileOf(kHeaderText, kData).subarray(0, 100), code: 'invalid_checkpoint', parts: ['header'],
    message: truncated(8 + kHeaderLength, 100) },
  { fault: 'an absurdly large header length', file: () => fileOf(kHeaderText, kData, 0xffffffffffffffffn), code: 'invalid_checkpoint', parts: ['header'] },
  { fault: 'a header that is a JSON array', file: () => fileOf('[1, 2, 3]', new Uint8Array(0)), code: 'invalid_checkpoint', parts: ['header', 'object'] },
  { fault: 'a header that is not JSON', file: () => fileOf('{"a": tru', new Uint8Array(0)), code: 'invalid_checkpoint', parts: ['header'] },
  { fault: 'an unknown dtype', file: () => withEntry(kEmb, (e) => { e.dtype = 'Q4_K'; }), code: 'unsupported_model', parts: [kEmb, 'Q4_K'] },
  { fault: 'a shape that disagrees with the byte length', file: () => withEntry(kEmb, (e) => { e.shape = [512, 63]; }), code: 'invalid_checkpoint', parts: [kEmb] },
  { fault: 'a file missing its last 4 bytes', file: () => fileOf(kHeaderText, kData.subarray(0, kData.length - 4)), code: 'invalid_checkpoint', parts: ['model.safetensors'],
    message: truncated(kGood.length, kGood.length - 4) },
  { fault: 'overlapping tensors', file: () => withEntry('scorer.3.bias', (e) => { e.data_offsets = [e.data_offsets[0] - 4, e.data_offsets[0]]; }), code: 'invalid_checkpoint', parts: ['scorer.3.bias'] },
  { fault: 'trailing bytes after the last tensor', file: () => fileOf(kHeaderText, new Uint8Array([...kData, ...new Uint8Array(16)])), code: 'invalid_checkpoint', parts: ['16'] },
  { fault: 'a duplicate tensor name', file: () => {
    const h = header();
    const entry = JSON.stringify(h[kEmb]);
    return fileOf(kHeaderText.replace(/}$/, `,${JSON.stringify(kEmb)}:${entry}}`), kData);
  }, code: 'invalid_checkpoint', parts: [kEmb] },
  { fault: 'a missing tensor', file: () => relaid((n) => same(n.filter((x) => x !== 'scorer.1.weight'))), code: 'invalid_checkpoint', parts: ['scorer.1.weight', 'missing'] },
  { fault: 'an extra tensor', file: () => relaid((n) => [...same(n), ['head.layers.9.linear1.weight', null]]), code: 'invalid_checkpoint', parts: ['head.layers.9.linear1.weight'] },
  { fault: 'a transposed shape with the right byte count', file: () => relaid((n) => n.map((x) => [x, x, x === kEmb ? { shape: [64, 512] } : {}] as [string, string, Partial<Entry>])), code: 'invalid_checkpoint', parts: [kEmb, '[64, 512]'] },
  { fault: 'a file cut in the middle of its data', file: () => fileOf(kHeaderText, kData.subarray(0, kData.length >> 1)), code: 'invalid_checkpoint', parts: ['model.safetensors'],
    message: truncated(kGood.length, 8 + kHeaderLength + (kData.length >> 1)) },
  { fault: 'encoder config missing hidden_size', encoder: (c) => { delete c['hidden_size']; }, code: 'invalid_checkpoint', parts: ['encoder/config.json', 'hidden_size'] },
  { fault: 'encoder config hidden_size a string', encoder: (c) => { c['hidden_size'] = '64'; }, code: 'invalid_checkpoint', parts: ['encoder/config.json', 'hidden_size'] },
  { fault: 'another model type', encoder: (c) => { c['model_type'] = 'bert'; }, code: 'unsupported_model', parts: ['encoder/config.json', 'bert', 'modernbert'] },
  { fault: 'another activation', encoder: (c) => { c['hidden_activation'] = 'silu'; }, code: 'unsupported_model', parts: ['encoder/config.json', 'hidden_activation', 'silu'] },
  { fault: 'a head size of 32', encoder: (c) => { c['num_attention_heads'] = 2; }, code: 'unsupported_model', parts: ['encoder/config.json', '64'] },
  { fault: 'head_max_len not below max_len', agent: (c) => { c['head_max_len'] = 512; }, code: 'invalid_checkpoint', parts: ['rl_agent_config.json', 'head_max_len'] },
  { fault: 'two temperatures', agent: (c) => { c['temperature'] = [1.5, 1.2]; }, code: 'invalid_checkpoint', parts: ['rl_agent_config.json', 'temperature'] },
  { fault: 'a rl_agent_config.json missing head_layers', agent: (c) => { delete c['head_layers']; }, code: 'invalid_checkpoint', parts: ['rl_agent_config.json', 'head_layers'] },
];

function writeCheckpoint(dir: string, h: Hostile): void {
  cpSync(kTinyCheckpoint, dir, { recursive: true });
  if (h.file) writeFileSync(join(dir, 'model.safetensors'), h.file());
  for (const [edit, file] of [[h.encoder, 'encoder/config.json'], [h.agent, 'rl_agent_config.json']] as const) {
    if (!edit) continue;
    const c = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Record<string, unknown>;
    edit(c);
    writeFileSync(join(dir, file), JSON.stringify(c));
  }
}

const quiet = { wasm: kWasm, onWarning: (): void => undefined };
let root: string;
beforeAll(() => { root = mkdtempSync(join(tmpdir(), 'laya-hostile-')); });
afterAll(() => rmSync(root, { recursive: true, force: true }));

describeWithCore('hostile checkpoints through load() and the CLI', () => {
  test.each(kHostile.map((h, i) => [h.fault, i] as const))('%s is rejected naming the fault', async (_fault, i) => {
    const h = kHostile[i] as Hostile;
    const dir = join(root, `case-${i}`);
    writeCheckpoint(dir, h);
    const error = await loadModelWith(nodeRuntime, { directory: dir }, quiet).then(() => null, (e: unknown) => e);
    expect(error).toBeInstanceOf(LayaError);
    const e = error as LayaError;
    expect({ code: e.code, message: e.message }).toMatchObject({ code: h.code, ...(h.message === undefined ? {} : { message: h.message }) });
    for (const part of h.parts) expect(e.message).toContain(part);

    let stdout = '';
    let stderr = '';
    const status = await runCli(['forward', '--model', dir, '--inputs', '/dev/null', '--wasm', kCoreJs],
      { stdout: (t) => { stdout += t; }, stderr: (t) => { stderr += t; } });
    expect(status).toBe(1);
    expect(stdout).toBe('');
    expect(stderr.endsWith('\n') && stderr.split('\n').length === 2).toBe(true);
    for (const part of h.parts) expect(stderr).toContain(part);
    if (h.message !== undefined) expect(stderr).toBe(`laya-wasm: ${h.message}\n`);
  });

  test('a truncated model.safetensors over HTTP is the same one line, and its data section is not streamed', async () => {
    // Content-Length gives the short size up front: planWeights rejects the header against it.
    const dir = join(root, 'http-truncated');
    const present = 600000;
    writeCheckpoint(dir, { fault: 'cut', file: () => kGood.subarray(0, present), code: 'invalid_checkpoint', parts: [] });
    const server = await startCheckpointServer({ '/org/tiny/resolve/main/': dir });
    try {
      let weightBytes = 0;
      const error = await loadModelWith(nodeRuntime, { repo: 'org/tiny', hubUrl: server.origin }, {
        ...quiet,
        onProgress: (e) => { if (e.type === 'download' && e.file === 'model.safetensors') weightBytes = e.loaded; },
      }).then(() => null, (e: unknown) => e);
      expect(error).toBeInstanceOf(LayaError);
      expect({ code: (error as LayaError).code, message: (error as LayaError).message })
        .toEqual({ code: 'invalid_checkpoint', message: truncated(kGood.length, present) });
      // The header was read; the rest was left unread (at most the chunk the header came in).
      expect(weightBytes).toBeLessThan(present);
    } finally {
      await server.close();
    }
  });

  const cli = join(kRepoRoot, 'dist', 'cli.js');
  test('dist/cli.js itself exits 1 with one line naming the fault', () => {
    if (!existsSync(cli)) throw missingBuild(cli);
    for (const i of [0, 6, 12, 21]) {
      const h = kHostile[i] as Hostile;
      const dir = join(root, `cli-${i}`);
      writeCheckpoint(dir, h);
      const run = spawnSync(process.execPath, [cli, 'forward', '--model', dir, '--inputs', '/dev/null', '--wasm', kCoreJs], { encoding: 'utf8' });
      expect(run.status).toBe(1);
      expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
      for (const part of h.parts) expect(run.stderr).toContain(part);
    }
  });
});

describeWithCore('memory on failed loads', () => {
  let core: LayaCoreModule;
  beforeAll(async () => { core = (await nodeRuntime.createCore(kWasm, 1)).core; });
  const oneModule = { ...quiet, wasm: { factory: async (): Promise<LayaCoreModule> => core } };
  const text = (f: string): string => readFileSync(join(kTinyCheckpoint, f), 'utf8');

  test('a data section beyond wasm memory is out_of_memory from planWeights, and the module then loads a good checkpoint', async () => {
    // vocab_size 2^24 at d = 64 in F32: a 4 GiB embedding table, more than a 32-bit address space.
    const encoder = JSON.parse(text('encoder/config.json')) as Record<string, unknown>;
    encoder['vocab_size'] = 16777216;
    const h = header();
    const entries = Object.keys(h).filter((n) => n !== '__metadata__');
    let offset = 0;
    for (const name of entries) {
      const e = h[name] as Entry;
      if (name === kEmb) e.shape = [16777216, 64];
      const bytes = e.shape.reduce((a, b) => a * b, e.dtype === 'F32' ? 4 : 2);
      e.data_offsets = [offset, offset + bytes];
      offset += bytes;
    }
    const prefix = fileOf(JSON.stringify(h), new Uint8Array(0));
    const session = new core.LayaSession();
    try {
      expect(session.configure(text('rl_agent_config.json'), JSON.stringify(encoder), text('tokenizer/tokenizer.json'),
        text('tokenizer/tokenizer_config.json'))).toBe('');
      const before = core.HEAPU8.length;
      const result = JSON.parse(session.planWeights(prefix, prefix.length + offset)) as { error?: { code: string; message: string } };
      expect(result.error?.code).toBe('out_of_memory');
      expect(result.error?.message).toContain('model.safetensors');
      expect(core.HEAPU8.length).toBe(before);
    } finally {
      session.delete();
    }
    const model = await loadModelWith(nodeRuntime, { directory: kTinyCheckpoint }, oneModule);
    expect(model.memory().weightsBytes).toBeGreaterThan(kData.length - 1);
    model.dispose();
  });

  test('20 failed loads in one module instance leave wasm memory flat', async () => {
    const dir = join(root, 'leak');
    writeCheckpoint(dir, kHostile[12] as Hostile);  // rejected at planWeights
    const fail = (): Promise<unknown> => loadModelWith(nodeRuntime, { directory: dir }, oneModule).then(() => null, (e: unknown) => e);
    expect(await fail()).toBeInstanceOf(LayaError);  // warm-up: the module's first allocations
    const before = core.HEAPU8.length;
    for (let i = 0; i < 20; i++) expect(await fail()).toBeInstanceOf(LayaError);
    expect(core.HEAPU8.length).toBe(before);
    // A good load in the same instance afterwards still works and reports the same wasm memory.
    const model = await loadModelWith(nodeRuntime, { directory: kTinyCheckpoint }, oneModule);
    expect(model.memory().wasmMemoryBytes).toBe(core.HEAPU8.length);
    model.dispose();
  });

  test('20 loads aborted mid-download in one module instance leave wasm memory flat', async () => {
    const server = await startCheckpointServer({ '/org/tiny/resolve/main/': kTinyCheckpoint }, { chunkBytes: 32 * 1024, chunkDelayMs: 2 });
    try {
      const abortMidway = async (): Promise<{ error: unknown; seen: number; total: number }> => {
        const controller = new AbortController();
        let seen = 0;
        let total = 0;
        const error = await loadModelWith(nodeRuntime, { repo: 'org/tiny', hubUrl: server.origin }, {
          ...oneModule,
          signal: controller.signal,
          onProgress: (e) => {
            if (e.type === 'download' && e.file === 'model.safetensors' && e.loaded > 0 && e.loaded < e.total) {
              seen = e.loaded;
              total = e.total;
              controller.abort();
            }
          },
        }).then(() => null, (e: unknown) => e);
        return { error, seen, total };
      };
      const first = await abortMidway();  // warm-up: the module's first allocations, the weights buffer
      expect((first.error as Error).name).toBe('AbortError');
      const before = core.HEAPU8.length;
      for (let i = 0; i < 20; i++) {
        const { error, seen, total } = await abortMidway();
        expect((error as Error).name).toBe('AbortError');
        expect(seen).toBeGreaterThan(0);
        expect(seen).toBeLessThan(total);  // aborted while the weights were streaming
      }
      expect(core.HEAPU8.length).toBe(before);
      const model = await loadModelWith(nodeRuntime, { directory: kTinyCheckpoint }, oneModule);
      expect(model.memory().wasmMemoryBytes).toBe(core.HEAPU8.length);
      model.dispose();
    } finally {
      await server.close();
    }
  });
});
