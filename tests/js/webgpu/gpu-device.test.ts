/// <reference types="@webgpu/types" />
// Getting a device and the faults around it: no adapter, an adapter below the kernels' needs, the
// limits asked for, buffers above the device's limits (a device with small limits injected), a lost
// device.
import { LayaError } from '../../../web/src/errors.js';
import { GpuDevice, defaultGpu, importNodeGpu, requestGpuDevice } from '../../../web/src/webgpu/gpu-device.js';
import { GpuExecutor, arenaBufferBytes } from '../../../web/src/webgpu/gpu-executor.js';
import { GpuWeights } from '../../../web/src/webgpu/gpu-weights.js';
import { rowsOfBatch, uploadTensors } from '../helpers/gpu-harness.js';
import { kMini, miniBatch, miniProgram, miniTensors } from '../helpers/gpu-mini-model.js';
import { buildModel, randomTensor, seeded } from '../helpers/gpu-tensors.js';
import { testGpuDevice } from '../helpers/webgpu.js';

let gpu: GpuDevice;
beforeAll(async () => {
  gpu = await testGpuDevice();
});
afterAll(() => gpu?.destroy());

/** `gpu`'s device seen through smaller limits (its methods still run on the real device). */
function limited(limits: Partial<Record<keyof GPUSupportedLimits, number>>): GpuDevice {
  const device = gpu.device;
  const fakeLimits = new Proxy(device.limits, {
    get: (target, key) => (key in limits ? limits[key as keyof GPUSupportedLimits] : Reflect.get(target, key, target)),
  });
  const proxy = new Proxy(device, {
    get(target, key) {
      if (key === 'limits') return fakeLimits;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return new GpuDevice(proxy, 'limited test device');
}

/** A GPU whose adapter is `adapter` (null: none). */
function gpuWith(adapter: Partial<GPUAdapter> | null): GPU {
  return { requestAdapter: async () => adapter } as unknown as GPU;
}

test('a missing webgpu package fails as unsupported_model saying to install the optional dependency', async () => {
  await expect(importNodeGpu('laya-no-such-webgpu-package')).rejects.toMatchObject({
    code: 'unsupported_model',
    message: expect.stringContaining("needs the optional dependency 'laya-no-such-webgpu-package' (npm install laya-no-such-webgpu-package)"),
  });
});

test('no adapter fails as unsupported_model, saying to use the wasm backend', async () => {
  await expect(requestGpuDevice({ gpu: gpuWith(null) })).rejects.toMatchObject({
    name: 'LayaError',
    code: 'unsupported_model',
    message: expect.stringMatching(/no WebGPU adapter is available.*backend 'wasm'/),
  });
});

test('an adapter request that throws fails as unsupported_model with its reason', async () => {
  const throwing = { requestAdapter: async () => { throw new Error('driver exploded'); } } as unknown as GPU;
  await expect(requestGpuDevice({ gpu: throwing })).rejects.toMatchObject({
    code: 'unsupported_model',
    message: expect.stringContaining('driver exploded'),
  });
});

test('an adapter with less workgroup memory than the kernels need is refused naming the limit and both sizes', async () => {
  const real = (await (await defaultGpu()).requestAdapter())!;
  const limits: Record<string, number> = {};
  for (const key in real.limits) limits[key] = real.limits[key as keyof GPUSupportedLimits] as number;
  limits['maxComputeWorkgroupStorageSize'] = 8192;
  const small = { limits, features: new Set<string>(), info: { vendor: 'test', architecture: '', device: '', description: '' } };
  await expect(requestGpuDevice({ gpu: gpuWith(small as unknown as GPUAdapter) })).rejects.toMatchObject({
    code: 'unsupported_model',
    message: expect.stringContaining('maxComputeWorkgroupStorageSize 8192, below the 16384'),
  });
});

test('the device gets the adapter\'s largest buffer and binding sizes, not WebGPU\'s defaults', async () => {
  const adapter = (await (await defaultGpu()).requestAdapter())!;
  expect({
    maxStorageBufferBindingSize: gpu.limits.maxStorageBufferBindingSize,
    maxBufferSize: gpu.limits.maxBufferSize,
  }).toEqual({
    maxStorageBufferBindingSize: adapter.limits.maxStorageBufferBindingSize,
    maxBufferSize: adapter.limits.maxBufferSize,
  });
});

test('a tensor above maxStorageBufferBindingSize is refused naming the tensor, its size and the limit', async () => {
  const { model } = buildModel([randomTensor(seeded(1), 'big.weight', 'F32', [64, 64])]);
  await expect(GpuWeights.create(limited({ maxStorageBufferBindingSize: 8192 }), model)).rejects.toMatchObject({
    code: 'out_of_memory',
    message: expect.stringMatching(/tensor 'big.weight' needs a GPU buffer of 16384 bytes, above this device's maxStorageBufferBindingSize of 8192/),
  });
});

test('an arena above maxStorageBufferBindingSize is refused naming the arena, its size and the limit', async () => {
  const small = limited({ maxStorageBufferBindingSize: 1 << 20 });
  const tensors = miniTensors();
  const executor = new GpuExecutor(small, await uploadTensors(small, tensors, { vocabSize: kMini.vocab, typeCount: kMini.types }));
  const batch = miniBatch([4]);
  const program = miniProgram({ tokens: 1024, seqs: 4, markers: 16 });
  await expect(executor.run(program, batch)).rejects.toMatchObject({
    code: 'out_of_memory',
    message: expect.stringContaining(
      `the activation arena for 1024 tokens, 4 sequences and 16 markers needs a GPU buffer of ${arenaBufferBytes(program.arenaFloats)} bytes, above this device's maxStorageBufferBindingSize of 1048576`,
    ),
  });
  executor.destroy();
});

test('after the device is lost every call rejects naming the reason, and destroy still works', async () => {
  const own = await testGpuDevice();
  const tensors = miniTensors();
  const weights = await uploadTensors(own, tensors, { vocabSize: kMini.vocab, typeCount: kMini.types });
  const executor = new GpuExecutor(own, weights, { ownsDevice: true });
  const batch = miniBatch([3, 2]);
  const program = miniProgram(rowsOfBatch(batch));
  own.device.destroy();
  await own.device.lost;
  for (const call of [() => executor.run(program, batch), () => executor.readArena(0, 4), async () => weights.write(0, new Uint8Array(4))]) {
    const error = await call().then(() => null, (e: unknown) => e);
    expect(error).toBeInstanceOf(LayaError);
    expect(error).toMatchObject({ code: 'internal', message: expect.stringMatching(/the WebGPU device was lost \(destroyed: .+\); load the model again/) });
  }
  expect(own.loss).toMatchObject({ reason: 'destroyed' });
  expect(() => {
    executor.destroy();
    executor.destroy();
  }).not.toThrow();
});

test('after the device is destroyed on purpose, calls reject as disposed rather than lost', async () => {
  const own = await testGpuDevice();
  const weights = await uploadTensors(own, miniTensors(), { vocabSize: kMini.vocab, typeCount: kMini.types });
  own.destroy();
  await own.device.lost;
  expect(() => weights.write(0, new Uint8Array(4))).toThrow(expect.objectContaining({ code: 'disposed', message: expect.stringContaining('the WebGPU device was destroyed') }));
  weights.destroy();
});
