// q8 weights through the package with the built wasm module (docs/q8-format.md): `laya-wasm
// quantize` writes a checkpoint that loads as it is and answers bit for bit as the F32 fixture loaded
// with { weights: 'q8' } (one rounding, in C++, for both), in about half the memory; hostile q8 files
// and other tools' quantized layouts are rejected by load() with the right code, naming the tensor.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../web/src/cli/run.js';
import { LayaError, type LayaErrorCode } from '../../web/src/errors.js';
import { loadModelWith } from '../../web/src/load.js';
import type { ForwardRequest } from '../../web/src/request.js';
import { nodeRuntime } from '../../web/src/node/node-runtime.js';
import { kFixturesDir, kTinyCheckpoint } from './helpers/fixtures.js';
import { describeWithCore, kWasm } from './helpers/real-core.js';

interface Entry { dtype: string; shape: number[]; data_offsets: [number, number] }
type Header = Record<string, Entry | Record<string, string>>;

const kWqkv = 'encoder.layers.1.attn.Wqkv.weight';
const kFixture = JSON.parse(readFileSync(join(kFixturesDir, 'reference', 'tiny-fanin', 'fixture.json'), 'utf8')) as
  Required<ForwardRequest>;
const kInputs: ForwardRequest = { inputs: kFixture.inputs.slice(0, 8), embed_inputs: kFixture.embed_inputs.slice(0, 3) };

const kQuiet = { wasm: kWasm, threads: 1, onWarning: (): void => undefined };

let dir: string;
let q8Dir: string;
let stderr: string;

async function quantize(model: string, out: string): Promise<{ status: number; stdout: string; stderr: string }> {
  let so = '';
  let se = '';
  const status = await runCli(['quantize', '--model', model, '--out', out],
    { stdout: (t) => { so += t; }, stderr: (t) => { se += t; }, loadOptions: { wasm: kWasm } });
  return { status, stdout: so, stderr: se };
}

function parse(file: Uint8Array): { header: Header; data: Uint8Array } {
  const n = Number(new DataView(file.buffer, file.byteOffset, 8).getBigUint64(0, true));
  return { header: JSON.parse(new TextDecoder().decode(file.subarray(8, 8 + n))) as Header, data: file.subarray(8 + n) };
}

/** A checkpoint directory whose model.safetensors is `header` over `data`. */
function writeCheckpoint(name: string, header: Header, data: Uint8Array): string {
  const out = join(dir, name);
  cpSync(q8Dir, out, { recursive: true });
  const h = new TextEncoder().encode(JSON.stringify(header));
  const file = new Uint8Array(8 + h.length + data.length);
  new DataView(file.buffer).setBigUint64(0, BigInt(h.length), true);
  file.set(h, 8);
  file.set(data, 8 + h.length);
  writeFileSync(join(out, 'model.safetensors'), file);
  return out;
}

async function loadError(directory: string): Promise<LayaError> {
  try {
    const m = await loadModelWith(nodeRuntime, { directory }, { ...kQuiet });
    m.dispose();
  } catch (error) {
    if (error instanceof LayaError) return error;
    throw error;
  }
  throw new Error(`${directory} loaded`);
}

