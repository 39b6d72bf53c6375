// Which WeightStore a page gets: options.cacheStore, or for 'auto' the one measured fastest in
// its engine by `npm run bench:page-load` (README "Page load"), falling back to the other when
// the first is missing or refused. Storage that is refused altogether (an opaque origin, a private
// window) means no store: the load goes on from the network and onWarning says why.
import { CacheApiStore, type CacheApiRead, type CacheLike } from './cache-api-store.js';
import { OpfsStore, type DirectoryLike } from './opfs-store.js';
import type { WorkerGlobals } from './opfs-worker.js';
import { describeStorageError } from './stored-location.js';
import type { StoreKind, WeightStore } from './weight-store.js';

export interface StorageGlobals {
  caches?: { open(name: string): Promise<CacheLike> } | undefined;
  navigator?: { userAgent?: string; storage?: { getDirectory?: () => Promise<DirectoryLike> } } | undefined;
  /** Its prototype's createWritable() is what the OPFS store writes with where no worker can. */
  FileSystemFileHandle?: { prototype: object } | undefined;
  /** Starts the OPFS store's worker (opfs-worker.ts). */
  Worker?: WorkerGlobals['Worker'];
}

export type StoreOption = 'auto' | StoreKind;

/**
 * The engine's measured choice (bench:page-load, README "Page load"): the OPFS in all three. On
 * the 2-core machine with Node's directory load at 0.61 s, read back from the OPFS in 0.78 s
 * (Chromium) and 0.68 s (Firefox) through sync access handles, against the Cache API's 1.48 s and
 * 3.44 s; WebKitGTK, whose sync handles are refused, reads its OPFS File slices in 1.57 s against
 * its Cache API's 5.74 s (cache.match() alone takes 4-6 s for a 0.84 GB entry). Where the OPFS
 * cannot be written at all (WebKitGTK's defaults), the Cache API.
 */
export function measuredStore(userAgent: string): StoreKind {
  if (/Firefox\//.test(userAgent)) return kMeasured.firefox;
  if (isWebKit(userAgent)) return kMeasured.webkit;
  return kMeasured.chromium;
}

const kMeasured: Record<'chromium' | 'firefox' | 'webkit', StoreKind> = { chromium: 'opfs', firefox: 'opfs', webkit: 'opfs' };

/**
 * How the engine's Cache API entries are read (cache-api-store.ts, measured by bench:page-load's
 * stored-read probe): WebKit hands a stored body over whole, so it is read as its body (3.3 s for
 * 0.84 GB, where response.blob() and slices took 40 s); the others as a Blob in slices.
 */
export function measuredCacheRead(userAgent: string): CacheApiRead {
  return isWebKit(userAgent) ? 'body' : 'blob';
}

function isWebKit(userAgent: string): boolean {
  return /AppleWebKit\//.test(userAgent) && !/Chrome\/|Chromium\//.test(userAgent);
}

/** The store named `name` for this page, or the reason there is none. */
export async function openStore(globals: StorageGlobals, name: string, option: StoreOption): Promise<WeightStore | { refused: string }> {
  const first = option === 'auto' ? measuredStore(globals.navigator?.userAgent ?? '') : option;
  const order: StoreKind[] = option === 'auto' ? [first, first === 'opfs' ? 'cache-api' : 'opfs'] : [first];
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
