// load() and loadPipeline(): one factory call from a source to a ready object, or a rejection
// with nothing left allocated (docs/architecture.md "Conventions"). Files are opened together (so
// every size, hence the total, is known early) while the wasm module compiles; the four small files
// configure the session; then model.safetensors streams into wasm memory (weights-streamer.ts).
import { readConfigSummary } from './config-summary.js';
import type { LayaCoreModule, LayaSessionHandle } from './core/laya-core.js';
import { expectEmptyResult, parseSessionJson } from './core/session-result.js';
import { LayaError, abortError, describeError, throwIfAborted } from './errors.js';
import { LayaModel, LayaPipeline } from './model.js';
import { resolveLoadOptions, type LoadOptions } from './options.js';
import { ProgressTracker } from './progress.js';
import type { CreatedCore, Runtime } from './runtime.js';
import { chooseSimd, relaxedSimdSupported, type SimdVariant } from './core/simd.js';
import { explainOutOfMemory } from './core/out-of-memory.js';
import { applyThreads, requestedThreads } from './core/threads.js';
import {
  kConfigFiles, kWeightsFile,
  type CheckpointFileName, type CheckpointLocation, type CheckpointSource, type OpenedFile,
} from './sources/checkpoint-source.js';
import { streamWeights } from './weights-streamer.js';
import { chooseGpu, loadWeightsToGpu, type GpuSession } from './webgpu/gpu-session.js';

export async function loadModelWith(runtime: Runtime, source: CheckpointSource, options?: LoadOptions): Promise<LayaModel> {
  return loadWith(runtime, source, options, true) as Promise<LayaModel>;
}

export async function loadPipelineWith(runtime: Runtime, source: CheckpointSource, options?: LoadOptions): Promise<LayaPipeline> {
  return loadWith(runtime, source, options, false);
}

