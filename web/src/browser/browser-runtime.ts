// The browser side of the Runtime: no directories (pick files instead), the Cache API as the
// download cache, and the wasm module loaded as a classic script (the MODULARIZE output defines a
// global createLayaCore) unless a bundler already provides the factory.
import type { LayaCoreFactory, LayaCoreFactoryOptions, LayaCoreModule } from '../core/laya-core.js';
import { LayaError } from '../errors.js';
import type { ResolvedLoadOptions, WasmOptions } from '../options.js';
import { locateCommon, type Runtime } from '../runtime.js';
import type { CheckpointLocation, CheckpointSource } from '../sources/checkpoint-source.js';
import { HttpLocation } from '../sources/http-location.js';
import { CacheStorageLocation, kDefaultCacheName, type CacheLike } from './cache-storage-location.js';

interface BrowserGlobals {
  caches?: { open(name: string): Promise<CacheLike> };
  createLayaCore?: LayaCoreFactory;
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

  async createCore(wasm: WasmOptions): Promise<LayaCoreModule> {
    // A relative moduleUrl is relative to the page (or worker script), as a script tag reads it.
    const moduleUrl = new URL(String(wasm.moduleUrl ?? new URL('../wasm/laya-core.js', import.meta.url)),
      globals.location?.href).href;
    const factory = wasm.factory ?? await loadFactoryScript(moduleUrl);
    const options: LayaCoreFactoryOptions = {};
    if (wasm.wasmBinary !== undefined) {
      options.wasmBinary = wasm.wasmBinary;
    } else {
      const wasmUrl = wasm.wasmUrl !== undefined ? String(wasm.wasmUrl) : undefined;
      options.locateFile = (path) => wasmUrl ?? new URL(path, moduleUrl).href;
    }
    return factory(options);
  },
};

async function loadFactoryScript(url: string): Promise<LayaCoreFactory> {
  if (typeof globals.createLayaCore !== 'function') {
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
      throw new LayaError('internal', `cannot load ${url} here: pass options.wasm.factory (createLayaCore)`);
    }
  }
  if (typeof globals.createLayaCore !== 'function') {
    throw new LayaError('internal', `${url} did not define createLayaCore`);
  }
  return globals.createLayaCore;
}
