/// <reference types="@webgpu/types" />
// The WebGPU device of the GPU backend: `navigator.gpu` in browsers, the optional `webgpu` package
// (Dawn) in Node. It asks the adapter for its largest buffer and workgroup limits (a model's
// tensors and arena are far above WebGPU's defaults), records why the device was lost, and turns
// WebGPU's faults into LayaErrors that name the limit, the size and the tensor at fault.
import { LayaError, describeError } from '../errors.js';

/** The limits this backend raises to the adapter's maximum. */
const kRaisedLimits = [
  'maxStorageBufferBindingSize',
  'maxBufferSize',
  'maxComputeWorkgroupStorageSize',
  'maxComputeInvocationsPerWorkgroup',
  'maxComputeWorkgroupSizeX',
  'maxStorageBuffersPerShaderStage',
  'maxComputeWorkgroupsPerDimension',
] as const;

type RaisedLimit = (typeof kRaisedLimits)[number];

/**
 * What the kernels need at the least: WebGPU's guaranteed defaults for the workgroup shape
 * (256 invocations, 16 KiB of workgroup memory: attention uses 13.3 KiB) and storage bindings
 * (a step binds at most 5).
 */
const kRequired: Partial<Record<RaisedLimit, number>> = {
  maxComputeWorkgroupStorageSize: 16384,
  maxComputeInvocationsPerWorkgroup: 256,
  maxComputeWorkgroupSizeX: 256,
  maxStorageBuffersPerShaderStage: 5,
};

export interface GpuDeviceOptions {
  /** A GPU to use instead of navigator.gpu or the `webgpu` package (tests inject faulty ones). */
  gpu?: GPU;
  /** Adapter preference; default 'high-performance'. */
  powerPreference?: GPUPowerPreference;
}

/** Why the device was lost, once it is. */
export interface GpuLoss {
  reason: string;
  message: string;
}

/** A GPUDevice with the limits it was granted, its loss, and the checks the backend makes against it. */
export class GpuDevice {
  readonly device: GPUDevice;
  /** Adapter description for messages and benchmarks ("SwiftShader", "nvidia ..."). */
  readonly adapterName: string;
  /** Whether `shader-f16` was granted (the kernels read F16 as packed pairs either way). */
  readonly hasShaderF16: boolean;
  /** Whether `timestamp-query` was granted (step profiles). */
  readonly hasTimestamps: boolean;
  private lossInfo: GpuLoss | null = null;
  private destroyed = false;

  constructor(device: GPUDevice, adapterName: string) {
    this.device = device;
    this.adapterName = adapterName;
    this.hasShaderF16 = device.features.has('shader-f16');
    this.hasTimestamps = device.features.has('timestamp-query');
    void device.lost.then((info) => {
      this.lossInfo = { reason: String(info.reason ?? 'unknown'), message: info.message || 'no message' };
    });
  }

  get limits(): GPUSupportedLimits {
    return this.device.limits;
  }

  /** Why the device was lost, or null while it works. */
  get loss(): GpuLoss | null {
    return this.lossInfo;
  }

  /** Throws if the device is lost or destroyed; `what` is the call ("forward on the GPU"). */
  checkUsable(what: string): void {
    // Our own destroy() also loses the device (reason 'destroyed'): that is a disposal, not a fault.
    if (this.destroyed) throw new LayaError('disposed', `${what}: the WebGPU device was destroyed`);
    if (this.lossInfo !== null) {
      throw new LayaError(
        'internal',
        `${what}: the WebGPU device was lost (${this.lossInfo.reason}: ${this.lossInfo.message}); load the model again`,
      );
    }
  }

  /**
   * Throws if one buffer of `bytes` cannot be made or bound on this device: `what` names it
   * ("tensor 'layers.0.attn.Wqkv.weight'", "the activation arena for 512 tokens").
   */
  checkBufferSize(bytes: number, what: string): void {
    for (const limit of ['maxBufferSize', 'maxStorageBufferBindingSize'] as const) {
      const max = this.device.limits[limit];
      if (bytes > max) {
        throw new LayaError(
          'out_of_memory',
          `${what} needs a GPU buffer of ${bytes} bytes, above this device's ${limit} of ${max} bytes (adapter ${this.adapterName})`,
        );
      }
    }
  }

  /**
   * Runs `make` (buffer creations) inside out-of-memory and validation error scopes; a fault
   * becomes a LayaError naming `what`. `make`'s result is passed to `undo` before throwing.
   */
  async allocate<T>(what: string, make: () => T, undo: (made: T) => void): Promise<T> {
    this.device.pushErrorScope('validation');
    this.device.pushErrorScope('out-of-memory');
    // The scopes are popped whatever make() does, so they never leak onto later calls.
    let made: T | undefined;
    let failure: { error: unknown } | null = null;
    try {
      made = make();
    } catch (error) {
      failure = { error };
    }
    const oom = this.device.popErrorScope();
    const invalid = this.device.popErrorScope();
    const [oomError, validationError] = await Promise.all([oom, invalid]);
    if (failure !== null) throw failure.error;
    if (oomError !== null) {
      undo(made as T);
      throw new LayaError('out_of_memory', `${what}: the GPU is out of memory (${oomError.message})`);
    }
    if (validationError !== null) {
      undo(made as T);
      throw new LayaError('internal', `${what}: WebGPU rejected the allocation (${validationError.message})`);
    }
    return made as T;
  }