async function loadWith(runtime: Runtime, source: CheckpointSource, options: LoadOptions | undefined,
                        withWeights: boolean): Promise<LayaPipeline> {
  const opts = resolveLoadOptions(options);
  const { signal } = opts;
  throwIfAborted(signal);
  const files: CheckpointFileName[] = withWeights ? [...kConfigFiles, kWeightsFile] : [...kConfigFiles];
  const progress = new ProgressTracker(opts.onProgress, files);
  // Every file of the checkpoint, once opened (settled: the finally closes what did open).
  let opening: Promise<OpenedFile[]> | undefined;
  let session: LayaSessionHandle | null = null;
  let core: LayaCoreModule | null = null;
  let gpu: GpuSession | null = null;
  try {
    const location = await runtime.locate(source, opts);
    // The files are opened (a store looked up, a revalidation asked, a download begun) while the
    // wasm module compiles: a load from a page's store no longer waits for one, then the other.
    opening = openAll(location, files, signal, progress);
    opening.catch(() => undefined);
    const threads = opts.threads ?? requestedThreads(undefined, await runtime.cores());
    const choice = chooseSimd(opts.simd, relaxedSimdSupported(opts.wasm.validate),
                              runtime.relaxedSimdUnavailable ?? 'this engine does not compile relaxed SIMD');
    if (choice.warning !== undefined) opts.onWarning(choice.warning);
    const created = await createCore(runtime, opts.wasm, threads, choice.simd);
    core = created.core;
    if (created.memoryWarning !== undefined) opts.onWarning(created.memoryWarning);
    // The module says which build it is; modules from before issue 15 are plain.
    const simd: SimdVariant = core.simd?.() ?? created.simd ?? 'plain';
    if (opts.simd === 'relaxed' && choice.simd === 'relaxed' && simd !== 'relaxed') {
      opts.onWarning(`laya-wasm: running the plain-SIMD module, not the relaxed-SIMD one asked for: ${
        created.plainSimd ?? 'the wasm module given is the plain-SIMD build'}`);
    }
    const granted = applyThreads(core, threads, created.singleThreaded ?? 'the wasm module has fewer workers');
    // Falling back is worth a warning only when the caller asked for threads.
    if (granted.warning !== undefined && opts.threads !== undefined) opts.onWarning(granted.warning);
    throwIfAborted(signal);
    session = new core.LayaSession();

    const opened = await opening;
    const text = async (file: OpenedFile): Promise<string> => {
      const bytes = await file.reader.readRest();
      progress.finish(file.file);
      return decodeUtf8(bytes, file);
    };
    const [rlAgentConfig = '', encoderConfig = '', tokenizerJson = '', tokenizerConfig = ''] =
      await Promise.all(opened.slice(0, kConfigFiles.length).map(text));
    throwIfAborted(signal);
    expectEmptyResult(session.configure(rlAgentConfig, encoderConfig, tokenizerJson, tokenizerConfig), 'configure');

    const weights = opened[kConfigFiles.length];
    if (weights !== undefined) {
      // q8 is a way to hold the weights in wasm memory: with it, 'auto' means wasm.
      const device = opts.backend !== 'wasm' && opts.weights !== 'q8' ? await chooseGpu(opts.backend, opts.gpu) : null;
      if (device !== null && device.device === null) {
        opts.onWarning(`laya-wasm: backend 'auto' runs on wasm: ${device.why}`);
      }
      if (device?.device != null) {
        gpu = await loadWeightsToGpu(session, weights, signal, device.device, opts.gpuKernels);
        progress.finish(weights.file);
      } else {
        await streamWeights(core, session, weights, signal, opts.weights).catch(explainOutOfMemory(core, weights, opts.weights));
        progress.finish(weights.file);
        throwIfAborted(signal);
        expectEmptyResult(session.finishWeights(), 'finishWeights');
      }
    }
    const config = readConfigSummary(session, weights?.size ?? 0);
    const warnings = parseSessionJson<unknown>(session.warnings(), 'warnings');
    if (!Array.isArray(warnings) || warnings.some((w) => typeof w !== 'string')) {
      throw new LayaError('internal', 'warnings: the wasm module did not return an array of strings');
    }
    const handle = gpu === null ? { core, session, simd } : { core, session, simd, gpu };
    const stored = location.storing?.() ?? Promise.resolve();
    const loaded = withWeights ? new LayaModel(handle, config, warnings, stored) : new LayaPipeline(handle, config, warnings, stored);
    session = null;  // owned by `loaded` now, and the module with it
    core = null;
    gpu = null;
    for (const warning of warnings) opts.onWarning(warning);
    progress.ready();
    return loaded;
  } catch (error) {
    throw signal?.aborted ? abortError(signal) : error;
  } finally {
    gpu?.destroy();
    session?.delete();
    core?.shutDownThreads();
    const opened = await opening?.catch(() => []) ?? [];
    await Promise.all(opened.map((f) => f.reader.close().catch(() => undefined)));
  }
}

async function createCore(runtime: Runtime, wasm: LoadOptions['wasm'] & object, threads: number,
                          simd: SimdVariant): Promise<CreatedCore> {
  try {
    return await runtime.createCore(wasm, threads, simd);
  } catch (error) {
    if (error instanceof LayaError) throw error;
    throw new LayaError('internal', `loading the wasm module failed: ${describeError(error)}`, { cause: error });
  }
}

/** Opens every file at once; if any fails, closes the others and throws the first failure. */
async function openAll(location: CheckpointLocation, files: readonly CheckpointFileName[],
                       signal: AbortSignal | undefined, progress: ProgressTracker): Promise<OpenedFile[]> {
  const settled = await Promise.allSettled(files.map((file) => location.open(file, {
    signal,
    needSize: file === kWeightsFile,
    onSize: (size) => progress.setSize(file, size),
    onBytes: (bytes) => progress.add(file, bytes),
  })));
  const failure = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failure !== undefined) {
    await Promise.all(settled.map((s) => s.status === 'fulfilled' ? s.value.reader.close().catch(() => undefined) : undefined));
    throw failure.reason;
  }
  const opened = settled.map((s) => (s as PromiseFulfilledResult<OpenedFile>).value);
  for (const file of opened) {
    progress.setSize(file.file, file.size);
    if (file.fromStore === true) progress.setFromStore(file.file);
  }
  return opened;
}

function decodeUtf8(bytes: Uint8Array, file: OpenedFile): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new LayaError('invalid_checkpoint', `${file.file}: ${file.location} is not valid UTF-8 text`, { file: file.file });
  }
}
