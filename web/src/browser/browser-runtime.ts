// The browser side of the Runtime: no directories (pick files instead), the page's store (the Cache
// API or the OPFS: browser/store/) as the download cache, and the wasm module: by default its
// ES-module build, imported so that bundlers emit its files (esm-module.ts); given
// options.wasm.moduleUrl (or another location), the classic script there (the MODULARIZE output
// defines a global createLayaCore, or createLayaCoreMt for the pthreads build on cross-origin-
// isolated pages; their relaxed-SIMD builds define createLayaCoreRelaxed /
// createLayaCoreMtRelaxed); or the factory given.
import type { LayaCoreFactory, LayaCoreFactoryOptions } from '../core/laya-core.js';
import { relaxedSibling, relaxedUnavailableReason, type SimdVariant } from '../core/simd.js';
import { threadedModuleBlocker } from '../core/threads.js';
import { LayaError } from '../errors.js';
import type { ResolvedLoadOptions, WasmOptions } from '../options.js';
import { kThreadedModuleFile, locateCommon, type CreatedCore, type Runtime } from '../runtime.js';
import type { CheckpointLocation, CheckpointSource } from '../sources/checkpoint-source.js';
import { HttpLocation } from '../sources/http-location.js';
import { importModuleFactory, moduleFileName } from './esm-module.js';
import { memoryForThreads } from './shared-memory.js';
import type { CacheLike } from './store/cache-api-store.js';
import type { DirectoryLike } from './store/opfs-store.js';
import { pageStoreLocation } from './store/page-store.js';
import { usefulThreads } from './useful-threads.js';

interface BrowserGlobals {
  caches?: { open(name: string): Promise<CacheLike> };
  createLayaCore?: LayaCoreFactory;
  createLayaCoreMt?: LayaCoreFactory;
  createLayaCoreRelaxed?: LayaCoreFactory;
  createLayaCoreMtRelaxed?: LayaCoreFactory;
  document?: Document;
  importScripts?: (url: string) => void;
  location?: { href: string };
  navigator?: { userAgent?: string; storage?: { getDirectory?: () => Promise<DirectoryLike> } };
}

const globals = globalThis as unknown as BrowserGlobals;

const kNotIsolated = 'the page is not cross-origin isolated (serve it with Cross-Origin-Opener-Policy: same-origin and ' +
  'Cross-Origin-Embedder-Policy: require-corp), so SharedArrayBuffer is unavailable';

