// The one options object of load() / loadPipeline(), its defaults, and the progress events.
import { type GemmChoice, kGemmChoices } from './webgpu/gemm-choice.js';
import { LayaError } from './errors.js';
import type { LayaCoreFactory } from './core/laya-core.js';
import type { SimdOption, ValidateFunction } from './core/simd.js';
import type { FetchFunction } from './sources/http-location.js';
import { kDefaultRetries } from './sources/resumable-body.js';

/** Progress of a load, one callback with a discriminated union. */
/** How weight matrices multiply: LoadOptions.compute. */
export type Compute = 'f32' | 'int8';

export type LoadProgressEvent =
  /**
   * Bytes of one file received so far (monotonic; `total` is its size). `fromStore`: read from the
   * page's store or Node's cache directory (options.cache), not downloaded.
   */
  | { type: 'download'; file: string; loaded: number; total: number; fromStore?: true }
  /** Bytes of every file together (monotonic; sent once every size is known). */
  | { type: 'total'; loaded: number; total: number }
  /** The model is bound and about to be returned. */
  | { type: 'ready' };

/**
 * Where the wasm module comes from. Default: the package's dist/wasm/: laya-core.js / .wasm (SIMD,
 * one thread) and laya-core-mt.js / .wasm / .worker.js (SIMD + pthreads, used when threads > 1),
 * and their relaxed-SIMD builds laya-core-relaxed.* and laya-core-mt-relaxed.* (LoadOptions.simd).
 * Node loads those CommonJS .js files; browsers import the ES-module builds laya-core*.mjs beside
 * them (module workers laya-core-mt*.worker.mjs), whose `new URL('laya-core*.wasm',
 * import.meta.url)` Vite and webpack 5 follow, emitting the .wasm and worker files themselves; only
 * the build chosen at load is fetched. A bundler that does not follow `new URL(...)` (esbuild)
 * needs dist/wasm/*.wasm and *.mjs copied beside the bundle, or `moduleUrl`: in a browser the *Url
 * options below load the classic .js scripts instead, from wherever they are served. Either way a
 * missing relaxed-SIMD module falls back to the plain one.
 */
export interface WasmOptions {
  /**
   * A factory already loaded (e.g. by a bundler): createLayaCore, or createLayaCoreMt for threads
   * (it is given `layaWorkers: threads - 1`).
   */
  factory?: LayaCoreFactory;
  /**
   * Path or URL of laya-core.js (Node: required with createRequire; browsers: loaded by a script
   * tag, and needed there by the other *ModuleUrl options).
   */
  moduleUrl?: string | URL;
  /** The .wasm bytes (otherwise Node reads them beside laya-core.js). */
  wasmBinary?: Uint8Array;
  /** URL of laya-core.wasm (browsers; default: beside laya-core.js). */
  wasmUrl?: string | URL;
  /** Path or URL of laya-core-mt.js (default: beside moduleUrl); its .wasm and .worker.js sit beside it. */
  threadedModuleUrl?: string | URL;
  /** Path or URL of laya-core-relaxed.js (default: beside moduleUrl). */
  relaxedModuleUrl?: string | URL;
  /** Path or URL of laya-core-mt-relaxed.js (default: beside threadedModuleUrl, else beside moduleUrl). */
  relaxedThreadedModuleUrl?: string | URL;
  /**
   * How relaxed-SIMD support is tested: given a probe module using f32x4.relaxed_madd, true when
   * this engine compiles it. Default WebAssembly.validate (for tests and unusual hosts).
   */
  validate?: ValidateFunction;
}

