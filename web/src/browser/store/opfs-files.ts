// Where the OPFS store opens its files with sync access handles, which only a dedicated worker
// may hold. One seam, two places (SyncFiles):
//   ownThreadFiles   the store already runs in a dedicated worker (the package's own worker,
//                    { worker: true }): the handles are opened right there, and a read lands
//                    straight in wasm memory, whatever memory it is;
//   pageWorkerFiles  the store runs on a page: each file is opened by a worker of its own
//                    (opfs-worker.ts), reached by messages; a read lands straight in wasm memory
//                    only where that memory is shared.
// Either one answers the same requests with the same code (sync-file-ops.ts). In a dedicated
// worker of Chromium's, files written go to a nested worker all the same (writesNested): written
// on the load's own thread, they held its download up.
import type { OpfsWorkerAnswer, OpfsWorkerRequest } from './opfs-messages.js';
import { OpfsWorker, type WorkerGlobals } from './opfs-worker.js';
import { syncFileOps } from './sync-file-ops.js';
import type { SyncHandleFile } from './sync-handle-reader.js';

/** An OPFS file opened with a sync access handle. */
export interface SyncFile extends SyncHandleFile {
  /** Resolves with the buffer, handed back once written (for the next piece). */
  write(at: number, buffer: ArrayBuffer): Promise<ArrayBuffer | undefined>;
  close(flush?: boolean): Promise<void>;
}

export interface SyncFiles {
  /** `file` in the OPFS folder `folderName`: to read (`writeSize` null), or created to write `writeSize` bytes. */
  open(folderName: string, file: string, writeSize: number | null): Promise<SyncFile>;
}

/** The globals that tell a dedicated worker (absent on a page and in Node), and the engine. */
export interface WorkerScopeGlobals extends WorkerGlobals {
  DedicatedWorkerGlobalScope?: abstract new () => unknown;
  navigator?: { userAgent?: string } | undefined;
}

/** The place this context opens sync handles in, or null where it has none (no Worker on a page). */
export function syncFilesHere(globals: WorkerScopeGlobals): SyncFiles | null {
  const scope = globals.DedicatedWorkerGlobalScope;
  const inDedicatedWorker = typeof scope === 'function' && globals instanceof scope;
  if (inDedicatedWorker && !writesNested(globals)) return kOwnThreadFiles;
  const Nested = globals.Worker;
  if (Nested === undefined) return null;
  // One per Worker constructor and place, so that whether it can open sync handles is asked once (opfs-store.ts).
  const made = inDedicatedWorker ? kReadsHereWritesNested : kPageWorkerFiles;
  let files = made.get(Nested);
  if (files === undefined) {
    const nested = pageWorkerFiles(globals);
    files = inDedicatedWorker ? readsHereWritesBy(nested) : nested;
    made.set(Nested, files);
  }
  return files;
}

const kPageWorkerFiles = new WeakMap<object, SyncFiles>();
const kReadsHereWritesNested = new WeakMap<object, SyncFiles>();

/**
 * Whether a dedicated worker's files are written by nested workers, chosen per engine by
 * bench:page-load --worker (docs/performance.md): in Chromium, where writes on the load's own
 * thread hold its download up; not in Firefox, where a nested worker now and then never runs its
 * script.
 */
function writesNested(globals: WorkerScopeGlobals): boolean {
  const userAgent = globals.navigator?.userAgent ?? '';
  return globals.Worker !== undefined && /Chrome\/|Chromium\//.test(userAgent);
}

/** Reads on this worker's own thread (straight into its memory), writes by `writes`. */
function readsHereWritesBy(writes: SyncFiles): SyncFiles {
  return {
    open: (folder, file, writeSize) => (writeSize === null ? kOwnThreadFiles : writes).open(folder, file, writeSize),
  };
}

/** A caller of one place's file operations: send a request, get its answer. */
type Call = (request: OpfsWorkerRequest, transfer?: Transferable[]) => Promise<OpfsWorkerAnswer>;

/** The request that opens `file`: to read (`writeSize` null), or created to write `writeSize` bytes. */
function openRequest(folder: string, file: string, writeSize: number | null): OpfsWorkerRequest {
  return { op: 'open', folder, file, write: writeSize !== null, size: writeSize ?? 0 };
}

function fileOver(call: Call, opened: OpfsWorkerAnswer, inPlace: boolean, end: () => void): SyncFile {
  const handle = opened.handle as number;
  return {
    size: opened.size as number,
    readsInPlace: inPlace,
    write: async (at, buffer) => (await call({ op: 'write', handle, at, buffer }, [buffer])).buffer,
    read: (at, length, target) => 'into' in target
      ? call({ op: 'read', handle, at, length, into: target.into, offset: target.offset })
      : call({ op: 'read', handle, at, length, buffer: target.buffer }, target.buffer === undefined ? [] : [target.buffer]),
    close: async (flush = false) => {
      try {
        await call({ op: 'close', handle, flush });
      } finally {
        end();
      }
    },
  };
}

/** Files opened in this very worker: the requests are answered here, one at a time, in order. */
const kOwnThreadFiles: SyncFiles = (() => {
  const ops = syncFileOps();
  let queue: Promise<unknown> = Promise.resolve();
  const call: Call = (request) => {
    const answer = queue.then(() => ops.answer(request)).then(([reply]) => reply);
    queue = answer.catch(() => undefined);
    return answer;
  };
  return { open: async (folder, file, writeSize) => fileOver(call, await call(openRequest(folder, file, writeSize)), true, () => undefined) };
})();

/**
 * How long a page's worker may take to open a file before it is given up: a started worker that
 * never runs its script (Firefox's nested workers now and then, a page's rarely) would otherwise
 * hang the load. Given up, the open fails: the probe then picks
 * createWritable(), a read falls back to File slices, and a write loads unstored with a warning.
 */
export const kWorkerOpenMs = 10000;

function pageWorkerFiles(globals: WorkerGlobals): SyncFiles {
  return {
    async open(folder, file, writeSize) {
      const worker = OpfsWorker.start(globals);
      const deadline = setTimeout(() => worker.end(new Error(`the OPFS worker did not open ${file} within ${kWorkerOpenMs / 1000} s`)), kWorkerOpenMs);
      try {
        const call: Call = (request, transfer) => worker.call(request, transfer);
        const opened = await call(openRequest(folder, file, writeSize));
        return fileOver(call, opened, false, () => worker.end());
      } catch (error) {
        worker.end();
        throw error;
      } finally {
        clearTimeout(deadline);
      }
    },
  };
}