export const browserRuntime: Runtime = {
  async locate(source: CheckpointSource, options: ResolvedLoadOptions): Promise<CheckpointLocation> {
    // Firefox breaks a download larger than its HTTP cache's biggest entry mid-stream unless the
    // fetch bypasses that cache; a checkpoint has no use for it anyway (options.cache stores it).
    const given = options.fetch;
    const common = locateCommon(source, { ...options, fetch: (input, init) => given(input, { ...init, cache: 'no-store' }) });
    if (common === null) {
      throw new LayaError('invalid_request',
        'load: { directory } sources need Node; in a browser pass { files } (e.g. from <input webkitdirectory>) or { url }');
    }
    // Without any store (e.g. an insecure context) the load proceeds unstored, with a warning.
    if (common instanceof HttpLocation && options.cache !== false) return pageStoreLocation(common, options, globals);
    return common;
  },

  relaxedSimdUnavailable: relaxedUnavailableReason('browser'),

  async createCore(wasm: WasmOptions, threads: number, simd: SimdVariant = 'plain'): Promise<CreatedCore> {
    if (wasm.factory === undefined && wasm.moduleUrl === undefined) {
      const located = (['threadedModuleUrl', 'relaxedModuleUrl', 'relaxedThreadedModuleUrl'] as const).find((key) => wasm[key] !== undefined);
      if (located !== undefined) {
        throw new LayaError('invalid_request', `load: options.wasm.${located} places a classic script and needs ` +
          "options.wasm.moduleUrl beside it; with neither, the package's own ES modules load");
      }
      return createPackagedCore(wasm, threads, simd);
    }
    // A relative URL is relative to the page (or worker script), as a script tag reads it. Only a
    // given factory comes without moduleUrl; it finds its own files.
    const page = globals.location?.href;
    const singleUrl = wasm.moduleUrl !== undefined ? new URL(String(wasm.moduleUrl), page).href : undefined;
    // A given factory decides for itself; availableThreads() tells.
    const { singleThreaded, memoryWarning, sharedMemory } = threads > 1 && wasm.factory === undefined
      ? memoryForThreads(threadedModuleBlocker(wasm, kNotIsolated)) : {};
    const threaded = threads > 1 && singleThreaded === undefined;
    const plainUrl = threaded && wasm.factory === undefined && singleUrl !== undefined
      ? new URL(String(wasm.threadedModuleUrl ?? new URL(kThreadedModuleFile, singleUrl)), page).href : singleUrl;
    const plainName = threaded ? 'createLayaCoreMt' : 'createLayaCore';
    // The relaxed-SIMD build beside the plain one unless given; if its script fails to load, the
    // plain one runs and plainSimd says why (a page that copied only the plain files still works).
    let moduleUrl = plainUrl;
    let factory = wasm.factory;
    let plainSimd: string | undefined;
    if (factory === undefined && plainUrl !== undefined && simd === 'relaxed' && wasm.wasmBinary === undefined) {
      const given = threaded ? wasm.relaxedThreadedModuleUrl : wasm.relaxedModuleUrl;
      const relaxedUrl = given !== undefined ? new URL(String(given), page).href : relaxedSibling(plainUrl);
      try {
        factory = await loadFactoryScript(relaxedUrl, threaded ? 'createLayaCoreMtRelaxed' : 'createLayaCoreRelaxed');
        moduleUrl = relaxedUrl;
      } catch (error) {
        plainSimd = error instanceof Error ? error.message : String(error);
      }
    }
    // Without a factory, moduleUrl was given (see above).
    factory ??= await loadFactoryScript(String(moduleUrl), plainName);
    const options: LayaCoreFactoryOptions = {};
    if (wasm.wasmBinary !== undefined) {
      options.wasmBinary = wasm.wasmBinary;
    } else {
      const wasmUrl = wasm.wasmUrl !== undefined && !threaded && moduleUrl === singleUrl ? String(wasm.wasmUrl) : undefined;
      const base = moduleUrl;
      if (base !== undefined || wasmUrl !== undefined) {
        options.locateFile = (path, prefix) => (path.endsWith('.wasm') && wasmUrl) || (base !== undefined ? new URL(path, base).href : prefix + path);
      }
    }
    if (threaded) {
      options.layaWorkers = threads - 1;
      if (sharedMemory !== undefined) options.wasmMemory = sharedMemory;
      // The workers load this same script; inside a Worker the loader cannot find its own URL.
      if (moduleUrl !== undefined) options.mainScriptUrlOrBlob = moduleUrl;
    }
    const core = await factory(options);
    return {
      core,
      ...(singleThreaded === undefined ? {} : { singleThreaded }),
      ...(plainSimd === undefined ? {} : { plainSimd }),
      ...(memoryWarning === undefined ? {} : { memoryWarning }),
    };
  },

  cores(): number | Promise<number> {
    return usefulThreads();
  },
};

/** Runs a classic script's text in the global scope (indirect eval), so its `var`s become globals. */
async function evaluateClassicScript(url: string): Promise<void> {
  const response = await fetch(url).catch((error: unknown) => {
    throw new LayaError('network', `the wasm module script ${url} failed to load: ${String(error)}`, { url });
  });
  if (!response.ok) {
    throw new LayaError('network', `the wasm module script ${url} failed to load: HTTP ${response.status}`, { url, status: response.status });
  }
  const text = await response.text();
  (0, eval)(`${text}\n//# sourceURL=${url}`);
}

/**
 * The module from the package's own ES-module build (no location given): the pthreads build when
 * threads > 1 and memory can be shared, the relaxed-SIMD build when chosen, falling back to the
 * plain one (as the classic path does) if it fails to load.
 */