/** The options of load() and loadPipeline(); every one is optional. */
export interface LoadOptions {
  /** Progress events; see LoadProgressEvent. */
  onProgress?: (event: LoadProgressEvent) => void;
  /** Aborting stops the download, frees what was allocated, and rejects with an AbortError. */
  signal?: AbortSignal;
  /**
   * Keep downloaded files (Hub and URL sources only). Default false.
   *
   * Node: a directory path (true = the user cache dir, $XDG_CACHE_HOME/laya-wasm or
   * ~/.cache/laya-wasm), each file beside its record `<file>.laya.json`. Browsers: the page's
   * persistent storage (the origin private file system or the Cache API, chosen per engine:
   * `cacheStore`); true = the store "laya-wasm-v1", a string names another.
   *
   * Both: a first load reads each file once, each chunk going into memory (or the GPU buffers) as
   * it arrives while the same bytes are written to the store. A file is stored only when every
   * byte arrived and it reads back at its full length; a failure or an abort removes it. A stored
   * file is used only when its length is the one recorded with it (a torn or evicted entry
   * downloads again) and, when the server gave an ETag or Last-Modified, after a conditional
   * request: 304 reads the store, a changed file downloads again and replaces it, and offline the
   * stored copy serves, with a warning.
   *
   * load() resolves when the last byte is in memory; the store's commit (the last writes, a flush
   * to disk, the record) runs after it, and `model.stored` settles when it is done: await it before
   * telling a user the model is available offline, and in Node before the process exits. A page
   * closed before then stores nothing (the next visit downloads again). Storage that cannot be
   * used (quota too small, QuotaExceededError mid-write or during the commit, a private window or
   * opaque origin; in Node ENOSPC, EACCES) never fails a load: it goes on from the network, and
   * onWarning says why (in a page with the bytes needed and those available). Node also stores a
   * file sent without a Content-Length; a page loads such a file without storing it.
   */
  cache?: boolean | string;
  /**
   * Browsers, with cache: which store. 'auto' (default): the origin private file system (OPFS)
   * wherever the page can write it, else the Cache API (WebKitGTK as shipped; a page without
   * workers on an engine without `createWritable()`). 'opfs' or 'cache-api' force one. The OPFS
   * loads faster from the store in every engine tested (docs/performance.md).
   *
   * The OPFS is written and read through sync access handles, which only a dedicated worker may
   * hold. On a page's thread each file is opened by a small worker of the store's (started from a
   * Blob URL: the package ships no extra file), which reads straight into wasm memory where that
   * memory is shared (cross-origin isolated, threads) and hands buffers over elsewhere. With
   * `worker: true` the package's own worker reads with handles of its own, straight into its wasm
   * memory; it writes with them too in Firefox (where a nested worker now and then never runs its
   * script), while in Chromium the writes go to a nested worker (on the load's own thread they
   * hold its download up). A store worker that does not answer
   * within 10 s is given up: the store then writes with `createWritable()` and reads File slices.
   * WebKitGTK refuses sync access handles (NotSupportedError), so there the store always takes
   * that route (Safari 15.2+ has them).
   */
  cacheStore?: 'auto' | 'cache-api' | 'opfs';
  /**
   * Browsers, with cache: ask navigator.storage.persist() so the browser does not evict the stored
   * checkpoint unasked. A function is also told whether it was granted, when the browser answers
   * (the load does not wait: Firefox asks the user); a refusal is a warning. Default false.
   */
  persist?: boolean | ((granted: boolean) => void);
  /** The fetch used for Hub and URL sources. Default globalThis.fetch. */
  fetch?: FetchFunction;
  /**
   * How many times one file's download (Hub and URL sources) may be resumed with an HTTP Range
   * request after its connection drops, each after a short wait (0.25 s, 0.5 s, 1 s, ...; an abort
   * ends the wait). The bytes already received stay where they are and the rest continues after
   * them (If-Range guards against a file that changed meanwhile). Files of known size whose body is not compressed resume (the weights always have a
   * size); a server that ignores Range, a file that changed meanwhile (ETag or Last-Modified), or
   * running out of retries fails the load with a `network` error naming the file and the byte
   * offset. 0 turns resuming off. Default 3.
   */
  retries?: number;
  /**
   * Told of each load-time warning, e.g. temperatures clamped to [0.5, 5] (laya-spec §5.1), which
   * upstream reports as a RuntimeWarning. Default console.warn. The model's `warnings` keeps them.
   */
  onWarning?: (message: string) => void;
  /**
   * Threads for the forward passes, the calling thread included. Default: the machine's logical
   * cores, at most 4; in WebKit (Safari, every iOS browser), whose navigator.hardwareConcurrency
   * is a padded figure, the cores counted once per page by running busy workers (at least 2,
   * at most the figure). `model.threads` says what runs. More than 1 needs SharedArrayBuffer: always
   * there in Node; in browsers only on a cross-origin-isolated page (served with
   * `Cross-Origin-Opener-Policy: same-origin` and `Cross-Origin-Embedder-Policy: require-corp`),
   * and not in WebKitGTK. Where it is missing the model runs on one thread (the single-threaded
   * SIMD module) and onWarning says why, unless threads was left to default. An engine that refuses
   * a shared memory with the module's 4 GiB maximum (iOS) gets a smaller one, stepping down by
   * 128 MiB, or the single-threaded module; onWarning says which, always.
   * Answers are bit-identical for any thread count. Idle workers sleep; in Node they never keep
   * the process alive; dispose() ends them. The pthreads build is
   * dist/wasm/laya-core-mt.{js,wasm,worker.js} (WasmOptions).
   */
  threads?: number;
  /** Where the wasm module comes from. */
  wasm?: WasmOptions;
  /**
   * Which build of the module runs. 'auto' (default): the relaxed-SIMD one (fused multiply-add in
   * the GEMM and attention: faster on CPUs with FMA) where the engine compiles relaxed SIMD
   * (Chrome 114+, Firefox 146+, Node 22+, Node 20 with --experimental-wasm-relaxed-simd, which the
   * CLI sets itself), else the plain-SIMD one. Support is tested by validating an 82-byte probe
   * module that uses exactly `f32x4.relaxed_madd`, so Safari and plain Node 20 get the plain-SIMD
   * build. 'relaxed': the same, and onWarning says why when it cannot. 'plain': always the
   * plain-SIMD build. `model.simd` tells which runs. Results of both agree within rounding (1e-4
   * of the reference); within one build they are bit-identical for any thread count.
   */
  simd?: SimdOption;
  /**
   * How the weights are held. 'stored' (default): as the file stores them (F32, F16, BF16, or q8
   * for a q8 checkpoint). 'q8': an F32 / F16 / BF16 checkpoint is quantized to q8 (8-bit integers,
   * one scale per 64 inputs; docs/q8-format.md) while it streams in through a 1 MiB window into a
   * buffer planned at the q8 size, so memory after load is about 1.07 bytes per parameter (half
   * of F16; `model.memory().weightsBytes` shows it). It rounds as `laya-wasm quantize` does, so
   * both give the same bits. A q8 checkpoint loads as it is either way. wasm backend only.
   */
  weights?: 'stored' | 'q8';
  /**
   * How the weight matrices multiply. 'f32' (default): in f32, whatever the weights' format, for
   * upstream's answers. 'int8': the q8 weights (a q8 checkpoint, or a float one quantized at load,
   * which this implies) times activations quantized per row to 16 bits, summed exactly in
   * integers per 64 inputs: faster on CPUs, answers within about 1e-4 in probability of f32 compute
   * on the same q8 weights (docs/performance.md). `model.compute` says which runs. wasm backend only.
   */
  compute?: Compute;
  /**
   * Browsers: load and run the model in a module Worker the package starts itself
   * (dist/worker/laya-worker.js, created with `new Worker(new URL('./laya-worker.js',
   * import.meta.url), { type: 'module' })`, which Vite and webpack 5 follow), so a forward pass
   * never blocks the page. The model has the same methods and types; results cross as transferred
   * typed arrays; progress, warnings and errors (the same LayaError codes and messages) arrive as
   * without it; an abort stops a forward pass in flight (CallOptions.signal); `memory()` and
   * `profile()` report as of the last call answered. dispose() ends the worker, except that a
   * model disposed while its store still commits (`cache`) keeps its worker, the model freed,
   * until `model.stored` settles, at most 60 s. Threads run inside it on a cross-origin-isolated
   * page. Options that are functions (fetch, wasm.factory, wasm.validate) cannot cross into it
   * and are refused. Node refuses it with an `invalid_request` error: run load() inside your own
   * worker_threads Worker there. Default false.
   */
  worker?: boolean;
  /**
   * Where the forward passes run. 'wasm' (default): the CPU engine in WebAssembly. 'webgpu': the
   * GPU through WebGPU (navigator.gpu in browsers; in Node the optional `webgpu` package, Dawn, on
   * Vulkan / Metal / D3D12). The C++ engine still owns the model: it checks the checkpoint, builds
   * the graphs and plans each bucket's one GPU arena; the steps run as WGSL compute passes.
   * model.safetensors streams from the download straight into the tensors' GPU buffers (F16 stays
   * 16-bit there), so after load the weights are held once, on the GPU
   * (`model.memory().gpuWeightsBytes`; `weightsBytes` is 0). Every method works, with the same
   * answer code; outputs agree within 1e-4 of the reference. 'auto': WebGPU when an adapter can
   * hold the model, else wasm, with onWarning saying why. `model.backend` tells which runs.
   *
   * Faults are LayaErrors: no adapter, or limits below the kernels' needs (`unsupported_model`);
   * an arena or tensor above the device's binding limit (`out_of_memory`, naming the limit and the
   * size); a device lost during or after load (every later call fails naming the loss; dispose()
   * still frees everything). 'wasm' stays the default until the GPU path has been measured on real
   * GPUs: so far it has run only on SwiftShader, a CPU emulation (docs/performance.md "WebGPU").
   */
  backend?: BackendOption;
  /** backend 'webgpu' / 'auto': a GPU object to use instead of navigator.gpu or the `webgpu` package. */
  gpu?: unknown;
  /**
   * backend 'webgpu' / 'auto': kernel variants, for benchmarks (docs/architecture.md "WebGPU
   * kernels"). The default is what users get.
   */
  gpuKernels?: GpuKernelOptions;
}