describeWithCore('q8 weights', () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'laya-q8-'));
    q8Dir = join(dir, 'q8');
    const r = await quantize(kTinyCheckpoint, q8Dir);
    stderr = r.stderr;
    expect(r).toMatchObject({ status: 0, stdout: expect.stringMatching(/^wrote .*model\.safetensors: \d+ bytes, [\d.]+ bytes per parameter/) });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('quantize writes a q8 safetensors file with its configs, and reports progress on stderr', () => {
    expect(stderr).toMatch(/laya-wasm: quantize: 100% \(\d+\/\d+ tensors/);
    const { header } = parse(new Uint8Array(readFileSync(join(q8Dir, 'model.safetensors'))));
    expect(header['__metadata__']).toMatchObject({ laya_quantization: 'q8_sym_g64' });
    expect(header[kWqkv]).toMatchObject({ dtype: 'I8', shape: [192, 64] });
    expect(header[`${kWqkv}.q8_scales`]).toMatchObject({ dtype: 'F32', shape: [192, 1] });
    expect(header['act_head.0.weight.q8_scales']).toMatchObject({ dtype: 'F32', shape: [256, 2] });  // k = 68
    expect(header['encoder.final_norm.weight']).toMatchObject({ dtype: 'F32', shape: [64] });
    expect(readFileSync(join(q8Dir, 'tokenizer', 'tokenizer.json'))).toEqual(readFileSync(join(kTinyCheckpoint, 'tokenizer', 'tokenizer.json')));
  });

  test("the q8 file loads as it is and answers bit for bit as weights: 'q8' on the F32 file, in less memory", async () => {
    const asFile = await loadModelWith(nodeRuntime, { directory: q8Dir }, { ...kQuiet });
    const streamed = await loadModelWith(nodeRuntime, { directory: kTinyCheckpoint }, { ...kQuiet, weights: 'q8' });
    const f32 = await loadModelWith(nodeRuntime, { directory: kTinyCheckpoint }, { ...kQuiet });
    const withOption = await loadModelWith(nodeRuntime, { directory: q8Dir }, { ...kQuiet, weights: 'q8' });
    try {
      const a = await asFile.forwardJson(kInputs);
      expect(await streamed.forwardJson(kInputs)).toBe(a);
      expect(await withOption.forwardJson(kInputs)).toBe(a);
      expect(await f32.forwardJson(kInputs)).not.toBe(a);  // the q8 weights are really in use
      expect(streamed.memory().weightsBytes).toBe(asFile.memory().weightsBytes);
      expect(asFile.memory().weightsBytes).toBeLessThan(0.4 * f32.memory().weightsBytes);
    } finally {
      for (const m of [asFile, streamed, f32, withOption]) m.dispose();
    }
  });

  test('the CLI takes --weights q8: forward on the F32 file gives the q8 file\'s outputs; a bad value exits 2', async () => {
    const inputs = join(dir, 'inputs.json');
    writeFileSync(inputs, JSON.stringify(kInputs));
    const cli = async (argv: string[]): Promise<{ status: number; stdout: string; stderr: string }> => {
      let so = '';
      let se = '';
      const status = await runCli(argv, { stdout: (t) => { so += t; }, stderr: (t) => { se += t; }, loadOptions: { ...kQuiet } });
      return { status, stdout: so, stderr: se };
    };
    const viaFlag = await cli(['forward', '--model', kTinyCheckpoint, '--inputs', inputs, '--weights', 'q8', '--simd', 'plain']);
    const q8File = await cli(['forward', '--model', q8Dir, '--inputs', inputs, '--simd', 'plain']);
    const stored = await cli(['forward', '--model', kTinyCheckpoint, '--inputs', inputs, '--weights', 'stored', '--simd', 'plain']);
    expect([viaFlag.status, q8File.status, stored.status]).toEqual([0, 0, 0]);
    expect(viaFlag.stdout).toBe(q8File.stdout);
    expect(stored.stdout).not.toBe(q8File.stdout);
    const bad = await cli(['forward', '--model', kTinyCheckpoint, '--inputs', inputs, '--weights', 'q4']);
    expect(bad.status).toBe(2);
    expect(bad.stderr.split('\n')[0]).toBe('laya-wasm: --weights must be "stored" or "q8", got "q4"');
  });

  test('load() rejects an unknown weights option', async () => {
    await expect(loadModelWith(nodeRuntime, { directory: q8Dir }, { ...kQuiet, weights: 'q4' as 'q8' }))
      .rejects.toMatchObject({ code: 'invalid_request', message: expect.stringContaining("options.weights must be 'stored' or 'q8'") });
  });

  test('quantizing a q8 checkpoint again is refused with one line', async () => {
    const r = await quantize(q8Dir, join(dir, 'again'));
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^laya-wasm: .*already quantized/);
  });

  describe('hostile q8 files', () => {
    const file = (): { header: Header; data: Uint8Array } => {
      const parsed = parse(new Uint8Array(readFileSync(join(q8Dir, 'model.safetensors'))));
      return { header: parsed.header, data: new Uint8Array(parsed.data) };
    };
    const scalesAt = (h: Header, name: string): [number, number] => (h[`${name}.q8_scales`] as Entry).data_offsets;
    const cases: Array<[string, () => [Header, Uint8Array], LayaErrorCode, string]> = [
      ['a NaN scale', () => {
        const { header, data } = file();
        new DataView(data.buffer).setFloat32(scalesAt(header, kWqkv)[0] + 4 * 7, Number.NaN, true);
        return [header, data];
      }, 'invalid_checkpoint', `${kWqkv}.q8_scales holds a scale of nan`],
      ['an infinite scale', () => {
        const { header, data } = file();
        new DataView(data.buffer).setFloat32(scalesAt(header, kWqkv)[0], Number.POSITIVE_INFINITY, true);
        return [header, data];
      }, 'invalid_checkpoint', `${kWqkv}.q8_scales holds a scale of inf`],
      ['a negative scale', () => {
        const { header, data } = file();
        new DataView(data.buffer).setFloat32(scalesAt(header, kWqkv)[0], -0.25, true);
        return [header, data];
      }, 'invalid_checkpoint', `${kWqkv}.q8_scales holds a scale of -0.25`],
      ['a scale count that does not match (groups of 32)', () => {
        const { header, data } = file();
        (header[`${kWqkv}.q8_scales`] as Entry).shape = [96, 2];
        return [header, data];
      }, 'invalid_checkpoint', `${kWqkv}.q8_scales has shape [96, 2], expected [192, 1]`],
      ['I8 without the marker', () => {
        const { header, data } = file();
        header['__metadata__'] = { format: 'pt' };
        return [header, data];
      }, 'unsupported_model', 'is I8 but __metadata__ has no laya_quantization'],
      ['a GPTQ qweight', () => {
        const { header, data } = file();
        const e = header[`${kWqkv}.q8_scales`] as Entry;
        delete header[`${kWqkv}.q8_scales`];
        header['encoder.layers.1.attn.Wqkv.qweight'] = e;
        return [header, data];
      }, 'unsupported_model', 'encoder.layers.1.attn.Wqkv.qweight, a GPTQ / AWQ quantized layout'],
      ['I8 without its scales', () => {
        const { header, data } = file();
        const e = header[`${kWqkv}.q8_scales`] as Entry;
        delete header[`${kWqkv}.q8_scales`];
        header['spare'] = { ...e, shape: [192] };
        return [header, data];
      }, 'invalid_checkpoint', `${kWqkv} is I8 but has no scales`],
    ];
    test.each(cases)('%s', async (name, make, code, part) => {
      const [header, data] = make();
      const error = await loadError(writeCheckpoint(name.replace(/\W+/g, '-'), header, data));
      expect({ code: error.code, message: error.message }).toEqual({ code, message: expect.stringContaining(part) });
    });
  });
});
