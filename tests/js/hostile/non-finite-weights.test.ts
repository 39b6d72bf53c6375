// Weights that are not finite, through the package with the built wasm module (tiny-fanin, F32).
// A NaN in a norm weight makes finishWeights fail after planWeights allocated the data section:
// load() rejects with invalid_checkpoint naming the tensor; in one session the buffer is released
// (memoryReport empty, wasm memory flat over more failures than it could hold) and that session then
// loads the good file and answers; one module survives failed loads the same way. NaN or Inf in a
// scorer matrix (not scanned at load) makes predict fail with invalid_checkpoint naming the question.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LayaCoreModule } from '../../../web/src/core/laya-core.js';
import { LayaError } from '../../../web/src/errors.js';
import { loadModelWith } from '../../../web/src/load.js';
import { nodeRuntime } from '../../../web/src/node/node-runtime.js';
import { kTinyCheckpoint } from '../helpers/fixtures.js';
import { describeWithCore, kWasm } from '../helpers/real-core.js';

interface Entry { dtype: string; shape: number[]; data_offsets: [number, number] }

const kGood = new Uint8Array(readFileSync(join(kTinyCheckpoint, 'model.safetensors')));
const kHeaderEnd = 8 + Number(new DataView(kGood.buffer, kGood.byteOffset, 8).getBigUint64(0, true));
const kHeader = JSON.parse(new TextDecoder().decode(kGood.subarray(8, kHeaderEnd))) as Record<string, Entry>;
const kQuestion = { json: '{"q": {"type": "choice", "instructions": "w7 w8", "criteria": ["w9", "w10"]}}' };
const kNormMessage = 'model.safetensors: encoder.final_norm.weight holds nan at element 17; ' +
  'a norm weight or bias that is not finite makes every output non-finite';

/** The good file with float32 element `index` of `tensor` set to `value` (every element when index is 'all'). */
function withValue(tensor: string, index: number | 'all', value: number): Uint8Array {
  const entry = kHeader[tensor];
  if (entry === undefined || entry.dtype !== 'F32') throw new Error(`${tensor} is not an F32 tensor of tiny-fanin`);
  const out = kGood.slice();
  const view = new DataView(out.buffer, kHeaderEnd + entry.data_offsets[0], entry.data_offsets[1] - entry.data_offsets[0]);
  const count = view.byteLength / 4;
  for (let i = index === 'all' ? 0 : index; i < (index === 'all' ? count : index + 1); i++) view.setFloat32(i * 4, value, true);
  return out;
}

const quiet = { wasm: kWasm, onWarning: (): void => undefined };
const text = (f: string): string => readFileSync(join(kTinyCheckpoint, f), 'utf8');
let root: string;
beforeAll(() => { root = mkdtempSync(join(tmpdir(), 'laya-non-finite-')); });
afterAll(() => rmSync(root, { recursive: true, force: true }));

function checkpointWith(name: string, weights: Uint8Array): string {
  const dir = join(root, name);
  cpSync(kTinyCheckpoint, dir, { recursive: true });
  writeFileSync(join(dir, 'model.safetensors'), weights);
  return dir;
}

