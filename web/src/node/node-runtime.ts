// The Node side of the Runtime: directory sources, the download cache directory, and the wasm
// module loaded with createRequire (MODULARIZE CommonJS output) and given its .wasm bytes read
// with fs (Node 20's global fetch breaks the Emscripten 3.1.6 loader; docs/toolchain.md "Node 20
// and the generated loader").
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { availableParallelism, cpus } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LayaCoreFactory } from '../core/laya-core.js';
import { relaxedSibling, relaxedUnavailableReason, type SimdVariant } from '../core/simd.js';
import { threadedModuleBlocker } from '../core/threads.js';
import { LayaError } from '../errors.js';
import type { ResolvedLoadOptions, WasmOptions } from '../options.js';
import { kThreadedModuleFile, locateCommon, type CreatedCore, type Runtime } from '../runtime.js';
import type { CheckpointLocation, CheckpointSource, DirectorySource } from '../sources/checkpoint-source.js';
import { HttpLocation } from '../sources/http-location.js';
import { StoredLocation } from '../store/stored-location.js';
import { cacheFolderName, cacheRoot } from './cache-folder.js';
import { DirectoryLocation } from './directory-location.js';
import { DirectoryStore } from './directory-store.js';

export const nodeRuntime: Runtime = {
  async locate(source: CheckpointSource, options: ResolvedLoadOptions): Promise<CheckpointLocation> {
    const common = locateCommon(source, options);
    if (common === null) return new DirectoryLocation((source as DirectorySource).directory);
    if (common instanceof HttpLocation && options.cache !== false) {
      const directory = join(cacheRoot(options.cache), cacheFolderName(common.urls.base));
      return new StoredLocation(common, new DirectoryStore(directory, common.urls), { onWarning: options.onWarning });
    }
    return common;
  },

  relaxedSimdUnavailable: relaxedUnavailableReason('node'),

  async createCore(wasm: WasmOptions, threads: number, simd: SimdVariant = 'plain'): Promise<CreatedCore> {
    const layaWorkers = threads - 1;
    if (wasm.factory !== undefined) {
      return { core: await wasm.factory({ ...(wasm.wasmBinary ? { wasmBinary: wasm.wasmBinary } : {}), layaWorkers }) };
    }
    const singlePath = wasm.moduleUrl !== undefined ? toPath(wasm.moduleUrl) : defaultModulePath();
    let singleThreaded: string | undefined;
    let modulePath = singlePath;
    let threadedPath: string | undefined;
    if (threads > 1) {
      threadedPath = wasm.threadedModuleUrl !== undefined
        ? toPath(wasm.threadedModuleUrl) : resolve(dirname(singlePath), kThreadedModuleFile);
      singleThreaded = threadedModuleBlocker(wasm, 'SharedArrayBuffer is not available') ?? denoBlocker()
        ?? (existsSync(threadedPath) ? undefined : `the threaded module ${threadedPath} is missing`);
      if (singleThreaded === undefined) modulePath = threadedPath;
    }
    // The relaxed-SIMD build of the chosen module, beside it unless given (wasmBinary: the bytes
    // given decide).
    let plainSimd: string | undefined;
    if (simd === 'relaxed' && wasm.wasmBinary === undefined) {
      const relaxedPath = modulePath === singlePath
        ? (wasm.relaxedModuleUrl !== undefined ? toPath(wasm.relaxedModuleUrl) : relaxedSibling(singlePath))
        : (wasm.relaxedThreadedModuleUrl !== undefined ? toPath(wasm.relaxedThreadedModuleUrl) : relaxedSibling(threadedPath as string));
      if (existsSync(relaxedPath)) {
        modulePath = relaxedPath;
      } else {
        plainSimd = `the relaxed-SIMD module ${relaxedPath} is missing`;
      }
    }
    const isSingle = modulePath === singlePath;
    if (!existsSync(modulePath)) {
      throw new LayaError('internal', `the wasm module ${modulePath} is missing; build it (npm run build:wasm) or pass options.wasm.moduleUrl`);
    }
    const factory = factoryOf(createRequire(import.meta.url)(modulePath), modulePath);
    const wasmPath = wasm.wasmUrl !== undefined && isSingle ? toPath(wasm.wasmUrl) : modulePath.replace(/\.js$/, '.wasm');
    const wasmBinary = wasm.wasmBinary ?? new Uint8Array(await readFile(wasmPath));
    const threaded = threadedPath !== undefined && singleThreaded === undefined;
    const core = await withoutProcessHandlers(() => factory({ wasmBinary, ...(threaded ? { layaWorkers } : {}) }));
    return {
      core,
      ...(singleThreaded === undefined ? {} : { singleThreaded }),
      ...(plainSimd === undefined ? {} : { plainSimd }),
    };
  },

  cores(): number {
    return typeof availableParallelism === 'function' ? availableParallelism() : cpus().length;
  },
};

/**
 * Runs an Emscripten factory without letting it keep the process-wide handlers that 3.1.6 installs
 * in Node unless linked with -sNODEJS_CATCH_EXIT=0 -sNODEJS_CATCH_REJECTION=0: an
 * 'unhandledRejection' handler that throws (crashing an application that handles rejections
 * itself) and an 'uncaughtException' one, added again for every module instance (one per load).
 * A library must not change how its host process treats errors.
 */
function withoutProcessHandlers<T>(create: () => T): T {
  const events = ['uncaughtException', 'unhandledRejection'];
  const emitter = process as unknown as NodeJS.EventEmitter;
  const before = events.map((event) => new Set(emitter.listeners(event)));
  try {
    return create();
  } finally {
    events.forEach((event, i) => {
      for (const listener of emitter.listeners(event)) {
        if (!before[i]?.has(listener)) emitter.removeListener(event, listener as (...args: unknown[]) => void);
      }
    });
  }
}

/** dist/wasm/laya-core.js, beside this file's folder in the built package. */
export function defaultModulePath(): string {
  return fileURLToPath(new URL('../wasm/laya-core.js', import.meta.url));
}

/** An absolute path from a file URL or a path (relative to the working directory). */
function toPath(location: string | URL): string {
  const text = String(location);
  return text.startsWith('file:') ? fileURLToPath(text) : resolve(text);
}

function factoryOf(exported: unknown, path: string): LayaCoreFactory {
  const candidates = [exported, (exported as { createLayaCore?: unknown })?.createLayaCore,
    (exported as { default?: unknown })?.default];
  const factory = candidates.find((c) => typeof c === 'function');
  if (factory === undefined) throw new LayaError('internal', `${path} does not export the createLayaCore factory`);
  return factory as LayaCoreFactory;
}

/**
 * Deno runs the package through its Node compatibility, but the pthreads module's worker script
 * (Emscripten 3.1.6) assigns self.location, which Deno's workers refuse: there the single-threaded
 * module runs.
 */
function denoBlocker(): string | undefined {
  return 'Deno' in globalThis ? "Deno's workers cannot run the threaded module's worker script (it assigns self.location)" : undefined;
}
