// options.cache in a page: the store opened (choose-store.ts), persistence asked for when
// options.persist says so, and the network location wrapped in a StoredLocation; or, when the
// page may not store anything, the network location itself and a warning saying why.
import { describeError } from '../../errors.js';
import type { ResolvedLoadOptions } from '../../options.js';
import type { CheckpointLocation } from '../../sources/checkpoint-source.js';
import type { HttpLocation } from '../../sources/http-location.js';
import { openStore, type StorageGlobals } from './choose-store.js';
import { StoredLocation, type EstimateFunction } from '../../store/stored-location.js';

export const kDefaultCacheName = 'laya-wasm-v1';

interface StorageManagerLike {
  estimate?: EstimateFunction;
  persist?: () => Promise<boolean>;
  persisted?: () => Promise<boolean>;
}

export async function pageStoreLocation(network: HttpLocation, options: ResolvedLoadOptions,
                                        globals: StorageGlobals): Promise<CheckpointLocation> {
  const name = typeof options.cache === 'string' ? options.cache : kDefaultCacheName;
  const store = await openStore(globals, name, options.cacheStore);
  if ('refused' in store) {
    options.onWarning(`laya-wasm: the checkpoint is loaded from the network without being stored: the browser refused storage (${store.refused})`);
    return network;
  }
  const storage = globals.navigator?.storage as StorageManagerLike | undefined;
  // Not awaited: an engine may ask the user (Firefox shows a prompt), and the load must not wait on one.
  if (options.persist !== false) void askPersistence(storage, options);
  const estimate = storage?.estimate === undefined ? undefined : () => (storage.estimate as EstimateFunction).call(storage);
  return new StoredLocation(network, store, { onWarning: options.onWarning, estimate });
}

/**
 * navigator.storage.persist(): a stored checkpoint the browser may not evict without asking the
 * user. The answer goes to options.persist when it is a function, whenever the browser gives it
 * (during or after the load); a refusal is also a warning.
 */
async function askPersistence(storage: StorageManagerLike | undefined, options: ResolvedLoadOptions): Promise<void> {
  let granted = false;
  let why = 'navigator.storage.persist is missing';
  if (storage?.persist !== undefined) {
    try {
      granted = (await storage.persisted?.call(storage)) === true || await storage.persist.call(storage);
      why = 'the browser said no';
    } catch (error) {
      why = describeError(error);
    }
  }
  if (!granted) options.onWarning(`laya-wasm: persistent storage was not granted (${why}): the browser may evict the stored checkpoint, which then downloads again`);
  if (typeof options.persist === 'function') options.persist(granted);
}
