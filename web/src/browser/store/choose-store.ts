// Which WeightStore a page gets: options.cacheStore, or for 'auto' the origin private file system,
// falling back to the Cache API when the OPFS is missing or refused. Storage that is refused
// altogether (an opaque origin, a private window) means no store: the load goes on from the
// network and onWarning says why.
import { CacheApiStore, type CacheApiRead, type CacheLike } from './cache-api-store.js';
import { OpfsStore, type DirectoryLike } from './opfs-store.js';
import type { WorkerGlobals } from './opfs-worker.js';
import { describeStorageError } from '../../store/stored-location.js';
import type { StoreKind, WeightStore } from '../../store/weight-store.js';

export interface StorageGlobals {
  caches?: { open(name: string): Promise<CacheLike> } | undefined;
  navigator?: { userAgent?: string; storage?: { getDirectory?: () => Promise<DirectoryLike> } } | undefined;
  /** Its prototype's createWritable() is what the OPFS store writes with where no worker can. */
  FileSystemFileHandle?: { prototype: object } | undefined;
  /** Starts the OPFS store's worker (opfs-worker.ts). */
  Worker?: WorkerGlobals['Worker'];
}

/** The stores a page can have. */
export type PageStoreKind = Exclude<StoreKind, 'directory'>;

export type StoreOption = 'auto' | PageStoreKind;

/**
 * The stores 'auto' tries, in this order, in every engine: first the OPFS, which bench:page-load
 * measured faster to load a stored checkpoint from than the Cache API in Chromium, Firefox and
 * WebKitGTK alike (docs/performance.md); then the Cache API, where the OPFS is refused or cannot be
 * written at all (WebKitGTK's defaults).
 */
const kAutoOrder: readonly PageStoreKind[] = ['opfs', 'cache-api'];

/**
 * How the engine's Cache API entries are read (cache-api-store.ts, measured by bench:page-load's
 * stored-read probe: docs/performance.md): WebKit hands a stored body over whole, so it is read as
 * its body, many times faster there than response.blob() and slices; the others as a Blob in slices.
 */
export function measuredCacheRead(userAgent: string): CacheApiRead {
  return isWebKit(userAgent) ? 'body' : 'blob';
}

function isWebKit(userAgent: string): boolean {
  return /AppleWebKit\//.test(userAgent) && !/Chrome\/|Chromium\//.test(userAgent);
}

/** The store named `name` for this page, or the reason there is none. */
export async function openStore(globals: StorageGlobals, name: string, option: StoreOption): Promise<WeightStore | { refused: string }> {
  const order = option === 'auto' ? kAutoOrder : [option];
  const reasons: string[] = [];
  for (const kind of order) {
    try {
      if (kind === 'cache-api') {
        if (globals.caches === undefined) throw new Error('the Cache API is missing (an insecure context?)');
        return new CacheApiStore(await globals.caches.open(name), measuredCacheRead(globals.navigator?.userAgent ?? ''));
      }
      const getDirectory = globals.navigator?.storage?.getDirectory;
      if (getDirectory === undefined) throw new Error('navigator.storage.getDirectory is missing');
      const root = await getDirectory.call(globals.navigator?.storage);
      const store = await OpfsStore.open(root, name, globals);
      // Waits for the sync-handle probe only where createWritable() is missing (Safari before 26).
      if (!('createWritable' in (globals.FileSystemFileHandle?.prototype ?? {})) && await store.route() === 'writable') {
        throw new Error('FileSystemFileHandle.createWritable is missing and no worker could open a sync access handle');
      }
      return store;
    } catch (error) {
      reasons.push(`${kind === 'opfs' ? 'the origin private file system' : 'the Cache API'}: ${describeStorageError(error)}`);
    }
  }
  return { refused: reasons.join('; ') };
}
