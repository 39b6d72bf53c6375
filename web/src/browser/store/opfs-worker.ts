// A worker that reads and writes origin-private files through FileSystemSyncAccessHandle, which
// only dedicated workers may open, and which reads and writes the file in the calling process,
// with no copy through the browser's storage process: measured on this 2-core machine, a 0.84 GB
// file went to the OPFS in 6.1 s from sync handles against 12.9 s through createWritable()
// (Chromium), and back into a shared wasm memory in 1.2 s (Chromium) and 0.65 s (Firefox) against
// 5.7 s and 5.1 s as File slices. WebKitGTK answers createSyncAccessHandle() with NotSupportedError:
// the OPFS store then keeps createWritable() (opfs-store.ts).
//
// The worker is started from a Blob URL holding kSource, so the package ships no worker file for
// it; one worker serves one open file and is ended when the file is closed. Messages run one at a
// time, in order; each answer carries the request's id. A store that already runs in a dedicated
// worker starts none: it opens its files where it is (opfs-files.ts).
import { describeError } from '../../errors.js';
import { syncFileOps } from './sync-file-ops.js';

/**
 * What the worker is asked. `into` makes a read land straight in that memory: a SharedArrayBuffer
 * from a page, or any buffer where the ops run on the caller's own thread.
 */
export type OpfsWorkerRequest =
  | { op: 'open'; folder: string; file: string; write: boolean; size: number }
  | { op: 'write'; handle: number; at: number; buffer: ArrayBuffer }
  | { op: 'read'; handle: number; at: number; length: number; buffer?: ArrayBuffer | undefined; into?: ArrayBufferLike | undefined; offset?: number | undefined }
  | { op: 'close'; handle: number; flush: boolean };

export interface OpfsWorkerAnswer {
  handle?: number;
  size?: number;
  /** Bytes read or written. */
  bytes?: number;
  /** A read's bytes (when not read `into` shared memory), or a written buffer handed back for reuse. */
  buffer?: ArrayBuffer;
}

/**
 * The worker's script: syncFileOps() (sync-file-ops.ts) by its source text, answering one message
 * at a time, in order. A bundler that renames the function inside its text changes nothing: the
 * text is called as an expression.
 */
const kSource = `const ops = (${syncFileOps.toString()})();
let queue = Promise.resolve();
onmessage = (event) => {
  const { id, request } = event.data;
  queue = queue.then(() => ops.answer(request)).then(
    ([reply, transfer]) => postMessage({ id, reply }, transfer),
    (error) => postMessage({ id, error: { name: String(error && error.name || 'Error'), message: String(error && error.message || error) } }));
};`;

/** What a page needs to start the worker (absent in Node, or blocked by a Content-Security-Policy). */
export interface WorkerGlobals {
  Worker?: (new (url: string) => Worker) | undefined;
}

export class OpfsWorker {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve(answer: OpfsWorkerAnswer): void; reject(error: Error): void }>();
  private failure: Error | undefined;

  private constructor(private readonly worker: Worker, private readonly url: string) {
    worker.onmessage = (event: MessageEvent<{ id: number; reply?: OpfsWorkerAnswer; error?: { name: string; message: string } }>) => {
      const { id, reply, error } = event.data;
      const waiting = this.pending.get(id);
      this.pending.delete(id);
      if (error !== undefined) waiting?.reject(namedError(error.name, error.message));
      else waiting?.resolve(reply ?? {});
    };
    worker.onerror = (event) => {
      event.preventDefault?.();
      this.fail(new Error(`the OPFS worker failed: ${event.message || 'a script error'}`));
    };
  }

  /** A new worker; throws where the page cannot start one (no Worker, a CSP without blob: workers). */
  static start(globals: WorkerGlobals = globalThis as WorkerGlobals): OpfsWorker {
    if (globals.Worker === undefined) throw new Error('this context has no Worker');
    const url = URL.createObjectURL(new Blob([kSource], { type: 'text/javascript' }));
    try {
      return new OpfsWorker(new globals.Worker(url), url);
    } catch (error) {
      URL.revokeObjectURL(url);
      throw error;
    }
  }

  /** Sends `request` (its `buffer` transferred) and resolves with the worker's answer. */
  call(request: OpfsWorkerRequest, transfer: Transferable[] = []): Promise<OpfsWorkerAnswer> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      try {
        this.worker.postMessage({ id, request }, transfer);
      } catch (error) {
        this.pending.delete(id);
        reject(error instanceof Error ? error : new Error(describeError(error)));
      }
    });
  }

  /** Ends the worker; calls still waiting reject (with `reason` where given). Its open handles close with it. */
  end(reason = new Error('the OPFS worker was ended')): void {
    this.fail(reason);
  }

  /** The first failure ends the worker; later ones (an end() after it) find nothing left to do. */
  private fail(error: Error): void {
    if (this.failure !== undefined) return;
    this.failure = error;
    this.worker.terminate();
    URL.revokeObjectURL(this.url);
    for (const waiting of this.pending.values()) waiting.reject(this.failure);
    this.pending.clear();
  }
}

/** An Error named like the DOMException the worker threw (QuotaExceededError, ...), for messages. */
function namedError(name: string, message: string): Error {
  const error = new Error(message);
  error.name = name;
  return error;
}