async function createPackagedCore(wasm: WasmOptions, threads: number, simd: SimdVariant): Promise<CreatedCore> {
  // One memory for every attempt below: a failed attempt leaves it unused, not half-held.
  const { singleThreaded, memoryWarning, sharedMemory } = threads > 1 ? memoryForThreads(threadedModuleBlocker(wasm, kNotIsolated)) : {};
  const threaded = threads > 1 && singleThreaded === undefined;
  const wasmUrl = wasm.wasmUrl !== undefined && !threaded ? new URL(String(wasm.wasmUrl), globals.location?.href).href : undefined;
  // A fresh options object per attempt: the factory adopts it as its Module object. No
  // locateFile unless wasm.wasmUrl says where the .wasm is: with one, the glue stops looking its
  // files up with new URL(..., import.meta.url), the pattern bundlers rewrite. No
  // mainScriptUrlOrBlob either: the workers import the glue by its literal name, which bundlers follow.
  const factoryOptions = (): LayaCoreFactoryOptions => ({
    ...(wasm.wasmBinary !== undefined ? { wasmBinary: wasm.wasmBinary } : {}),
    ...(wasmUrl !== undefined ? { locateFile: (path: string, prefix: string) => (path.endsWith('.wasm') ? wasmUrl : prefix + path) } : {}),
    ...(threaded ? { layaWorkers: threads - 1 } : {}),
    ...(sharedMemory !== undefined ? { wasmMemory: sharedMemory } : {}),
  });
  const extra = {
    ...(singleThreaded === undefined ? {} : { singleThreaded }),
    ...(memoryWarning === undefined ? {} : { memoryWarning }),
  };
  // With wasmBinary the bytes given decide the build; the plain glue runs them.
  if (simd === 'relaxed' && wasm.wasmBinary === undefined) {
    const options = factoryOptions();
    try {
      return { core: await (await importModuleFactory(threaded, 'relaxed'))(options), ...extra };
    } catch (error) {
      // A half-started pthreads module keeps its preloaded workers otherwise.
      (options as { PThread?: { terminateAllThreads?: () => void } }).PThread?.terminateAllThreads?.();
      const why = `${moduleFileName(threaded, 'relaxed')} failed to load: ${error instanceof Error ? error.message : String(error)}`;
      return { ...(await createPlainCore(threaded, factoryOptions())), plainSimd: why, ...extra };
    }
  }
  return { ...(await createPlainCore(threaded, factoryOptions())), ...extra };
}

async function createPlainCore(threaded: boolean, options: LayaCoreFactoryOptions): Promise<Pick<CreatedCore, 'core'>> {
  let factory: LayaCoreFactory;
  try {
    factory = await importModuleFactory(threaded, 'plain');
  } catch (error) {
    throw new LayaError('network', `the wasm module ${moduleFileName(threaded, 'plain')} failed to load: ${error instanceof Error ? error.message : String(error)}`);
  }
  return { core: await factory(options) };
}

type FactoryName = 'createLayaCore' | 'createLayaCoreMt' | 'createLayaCoreRelaxed' | 'createLayaCoreMtRelaxed';

async function loadFactoryScript(url: string, name: FactoryName): Promise<LayaCoreFactory> {
  if (typeof globals[name] !== 'function') {
    if (globals.document !== undefined) {
      const document = globals.document;
      await new Promise<void>((resolve, reject) => {
        const script = document.createElement('script');
        script.src = url;
        script.onload = () => resolve();
        script.onerror = () => reject(new LayaError('network', `the wasm module script ${url} failed to load`, { url }));
        document.head.appendChild(script);
      });
    } else if (typeof globals.importScripts === 'function') {
      try {
        globals.importScripts(url);
      } catch (error) {
        // A module worker (the package's own, worker/laya-worker.ts) has importScripts but refuses
        // it with a TypeError; the classic script then runs as global code, as importScripts would.
        if (!(error instanceof TypeError)) throw error;
        await evaluateClassicScript(url);
      }
    } else {
      throw new LayaError('internal', `cannot load ${url} here: pass options.wasm.factory (${name})`);
    }
  }
  const factory = globals[name];
  if (typeof factory !== 'function') {
    throw new LayaError('internal', `${url} did not define ${name}`);
  }
  return factory;
}
