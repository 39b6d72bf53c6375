// Streaming weights to the GPU: tensors arrive whole whatever the chunk boundaries (odd offsets and
// lengths, chunks of a byte), stay in their stored dtype, and every malformed case names the tensor.
import type { GpuDevice } from '../../../web/src/webgpu/gpu-device.js';
import { GpuWeights } from '../../../web/src/webgpu/gpu-weights.js';
import { writeInChunks } from '../helpers/gpu-harness.js';
import { type TestTensor, buildModel, randomTensor, seeded } from '../helpers/gpu-tensors.js';
import { readBuffer, testGpuDevice } from '../helpers/webgpu.js';

let gpu: GpuDevice;
beforeAll(async () => {
  gpu = await testGpuDevice();
});
afterAll(() => gpu?.destroy());

function tensors(): TestTensor[] {
  const rand = seeded(3);
  return [
    randomTensor(rand, 'odd.f16', 'F16', [3, 7]),        // 42 bytes: ends mid-word
    randomTensor(rand, 'odd.bf16', 'BF16', [5]),         // 10 bytes
    randomTensor(rand, 'matrix.f32', 'F32', [9, 13]),
    randomTensor(rand, 'matrix.q8', 'I8', [5, 67]),      // 335 bytes and 2 groups of scales per row
    randomTensor(rand, 'one.f16', 'F16', [1]),           // 2 bytes
  ];
}

/** The bytes each buffer should hold: the tensor's own, zero-padded to a whole word. */
function padded(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(Math.max(4, Math.ceil(bytes.length / 4) * 4));
  out.set(bytes);
  return out;
}

test.each<[string, (w: GpuWeights, data: Uint8Array) => void]>([
  ['chunks of 1, 2, 3, ... bytes', (w, data) => writeInChunks(w, data)],
  ['chunks of 3 bytes', (w, data) => writeInChunks(w, data, 3)],
  ['one chunk', (w, data) => w.write(0, data)],
])('every tensor arrives byte for byte in its stored dtype from %s', async (_name, write) => {
  const list = tensors();
  const { model, data } = buildModel(list);
  const weights = await GpuWeights.create(gpu, model);
  write(weights, data);
  await weights.finish();
  for (const [i, t] of list.entries()) {
    const gpuTensor = weights.tensor(i);
    expect({ name: t.name, bytes: await readBuffer(gpu, gpuTensor.buffer) }).toEqual({ name: t.name, bytes: padded(t.bytes) });
    if (t.scalesBytes !== undefined) {
      expect({ name: `${t.name} scales`, bytes: await readBuffer(gpu, gpuTensor.scales!) }).toEqual({ name: `${t.name} scales`, bytes: padded(t.scalesBytes) });
    }
  }
  weights.destroy();
});

test('finish names the first tensor the data section ended inside of', async () => {
  const list = tensors();
  const { model, data } = buildModel(list);
  const weights = await GpuWeights.create(gpu, model);
  const cut = model.weights[2]!.byteOffset + 5;
  weights.write(0, data.subarray(0, cut));
  await expect(weights.finish()).rejects.toMatchObject({
    code: 'invalid_checkpoint',
    file: 'model.safetensors',
    message: expect.stringContaining(`ended at data byte ${cut} before tensor 'matrix.f32' was complete (5 of ${9 * 13 * 4} bytes)`),
  });
  weights.destroy();
});

test('a chunk that does not start where the last one ended is refused naming both offsets', async () => {
  const { model, data } = buildModel(tensors());
  const weights = await GpuWeights.create(gpu, model);
  weights.write(0, data.subarray(0, 10));
  expect(() => weights.write(11, data.subarray(11, 20))).toThrow(/a chunk starts at data byte 11, expected 10/);
  weights.destroy();
});

test('a tensor whose byte length disagrees with its shape and dtype is refused naming it', async () => {
  const { model } = buildModel(tensors());
  model.weights[2] = { ...model.weights[2]!, byteLength: 9 * 13 * 2 };
  await expect(GpuWeights.create(gpu, model)).rejects.toMatchObject({
    code: 'invalid_checkpoint',
    message: expect.stringContaining(`tensor 'matrix.f32': 234 bytes for shape [9, 13] of F32, expected 468`),
  });
});

test('a tensor reaching past the data section is refused naming it', async () => {
  const { model } = buildModel(tensors());
  model.weights[1] = { ...model.weights[1]!, byteOffset: model.dataLength - 4 };
  await expect(GpuWeights.create(gpu, model)).rejects.toMatchObject({
    code: 'invalid_checkpoint',
    message: expect.stringContaining(`tensor 'odd.bf16': data at bytes [${model.dataLength - 4}, ${model.dataLength + 6}) lie outside the data section`),
  });
});

test('an I8 tensor without q8 scales is refused naming it', async () => {
  const { model } = buildModel(tensors());
  const { scales: _dropped, ...q8 } = model.weights[3]!;
  model.weights[3] = q8;
  await expect(GpuWeights.create(gpu, model)).rejects.toMatchObject({
    code: 'invalid_checkpoint',
    message: expect.stringContaining(`tensor 'matrix.q8': I8 but not a q8 matrix with scales`),
  });
});

test('writing after destroy is refused as disposed', async () => {
  const { model, data } = buildModel(tensors());
  const weights = await GpuWeights.create(gpu, model);
  weights.destroy();
  expect(() => weights.write(0, data)).toThrow(expect.objectContaining({ code: 'disposed' }));
});

test('writeFile skips the header and places the data section\'s bytes from file offsets', async () => {
  const list = tensors();
  const { model, data } = buildModel(list);
  const file = new Uint8Array(model.dataOffset + data.length);
  file.fill(0xee, 0, model.dataOffset);
  file.set(data, model.dataOffset);
  const weights = await GpuWeights.create(gpu, model);
  for (let at = 0; at < file.length; at += 333) weights.writeFile(at, file.subarray(at, at + 333));
  await weights.finish();
  expect(await readBuffer(gpu, weights.tensor(0).buffer)).toEqual(padded(list[0]!.bytes));
  weights.destroy();
});
