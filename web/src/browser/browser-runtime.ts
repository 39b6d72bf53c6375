// The browser side of the Runtime: no directories (pick files instead), the Cache API as the
// download cache, and the wasm module loaded as a classic script (the MODULARIZE output defines a
// global createLayaCore, or createLayaCoreMt for the pthreads build on cross-origin-isolated pages;
// their relaxed-SIMD builds define createLayaCoreRelaxed / createLayaCoreMtRelaxed) unless a bundler
// already provides the factory.
import type { LayaCoreFactory, LayaCoreFactoryOptions } from '../core/laya-core.js';
import { relaxedSibling, relaxedUnavailableReason, type SimdVariant } from '../core/simd.js';
import { threadedModuleBlocker } from '../core/threads.js';
import { LayaError } from '../errors.js';
import type { ResolvedLoadOptions, WasmOptions } from '../options.js';
import { kThreadedModuleFile, locateCommon, type CreatedCore, type Runtime } from '../runtime.js';
import type { CheckpointLocation, CheckpointSource } from '../sources/checkpoint-source.js';
import { HttpLocation } from '../sources/http-location.js';
import { CacheStorageLocation, kDefaultCacheName, type CacheLike } from './cache-storage-location.js';

interface BrowserGlobals {
  caches?: { open(name: string): Promise<CacheLike> };
  createLayaCore?: LayaCoreFactory;
  createLayaCoreMt?: LayaCoreFactory;
  createLayaCoreRelaxed?: LayaCoreFactory;
  createLayaCoreMtRelaxed?: LayaCoreFactory;
  document?: Document;
  importScripts?: (url: string) => void;
  location?: { href: string };
}

const globals = globalThis as unknown as BrowserGlobals;

export const browserRuntime: Runtime = {
  async locate(source: CheckpointSource, options: ResolvedLoadOptions): Promise<CheckpointLocation> {
    const common = locateCommon(source, options);
    if (common === null) {
      throw new LayaError('invalid_request',
        'load: { directory } sources need Node; in a browser pass { files } (e.g. from <input webkitdirectory>) or { url }');
    }
    // Without the Cache API (e.g. an insecure context) the load proceeds uncached.
    if (common instanceof HttpLocation && options.cache !== false && globals.caches !== undefined) {
      const name = typeof options.cache === 'string' ? options.cache : kDefaultCacheName;
      return new CacheStorageLocation(common, await globals.caches.open(name));
    }
    return common;
  },

  relaxedSimdUnavailable: relaxedUnavailableReason('browser'),

  async createCore(wasm: WasmOptions, threads: number, simd: SimdVariant = 'plain'): Promise<CreatedCore> {
    // A relative URL is relative to the page (or worker script), as a script tag reads it.
    const page = globals.location?.href;
    const singleUrl = new URL(String(wasm.moduleUrl ?? new URL('../wasm/laya-core.js', import.meta.url)), page).href;
    let singleThreaded: string | undefined;
    let threaded = false;
    if (threads > 1) {
      // A given factory decides for itself; availableThreads() tells.
      singleThreaded = wasm.factory !== undefined ? undefined : threadedModuleBlocker(wasm,
        'the page is not cross-origin isolated (serve it with Cross-Origin-Opener-Policy: same-origin and ' +
        'Cross-Origin-Embedder-Policy: require-corp), so SharedArrayBuffer is unavailable');
      threaded = singleThreaded === undefined;
    }
    const plainUrl = threaded && wasm.factory === undefined
      ? new URL(String(wasm.threadedModuleUrl ?? new URL(kThreadedModuleFile, singleUrl)), page).href : singleUrl;
    const plainName = threaded ? 'createLayaCoreMt' : 'createLayaCore';
    // The relaxed-SIMD build beside the plain one unless given; if its script fails to load, the
    // plain one runs and plainSimd says why (a page that copied only the plain files still works).
    let moduleUrl = plainUrl;
    let factory = wasm.factory;
    let loaded: SimdVariant = wasm.factory !== undefined || wasm.wasmBinary !== undefined ? simd : 'plain';
    let plainSimd: string | undefined;
    if (factory === undefined && simd === 'relaxed' && wasm.wasmBinary === undefined) {
      const given = threaded ? wasm.relaxedThreadedModuleUrl : wasm.relaxedModuleUrl;
      const relaxedUrl = given !== undefined ? new URL(String(given), page).href : relaxedSibling(plainUrl);
      try {
        factory = await loadFactoryScript(relaxedUrl, threaded ? 'createLayaCoreMtRelaxed' : 'createLayaCoreRelaxed');
        moduleUrl = relaxedUrl;
        loaded = 'relaxed';
      } catch (error) {
        plainSimd = error instanceof Error ? error.message : String(error);
      }
    }
    factory ??= await loadFactoryScript(moduleUrl, plainName);
    const options: LayaCoreFactoryOptions = {};
    if (wasm.wasmBinary !== undefined) {
      options.wasmBinary = wasm.wasmBinary;
    } else {
      const wasmUrl = wasm.wasmUrl !== undefined && !threaded && moduleUrl === singleUrl ? String(wasm.wasmUrl) : undefined;
      options.locateFile = (path) => (path.endsWith('.wasm') && wasmUrl) || new URL(path, moduleUrl).href;
    }
    if (threaded) {
      options.layaWorkers = threads - 1;
      // The workers load this same script; inside a Worker the loader cannot find its own URL.
      options.mainScriptUrlOrBlob = moduleUrl;
    }
    const core = await factory(options);
    return {
      core, simd: loaded,
      ...(singleThreaded === undefined ? {} : { singleThreaded }),
      ...(plainSimd === undefined ? {} : { plainSimd }),
    };
  },

  cores(): number {
    const n = (globalThis as { navigator?: { hardwareConcurrency?: number } }).navigator?.hardwareConcurrency;
    return typeof n === 'number' && n > 0 ? n : 1;
  },
};

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
      globals.importScripts(url);
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
