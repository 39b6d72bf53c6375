// What differs between Node and browsers, behind one small interface so that a browser bundle
// never sees a `node:` import: how a source's files are reached (directories, caches) and how
// the wasm module is instantiated. Implementations: node/node-runtime.ts, browser/browser-runtime.ts.
import { LayaError } from './errors.js';
import type { LayaCoreModule } from './core/laya-core.js';
export type { LayaCoreModule };
import type { ResolvedLoadOptions, WasmOptions } from './options.js';
import type { SimdVariant } from './core/simd.js';
import {
  isFilesSource, isHubSource, isUrlSource,
  type CheckpointLocation, type CheckpointSource,
} from './sources/checkpoint-source.js';
import { FilesLocation } from './sources/files-location.js';
import { baseFileUrls, hubFileUrls } from './sources/file-urls.js';
import { HttpLocation } from './sources/http-location.js';
import { defaultBackoffMs } from './sources/resumable-body.js';

export interface Runtime {
  /** Where the source's files are read from, with the cache option applied. */
  locate(source: CheckpointSource, options: ResolvedLoadOptions): Promise<CheckpointLocation>;
  /**
   * A fresh instance of the wasm module (one per loaded model, so dispose frees its memory): the
   * pthreads build with threads - 1 workers preloaded when threads > 1 and this context can share
   * memory, else the single-threaded build with `singleThreaded` saying why.
   */
  createCore(wasm: WasmOptions, threads: number, simd?: SimdVariant): Promise<CreatedCore>;
  /**
   * The threads that help here, for the default thread count: the logical cores, or (where the
   * engine pads navigator.hardwareConcurrency) how many run at once (browser/useful-threads.ts).
   */
  cores(): number | Promise<number>;
  /** Why relaxed SIMD may be missing here, for onWarning. */
  readonly relaxedSimdUnavailable?: string;
}

/** The pthreads build's loader, beside laya-core.js unless options.wasm.threadedModuleUrl says otherwise. */
export const kThreadedModuleFile = 'laya-core-mt.js';

export interface CreatedCore {
  core: LayaCoreModule;
  /** Why the single-threaded module was used although more threads were asked for. */
  singleThreaded?: string;
  /** Why the plain-SIMD module was used although the relaxed one was chosen (e.g. it is missing). */
  plainSimd?: string;
  /**
   * What the load must be told about the module's memory whatever the threads asked for: a shared
   * memory refused (the single-threaded module runs) or granted with a smaller maximum.
   */
  memoryWarning?: string;
}

/** The sources every runtime reads the same way; null for a directory (runtime-specific). */
export function locateCommon(source: CheckpointSource, options: ResolvedLoadOptions): HttpLocation | FilesLocation | null {
  if (typeof source !== 'object' || source === null) {
    throw new LayaError('invalid_request', 'load: source must be an object: { repo }, { url }, { directory } or { files }');
  }
  const resume = { retries: options.retries, backoffMs: defaultBackoffMs };
  if (isHubSource(source)) return new HttpLocation(hubFileUrls(source), options.fetch, resume);
  if (isUrlSource(source)) return new HttpLocation(baseFileUrls(source), options.fetch, resume);
  if (isFilesSource(source)) return new FilesLocation(source);
  if (typeof (source as { directory?: unknown }).directory === 'string') return null;
  throw new LayaError('invalid_request',
    `load: source must have one of repo, url, directory or files; got keys [${Object.keys(source).join(', ')}]`);
}