describeWithCore('weights that are not finite', () => {
  let core: LayaCoreModule;
  beforeAll(async () => { core = (await nodeRuntime.createCore(kWasm, 1)).core; });
  const oneModule = { ...quiet, wasm: { factory: async (): Promise<LayaCoreModule> => core } };

  test('a NaN norm weight fails finishWeights; the session frees the planned buffer and then loads the good file', () => {
    const session = new core.LayaSession();
    try {
      expect(session.configure(text('rl_agent_config.json'), text('encoder/config.json'), text('tokenizer/tokenizer.json'),
        text('tokenizer/tokenizer_config.json'))).toBe('');
      /** headerBytesNeeded, planWeights, the data section written where planned, finishWeights. */
      const loadInto = (file: Uint8Array): string => {
        const { headerEnd } = JSON.parse(session.headerBytesNeeded(file.subarray(0, 8), file.length)) as { headerEnd: number };
        const plan = JSON.parse(session.planWeights(file.subarray(0, headerEnd), file.length)) as
          { pointer: number; dataOffset: number; dataLength: number };
        expect(plan.dataLength).toBe(file.length - headerEnd);
        core.HEAPU8.set(file.subarray(plan.dataOffset), plan.pointer);
        return session.finishWeights();
      };
      const memory = (): Record<string, number> => JSON.parse(session.memoryReport()) as Record<string, number>;
      const bad = withValue('encoder.final_norm.weight', 17, Number.NaN);

      expect(JSON.parse(loadInto(bad))).toEqual({ error: { code: 'invalid_checkpoint', message: kNormMessage } });
      expect(memory()).toMatchObject({ weightsBytes: 0, arenaBytes: 0 });
      // Enough further failures that, were each buffer kept, they would outgrow the memory there is now.
      const before = core.HEAPU8.length;
      const rounds = Math.ceil(before / (bad.length - kHeaderEnd)) + 1;
      for (let i = 0; i < rounds; i++) expect(JSON.parse(loadInto(bad))).toMatchObject({ error: { code: 'invalid_checkpoint' } });
      expect(core.HEAPU8.length).toBe(before);
      expect(memory()).toMatchObject({ weightsBytes: 0, wasmMemoryBytes: before });

      expect(loadInto(kGood)).toBe('');
      expect(memory()['weightsBytes']).toBeGreaterThanOrEqual(kGood.length - kHeaderEnd);
      const answer = JSON.parse(session.predict('w5 w6', false, kQuestion.json, '{}')) as { answers?: { q?: { choice?: string } } };
      expect(['w9', 'w10']).toContain(answer.answers?.q?.choice);
    } finally {
      session.delete();
    }
  });

  test('through load(): invalid_checkpoint naming the tensor, wasm memory flat over failed loads in one module', async () => {
    const dir = checkpointWith('nan-norm', withValue('encoder.final_norm.weight', 17, Number.NaN));
    const fail = (): Promise<unknown> => loadModelWith(nodeRuntime, { directory: dir }, oneModule).then(() => null, (e: unknown) => e);
    const first = await fail();
    expect(first).toBeInstanceOf(LayaError);
    expect({ code: (first as LayaError).code, message: (first as LayaError).message }).toEqual({ code: 'invalid_checkpoint', message: kNormMessage });
    const before = core.HEAPU8.length;
    const rounds = Math.ceil(before / (kGood.length - kHeaderEnd)) + 1;
    for (let i = 0; i < rounds; i++) expect(await fail()).toMatchObject({ code: 'invalid_checkpoint' });
    expect(core.HEAPU8.length).toBe(before);
    const model = await loadModelWith(nodeRuntime, { directory: kTinyCheckpoint }, oneModule);
    expect(model.memory().wasmMemoryBytes).toBe(core.HEAPU8.length);
    model.dispose();
  });

  test.each([['NaN', Number.NaN], ['Inf', Number.POSITIVE_INFINITY]])(
    '%s in the scorer matrix loads, then predict fails with invalid_checkpoint naming the question', async (_name, value) => {
      const dir = checkpointWith(`scorer-${String(value)}`, withValue('scorer.3.weight', 'all', value));
      const model = await loadModelWith(nodeRuntime, { directory: dir }, oneModule);
      try {
        const error = await model.predict('w5 w6', kQuestion).then(() => null, (e: unknown) => e);
        expect(error).toBeInstanceOf(LayaError);
        expect((error as LayaError).code).toBe('invalid_checkpoint');
        expect((error as LayaError).message).toMatch(
          /^answer for question 'q' failed: the model returned (nan|inf|-inf) as logit 0; the checkpoint's weights hold NaN or Inf, or values that overflow$/);
      } finally {
        model.dispose();
      }
    });
});
