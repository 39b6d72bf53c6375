// GpuExecutor on a hand-built encoder program (helpers/gpu-mini-model.ts) against the reference
// forward: outputs within the backend's accuracy target, sized to the batch rather than the bucket,
// arena growth between buckets, queued runs, batch checks, destroy.
import { LayaError } from '../../../web/src/errors.js';
import type { GpuDevice } from '../../../web/src/webgpu/gpu-device.js';
import { GpuExecutor } from '../../../web/src/webgpu/gpu-executor.js';
import type { GpuOutputs } from '../../../web/src/webgpu/program.js';
import { rowsOfBatch, uploadTensors } from '../helpers/gpu-harness.js';
import { kMini, miniBatch, miniProgram, miniReference, miniTensors } from '../helpers/gpu-mini-model.js';
import { worstError } from '../helpers/gpu-reference.js';
import type { TestTensor } from '../helpers/gpu-tensors.js';
import { testGpuDevice } from '../helpers/webgpu.js';

// The GPU backend's target for a whole forward: within 1e-4 · max(1, |expected|) of the CPU.
const kForwardTolerance = 1e-4;
// The first run compiles every kernel variant of the program; SwiftShader takes seconds for each,
// so beforeAll makes that run and every test starts with the pipelines cached.
const kCompileTimeoutMs = 180_000;

let gpu: GpuDevice;
let tensors: TestTensor[];
let executor: GpuExecutor;

beforeAll(async () => {
  gpu = await testGpuDevice();
  tensors = miniTensors();
  executor = new GpuExecutor(gpu, await uploadTensors(gpu, tensors, { vocabSize: kMini.vocab, typeCount: kMini.types }));
  const warmUp = miniBatch([2]);
  await executor.run(miniProgram(rowsOfBatch(warmUp)), warmUp);
}, kCompileTimeoutMs);
afterAll(() => {
  executor?.destroy();
  gpu?.destroy();
});

function expectClose(got: GpuOutputs, want: Required<GpuOutputs>): void {
  expect(worstError(got.logits!, want.logits)).toBeLessThanOrEqual(kForwardTolerance);
  expect(worstError(got.act!, want.act)).toBeLessThanOrEqual(kForwardTolerance);
  expect(worstError(got.pooled!, want.pooled)).toBeLessThanOrEqual(kForwardTolerance);
}

test('a forward of sequences of 1, 7 and 70 tokens matches the reference kernels within 1e-4', async () => {
  const batch = miniBatch([1, 7, 70]);
  const outputs = await executor.run(miniProgram(rowsOfBatch(batch)), batch);
  expectClose(outputs, miniReference(tensors, batch));
});

test('with its values 16-byte aligned the same forward runs the tiled GEMMs, GeGLU fused into one, and matches too', async () => {
  const batch = miniBatch([1, 7, 70]);
  const before = executor.stats(true);
  expect(before.gemm).toBe('auto');
  const outputs = await executor.run(miniProgram(rowsOfBatch(batch), true), batch);
  expectClose(outputs, miniReference(tensors, batch));
  const stats = executor.stats(true);
  const kernels = Object.keys(stats.gemmKernels);
  expect(kernels.filter((k) => k.startsWith('gemm-tiled/')).length).toBeGreaterThanOrEqual(3);
  expect(kernels.some((k) => k.endsWith('/geglu'))).toBe(true);
  // One pass, one submit; 14 steps less the RoPE and the GeGLU, each done inside its neighbour.
  expect({ dispatches: stats.dispatches, passes: stats.passes, submits: stats.submits }).toEqual({
    dispatches: miniProgram(rowsOfBatch(batch), true).steps.length - 2, passes: 1, submits: 1,
  });
}, kCompileTimeoutMs);

test('outputs have the batch\'s rows, not the bucket\'s', async () => {
  const batch = miniBatch([5, 33]);
  const rows = rowsOfBatch(batch);
  const outputs = await executor.run(miniProgram({ tokens: 128, seqs: 8, markers: 32 }), batch);
  expect({ logits: outputs.logits!.length, act: outputs.act!.length, pooled: outputs.pooled!.length }).toEqual({
    logits: rows.markers,
    act: rows.seqs * (kMini.d + 4),
    pooled: rows.seqs * kMini.d,
  });
  expectClose(outputs, miniReference(tensors, batch));
});