/**
 * WebGPU kernel variants (LoadOptions.gpuKernels). Every choice gives the same answers within the
 * backend's tolerance (each is tested against the reference at awkward sizes on SwiftShader);
 * only the speed differs.
 */
export interface GpuKernelOptions {
  /**
   * 'auto' (default: the widest register tile still giving 256 workgroups for each bucket's rows),
   * 'scalar' (the first, untiled GEMM), or one tile ('t32x32', 't32x64', 't64x64', 't128x64',
   * 't64x128', 't32x128').
   */
  gemm?: GemmChoice;
  /** 'auto' (default: F16 weights staged through shader-f16 where the adapter has it) or 'off'. */
  f16?: 'auto' | 'off';
}

/** Where the forward passes run: LoadOptions.backend. */
export type BackendOption = 'wasm' | 'webgpu' | 'auto';

export interface ResolvedLoadOptions {
  onProgress: (event: LoadProgressEvent) => void;
  onWarning: (message: string) => void;
  signal: AbortSignal | undefined;
  cache: boolean | string;
  cacheStore: 'auto' | 'cache-api' | 'opfs';
  persist: boolean | ((granted: boolean) => void);
  fetch: FetchFunction;
  retries: number;
  /** undefined: the default for the machine. */
  threads: number | undefined;
  wasm: WasmOptions;
  weights: 'stored' | 'q8';
  compute: Compute;
  simd: SimdOption;
  backend: BackendOption;
  gpu: unknown;
  gpuKernels: GpuKernelOptions;
}

