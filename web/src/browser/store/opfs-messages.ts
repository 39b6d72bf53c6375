// What the OPFS store's file operations are asked and answer (sync-file-ops.ts answers them, in a
// page's worker (opfs-worker.ts) or on the store's own thread (opfs-files.ts)). Types only, apart
// from both, so that the worker's script and the code that sends it do not import each other.

/**
 * A request. `into` makes a read land straight in that memory: a SharedArrayBuffer from a page,
 * or any buffer where the ops run on the caller's own thread.
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
