// A worker that reads and writes origin-private files through FileSystemSyncAccessHandle, which
// only dedicated workers may open, and which reads and writes the file in the calling process,
// with no copy through the browser's storage process: several times faster than createWritable()
// and File slices (docs/performance.md). WebKitGTK answers createSyncAccessHandle() with
// NotSupportedError: the OPFS store then keeps createWritable() (opfs-store.ts).
//
// The worker is started from a Blob URL holding kSource, so the package ships no worker file for
// it; one worker serves one open file and is ended when the file is closed. Messages run one at a
// time, in order; each answer carries the request's id. A store that already runs in a dedicated
// worker starts none: it opens its files where it is (opfs-files.ts).
import { describeError } from '../../errors.js';
import type { OpfsWorkerAnswer, OpfsWorkerRequest } from './opfs-messages.js';
import { syncFileOps } from './sync-file-ops.js';

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