function checkGpuKernels(k: unknown): GpuKernelOptions {
  if (k === undefined) return {};
  if (typeof k !== 'object' || k === null) throw new LayaError('invalid_request', 'load: options.gpuKernels must be an object');
  const { gemm, f16, ...rest } = k as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length > 0) throw new LayaError('invalid_request', `load: options.gpuKernels has no option ${unknown.map((u) => `'${u}'`).join(', ')} (it has 'gemm' and 'f16')`);
  if (gemm !== undefined && !kGemmChoices.includes(gemm as GemmChoice)) {
    throw new LayaError('invalid_request', `load: options.gpuKernels.gemm must be one of ${kGemmChoices.map((c) => `'${c}'`).join(', ')}, got ${String(gemm)}`);
  }
  if (f16 !== undefined && f16 !== 'auto' && f16 !== 'off') {
    throw new LayaError('invalid_request', `load: options.gpuKernels.f16 must be 'auto' or 'off', got ${String(f16)}`);
  }
  return k as GpuKernelOptions;
}

export function resolveLoadOptions(options: LoadOptions | undefined): ResolvedLoadOptions {
  const o = options ?? {};
  if (typeof o !== 'object') throw new LayaError('invalid_request', 'load: options must be an object');
  if (o.onProgress !== undefined && typeof o.onProgress !== 'function') {
    throw new LayaError('invalid_request', 'load: options.onProgress must be a function');
  }
  if (o.onWarning !== undefined && typeof o.onWarning !== 'function') {
    throw new LayaError('invalid_request', 'load: options.onWarning must be a function');
  }
  if (o.cache !== undefined && typeof o.cache !== 'boolean' && (typeof o.cache !== 'string' || o.cache === '')) {
    throw new LayaError('invalid_request', 'load: options.cache must be a boolean or a non-empty string');
  }
  if (o.cacheStore !== undefined && o.cacheStore !== 'auto' && o.cacheStore !== 'cache-api' && o.cacheStore !== 'opfs') {
    throw new LayaError('invalid_request', `load: options.cacheStore must be 'auto', 'cache-api' or 'opfs', got ${String(o.cacheStore)}`);
  }
  if (o.persist !== undefined && typeof o.persist !== 'boolean' && typeof o.persist !== 'function') {
    throw new LayaError('invalid_request', 'load: options.persist must be a boolean or a function');
  }
  if (o.retries !== undefined && (!Number.isInteger(o.retries) || o.retries < 0)) {
    throw new LayaError('invalid_request', `load: options.retries must be a non-negative integer, got ${String(o.retries)}`);
  }
  if (o.threads !== undefined && (!Number.isInteger(o.threads) || o.threads < 1)) {
    throw new LayaError('invalid_request', `load: options.threads must be a positive integer, got ${String(o.threads)}`);
  }
  if (o.weights !== undefined && o.weights !== 'stored' && o.weights !== 'q8') {
    throw new LayaError('invalid_request', `load: options.weights must be 'stored' or 'q8', got ${String(o.weights)}`);
  }
  if (o.backend !== undefined && o.backend !== 'wasm' && o.backend !== 'webgpu' && o.backend !== 'auto') {
    throw new LayaError('invalid_request', `load: options.backend must be 'wasm', 'webgpu' or 'auto', got ${String(o.backend)}`);
  }
  if (o.compute !== undefined && o.compute !== 'f32' && o.compute !== 'int8') {
    throw new LayaError('invalid_request', `load: options.compute must be 'f32' or 'int8', got ${String(o.compute)}`);
  }
  if (o.compute === 'int8' && o.weights === 'stored') {
    throw new LayaError('invalid_request', "load: compute 'int8' multiplies q8 weights: leave options.weights unset or 'q8' (a q8 checkpoint loads as it is)");
  }
  if (o.compute === 'int8' && o.backend !== undefined && o.backend !== 'wasm') {
    throw new LayaError('invalid_request', `load: compute 'int8' runs in wasm; backend '${o.backend}' computes in f32`);
  }
  if (o.backend === 'webgpu' && o.weights === 'q8') {
    throw new LayaError('invalid_request', "load: weights 'q8' holds the weights in wasm memory; backend 'webgpu' keeps the checkpoint's dtypes on the GPU");
  }
  if (o.worker !== undefined && typeof o.worker !== 'boolean') {
    throw new LayaError('invalid_request', `load: options.worker must be a boolean, got ${String(o.worker)}`);
  }
  if (o.simd !== undefined && o.simd !== 'auto' && o.simd !== 'relaxed' && o.simd !== 'plain') {
    throw new LayaError('invalid_request', `load: options.simd must be 'auto', 'relaxed' or 'plain', got ${String(o.simd)}`);
  }
  const fetchFn = o.fetch ?? (typeof fetch === 'function' ? (input: string, init?: RequestInit) => fetch(input, init) : undefined);
  return {
    onProgress: o.onProgress ?? (() => undefined),
    onWarning: o.onWarning ?? ((message: string) => console.warn(message)),
    signal: o.signal,
    cache: o.cache ?? false,
    cacheStore: o.cacheStore ?? 'auto',
    persist: o.persist ?? false,
    fetch: fetchFn ?? (() => Promise.reject(new Error('no fetch function: pass options.fetch'))),
    retries: o.retries ?? kDefaultRetries,
    threads: o.threads,
    wasm: o.wasm ?? {},
    weights: o.weights ?? (o.compute === 'int8' ? 'q8' : 'stored'),
    compute: o.compute ?? 'f32',
    simd: o.simd ?? 'auto',
    backend: o.backend ?? 'wasm',
    gpu: o.gpu,
    gpuKernels: checkGpuKernels(o.gpuKernels),
  };
}
