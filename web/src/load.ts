// load() and loadPipeline(): one factory call from a source to a ready object, or a rejection
// with nothing left allocated (docs/architecture.md "Conventions"). Files are opened together (so
// every size, hence the total, is known early) while the wasm module compiles; the four small files
// configure the session; then model.safetensors streams into wasm memory (weights-streamer.ts).
import { readConfigSummary, type LayaConfigSummary } from './config-summary.js';
import { kLayaCoreAbi, type LayaCoreModule, type LayaSessionHandle } from './core/laya-core.js';
import { expectEmptyResult, parseSessionJson } from './core/session-result.js';
import { LayaError, abortError, describeError, throwIfAborted } from './errors.js';
import { LayaModel, LayaPipeline } from './model.js';
import { InThreadEngine } from './engine/in-thread-engine.js';
import { WasmForwards, type ForwardRunner } from './engine/forward-runner.js';
import { resolveLoadOptions, type LoadOptions, type ResolvedLoadOptions } from './options.js';
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
import { chooseGpu, loadWeightsToGpu } from './webgpu/gpu-session.js';

/** An in-thread engine as a load leaves it, with what the model built on it reports. */
export interface LoadedEngine {
  engine: InThreadEngine;
  config: LayaConfigSummary;
  warnings: string[];
}

export async function loadModelWith(runtime: Runtime, source: CheckpointSource, options?: LoadOptions): Promise<LayaModel> {
  const { engine, config, warnings } = await loadEngineWith(runtime, source, options, { withWeights: true });
  return new LayaModel(engine, config, warnings);
}

export async function loadPipelineWith(runtime: Runtime, source: CheckpointSource, options?: LoadOptions): Promise<LayaPipeline> {
  const { engine, config, warnings } = await loadEngineWith(runtime, source, options, { withWeights: false });
  return new LayaPipeline(engine, config, warnings);
}

/**
 * Loads a checkpoint into a fresh wasm module on this thread (with `withWeights: false`, only the
 * configs and tokenizer); rejects with nothing left allocated.
 */
export async function loadEngineWith(runtime: Runtime, source: CheckpointSource, options: LoadOptions | undefined,
                                     { withWeights }: { withWeights: boolean }): Promise<LoadedEngine> {
  const opts = resolveLoadOptions(options);
  const { signal } = opts;
  throwIfAborted(signal);
  const files: CheckpointFileName[] = withWeights ? [...kConfigFiles, kWeightsFile] : [...kConfigFiles];
  const progress = new ProgressTracker(opts.onProgress, files);
  // Every file of the checkpoint, once opened (settled: the finally closes what did open).
  let opening: Promise<OpenedFile[]> | undefined;
  let session: LayaSessionHandle | null = null;
  let core: LayaCoreModule | null = null;
  let forwards: ForwardRunner | null = null;
  try {
    const location = await runtime.locate(source, opts);
    // The files are opened (a store looked up, a revalidation asked, a download begun) while the
    // wasm module compiles: a load from a page's store does not wait for one, then the other.
    opening = openAll(location, files, signal, progress);
    opening.catch(() => undefined);
    const threads = opts.threads ?? requestedThreads(undefined, await runtime.cores());
    const choice = chooseSimd(opts.simd, relaxedSimdSupported(opts.wasm.validate),
                              runtime.relaxedSimdUnavailable ?? 'this engine does not compile relaxed SIMD');
    if (choice.warning !== undefined) opts.onWarning(choice.warning);
    const created = await createCore(runtime, opts.wasm, threads, choice.simd);
    core = created.core;
    checkAbi(core);
    if (created.memoryWarning !== undefined) opts.onWarning(created.memoryWarning);
    const simd = core.simd();
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
    forwards = weights === undefined ? new WasmForwards(session) : await loadWeights(core, session, weights, opts, signal);
    if (weights !== undefined) progress.finish(weights.file);
    const config = readConfigSummary(session, weights?.size ?? 0);
    const warnings = parseSessionJson<unknown>(session.warnings(), 'warnings');
    if (!Array.isArray(warnings) || warnings.some((w) => typeof w !== 'string')) {
      throw new LayaError('internal', 'warnings: the wasm module did not return an array of strings');
    }
    const stored = location.storing?.() ?? Promise.resolve();
    // Integers multiply only q8 weights in wasm; a pipeline (no weights) computes nothing.
    const compute = weights !== undefined && forwards.backend === 'wasm' ? opts.compute : 'f32';
    const engine = new InThreadEngine(core, session, forwards, simd, compute, stored);
    session = null;  // owned by the engine now, and the module and runner with it
    core = null;
    forwards = null;
    for (const warning of warnings) opts.onWarning(warning);
    progress.ready();
    return { engine, config, warnings: warnings as string[] };
  } catch (error) {
    throw signal?.aborted ? abortError(signal) : error;
  } finally {
    forwards?.destroy();
    session?.delete();
    core?.shutDownThreads();
    const opened = await opening?.catch(() => []) ?? [];
    await Promise.all(opened.map((f) => f.reader.close().catch(() => undefined)));
  }
}

/**
 * The weights streamed to where the forward passes will run: the GPU's buffers (options.backend
 * 'webgpu', or 'auto' where a GPU answers), else wasm memory. q8 is a way to hold the weights in
 * wasm memory: with it, 'auto' means wasm.
 */
async function loadWeights(core: LayaCoreModule, session: LayaSessionHandle, weights: OpenedFile,
                           opts: ResolvedLoadOptions, signal: AbortSignal | undefined): Promise<ForwardRunner> {
  const gpu = opts.backend !== 'wasm' && opts.weights !== 'q8' ? await chooseGpu(opts.backend, opts.gpu) : null;
  if (gpu !== null && gpu.device === null) opts.onWarning(`laya-wasm: backend 'auto' runs on wasm: ${gpu.why}`);
  if (gpu?.device != null) return loadWeightsToGpu(session, weights, signal, gpu.device, opts.gpuKernels);
  await streamWeights(core, session, weights, signal, opts.weights, opts.compute).catch(explainOutOfMemory(core, weights, opts.weights));
  throwIfAborted(signal);
  expectEmptyResult(session.finishWeights(), 'finishWeights');
  return new WasmForwards(session);
}

/**
 * The module's surface is the one this package's declaration of it (core/laya-core.ts) was written
 * for: a module from another build is refused here rather than failing later in some call.
 */
function checkAbi(core: LayaCoreModule): void {
  const version: unknown = typeof core.abiVersion === 'function' ? core.abiVersion() : undefined;
  if (version === kLayaCoreAbi) return;
  throw new LayaError('internal',
    `the wasm module's interface is ${version === undefined ? 'unversioned' : `version ${String(version)}`}, but this package ` +
    `needs version ${kLayaCoreAbi}: the module comes from another build of laya-wasm; load the dist/wasm files that came with this package`);
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
