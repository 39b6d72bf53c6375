/// <reference types="@webgpu/types" />
// The WebGPU device the GPU backend's tests run on. Without a GPU that is SwiftShader, Chromium's CPU
// Vulkan driver, through Debian's Vulkan loader (both installed by scripts/setup.sh): the loader is
// pointed at it before the `webgpu` package is imported, unless VK_ICD_FILENAMES already chooses a
// driver. No adapter fails the suite (never skips it), saying how to install one.
import { existsSync } from 'node:fs';
import { SHARE_ENV, Worker } from 'node:worker_threads';
import { GpuDevice, requestGpuDevice } from '../../../web/src/webgpu/gpu-device.js';

const kSwiftShaderIcd = '/usr/lib/chromium/vk_swiftshader_icd.json';

/**
 * Sets VK_ICD_FILENAMES in the process's real environment, which the Vulkan loader reads. Jest gives
 * each test file a copy of process.env, so writing that copy never reaches the loader; a worker
 * thread started with SHARE_ENV writes the real one.
 */
async function chooseSwiftShader(): Promise<void> {
  if (process.env['VK_ICD_FILENAMES'] !== undefined || !existsSync(kSwiftShaderIcd)) return;
  process.env['VK_ICD_FILENAMES'] = kSwiftShaderIcd;
  const worker = new Worker(`process.env.VK_ICD_FILENAMES = ${JSON.stringify(kSwiftShaderIcd)};`, { eval: true, env: SHARE_ENV });
  await new Promise((resolve, reject) => {
    worker.once('exit', resolve);
    worker.once('error', reject);
  });
}

/** A fresh device with the backend's limits; throws saying to run the setup script if there is none. */
export async function testGpuDevice(): Promise<GpuDevice> {
  try {
    // Before the first requestGpuDevice imports `webgpu` (the loader reads the variable once).
    await chooseSwiftShader();
    return await requestGpuDevice();
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new Error(
      `no WebGPU device for the GPU backend's tests (${why}): run bash scripts/setup.sh ` +
        `(installs chromium's SwiftShader and libvulkan1), or set VK_ICD_FILENAMES to a Vulkan driver`,
    );
  }
}

/** The bytes of a GPU buffer (made with COPY_SRC). */
export async function readBuffer(gpu: GpuDevice, buffer: GPUBuffer, bytes = buffer.size): Promise<Uint8Array> {
  const device = gpu.device;
  const staging = device.createBuffer({ size: bytes, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  const encoder = device.createCommandEncoder();
  encoder.copyBufferToBuffer(buffer, 0, staging, 0, bytes);
  device.queue.submit([encoder.finish()]);
  await staging.mapAsync(GPUMapMode.READ);
  const copy = new Uint8Array(staging.getMappedRange().slice(0));
  staging.destroy();
  return copy;
}