  /** Destroys the device (idempotent); later checks say it was destroyed. */
  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.device.destroy();
  }
}

// The Node `webgpu` package's GPU, made once per process: Dawn's instance must outlive every device.
let nodeGpu: Promise<GPU> | null = null;

/**
 * The GPU of Node's `webgpu` package; `name` is another package only in the test of the message a
 * missing one gives. The name is kept in a variable so browser bundlers do not try to resolve the
 * Node-only package; the magic comments stop webpack replacing the import with a failing stub (and
 * warning) and Vite warning.
 */
export async function importNodeGpu(name = 'webgpu'): Promise<GPU> {
  let module: { create: (flags: string[]) => GPU; globals: object };
  try {
    module = (await import(/* webpackIgnore: true */ /* @vite-ignore */ name)) as typeof module;
  } catch (error) {
    throw new LayaError(
      'unsupported_model',
      `backend 'webgpu' in Node needs the optional dependency '${name}' (npm install ${name}): it could not be imported (${describeError(error)})`,
      { cause: error },
    );
  }
  // GPUBufferUsage, GPUMapMode, GPUShaderStage... as the browser has them.
  Object.assign(globalThis, module.globals);
  return module.create([]);
}

/** navigator.gpu in browsers, the `webgpu` package's GPU in Node. */
export async function defaultGpu(): Promise<GPU> {
  const nav = (globalThis as { navigator?: { gpu?: GPU } }).navigator;
  if (nav?.gpu !== undefined) return nav.gpu;
  // Through globalThis: the browser build is type-checked without Node's types.
  const isNode = (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node !== undefined;
  if (!isNode) {
    throw new LayaError('unsupported_model', "backend 'webgpu': this browser has no navigator.gpu (WebGPU needs a secure context and a browser that ships it)");
  }
  nodeGpu ??= importNodeGpu().catch((error: unknown) => {
    nodeGpu = null;
    throw error;
  });
  return nodeGpu;
}

function adapterName(adapter: GPUAdapter): string {
  const info = adapter.info as GPUAdapterInfo | undefined;
  const parts = [info?.vendor, info?.architecture, info?.device, info?.description].filter((p) => p !== undefined && p !== '');
  return parts.length > 0 ? parts.join(' ') : 'unnamed adapter';
}

/** A GPUDevice with the adapter's largest limits, and `shader-f16` / `timestamp-query` where offered. */
export async function requestGpuDevice(options: GpuDeviceOptions = {}): Promise<GpuDevice> {
  const gpu = options.gpu ?? (await defaultGpu());
  let adapter: GPUAdapter | null;
  try {
    adapter = await gpu.requestAdapter({ powerPreference: options.powerPreference ?? 'high-performance' });
  } catch (error) {
    throw new LayaError('unsupported_model', `backend 'webgpu': requesting a WebGPU adapter failed (${describeError(error)})`, { cause: error });
  }
  if (adapter === null) {
    throw new LayaError(
      'unsupported_model',
      "backend 'webgpu': no WebGPU adapter is available (no GPU, or no Vulkan / Metal / D3D12 driver WebGPU can use); use backend 'wasm'",
    );
  }
  const name = adapterName(adapter);
  const requiredLimits: Record<string, number> = {};
  for (const limit of kRaisedLimits) {
    const have = adapter.limits[limit];
    // A browser predating a limit does not report it; it then keeps its default.
    if (typeof have !== 'number') continue;
    const need = kRequired[limit];
    if (need !== undefined && have < need) {
      throw new LayaError(
        'unsupported_model',
        `backend 'webgpu': adapter ${name} has ${limit} ${have}, below the ${need} the kernels need`,
      );
    }
    requiredLimits[limit] = have;
  }
  const requiredFeatures: GPUFeatureName[] = [];
  for (const feature of ['shader-f16', 'timestamp-query'] as const) {
    if (adapter.features.has(feature)) requiredFeatures.push(feature);
  }
  let device: GPUDevice;
  try {
    device = await adapter.requestDevice({ requiredLimits, requiredFeatures, label: 'laya-wasm' });
  } catch (error) {
    throw new LayaError('unsupported_model', `backend 'webgpu': adapter ${name} refused a device (${describeError(error)})`, { cause: error });
  }
  return new GpuDevice(device, name);
}