test('a bigger bucket grows the arena and a smaller one still runs after it', async () => {
  const small = miniBatch([3, 4], 20);
  const big = miniBatch([200, 90, 1, 17], 21);
  const smallProgram = miniProgram(rowsOfBatch(small));
  const first = await executor.run(smallProgram, small);
  expectClose(await executor.run(miniProgram({ tokens: 512, seqs: 8, markers: 32 }), big), miniReference(tensors, big));
  expect(await executor.run(smallProgram, small)).toEqual(first);
});

test('runs started together each get their own batch\'s answers', async () => {
  const a = miniBatch([9], 30);
  const b = miniBatch([2, 2, 40], 31);
  const program = miniProgram({ tokens: 64, seqs: 4, markers: 16 });
  const [ra, rb] = await Promise.all([executor.run(program, a), executor.run(program, b)]);
  expectClose(ra, miniReference(tensors, a));
  expectClose(rb, miniReference(tensors, b));
});

test('a token id outside the vocabulary is refused naming the token', async () => {
  const batch = miniBatch([4, 4]);
  batch.ids[6] = kMini.vocab;
  await expect(executor.run(miniProgram(rowsOfBatch(batch)), batch)).rejects.toMatchObject({
    code: 'invalid_request',
    message: expect.stringContaining(`token 6 has id ${kMini.vocab}`),
  });
});

test('a marker past the end of its sequence is refused naming the marker and the sequence', async () => {
  const batch = miniBatch([4, 6]);
  batch.markers[batch.markers.length - 1] = 6;
  await expect(executor.run(miniProgram(rowsOfBatch(batch)), batch)).rejects.toMatchObject({
    code: 'invalid_request',
    message: expect.stringContaining('of sequence 1, which has 6 tokens'),
  });
});

test('a batch bigger than the program\'s bucket is refused as an internal error', async () => {
  const batch = miniBatch([10, 10]);
  await expect(executor.run(miniProgram({ tokens: 16, seqs: 2, markers: 8 }), batch)).rejects.toMatchObject({
    code: 'internal',
    message: expect.stringContaining('does not fit the program\'s bucket of 16'),
  });
});

test('runs after destroy reject as disposed, and destroy can be called again', async () => {
  const own = new GpuExecutor(gpu, await uploadTensors(gpu, tensors, { vocabSize: kMini.vocab, typeCount: kMini.types }));
  const batch = miniBatch([3]);
  await own.run(miniProgram(rowsOfBatch(batch)), batch);
  own.destroy();
  own.destroy();
  const error = await own.run(miniProgram(rowsOfBatch(batch)), batch).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(LayaError);
  expect(error).toMatchObject({ code: 'disposed', message: expect.stringContaining('destroyed') });
});

test('profiling times every dispatched step kind of a run and leaves the outputs unchanged', async () => {
  const batch = miniBatch([6, 20]);
  const program = miniProgram(rowsOfBatch(batch));
  const plain = await executor.run(program, batch);
  executor.setProfiling(true);
  try {
    const profiled = await executor.run(program, batch);
    expect(profiled).toEqual(plain);
    const profile = executor.profile()!;
    expect(profile.runs).toBe(1);
    const calls = Object.fromEntries(Object.entries(profile.byOp).map(([op, e]) => [op, e.calls]));
    // No rope: the attention after it rotates q and k itself (gpu-steps.ts planSteps).
    expect(calls).toEqual({
      embed: 1, add_type: 1, layer_norm: 3, gemm: 6, attention: 1, geglu: 1, gather_markers: 1, act_features: 1, mean_pool: 1,
    });
    for (const entry of Object.values(profile.byOp)) expect(entry.seconds).toBeGreaterThanOrEqual(0);
  } finally {
    executor.setProfiling(false);
  }
  expect(executor.profile()).toBeNull();
});

test('a step reaching past the arena is refused naming the step, the value and the arena size', async () => {
  const batch = miniBatch([4]);
  const program = miniProgram(rowsOfBatch(batch));
  const at = program.arenaFloats - 10;
  const broken = { ...program, steps: [{ op: 'embed' as const, table: 0, out: at, width: kMini.d }, ...program.steps.slice(1)] };
  const error = await executor.run(broken, batch).catch((e: unknown) => e);
  expect(error).toMatchObject({
    code: 'internal',
    message: `GPU step 0 (embed): out at floats [${at}, ${at + 4 * kMini.d}) lies outside the arena of ${program.arenaFloats} floats`,
  });
});
