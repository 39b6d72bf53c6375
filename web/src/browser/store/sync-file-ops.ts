// What the OPFS store does with a FileSystemSyncAccessHandle, in one self-contained function that
// runs in either of two places (opfs-files.ts): in the worker a page starts for it (opfs-worker.ts
// sends this function's source text as the worker's script), or, where the store already lives in
// a dedicated worker (the package's own worker, { worker: true }), right there: a nested worker
// there is a second hop for every byte, and in Firefox a nested worker now and then never starts.
//
// Because its text is sent as a script, syncFileOps() must not use anything from outside its own
// body (no imports, no helpers): only what a worker's global scope has.
import type { OpfsWorkerAnswer, OpfsWorkerRequest } from './opfs-messages.js';

/** The open handles of one place, and the answer to each request (with what to transfer back). */
export interface SyncFileOps {
  answer(request: OpfsWorkerRequest): Promise<[OpfsWorkerAnswer, Transferable[]]>;
}

export function syncFileOps(): SyncFileOps {
  interface Handle {
    read(view: Uint8Array, options: { at: number }): number;
    write(view: Uint8Array, options: { at: number }): number;
    truncate(size: number): void;
    getSize(): number;
    flush(): void;
    close(): void;
  }
  const handles = new Map<number, Handle>();
  let nextHandle = 1;
  const open = (folderName: string, fileName: string, write: boolean, size: number): Promise<[OpfsWorkerAnswer, Transferable[]]> =>
    navigator.storage.getDirectory()
      .then((root) => root.getDirectoryHandle(folderName, { create: true }))
      .then((folder) => folder.getFileHandle(fileName, { create: write }))
      .then((file) => (file as unknown as { createSyncAccessHandle(): Promise<Handle> }).createSyncAccessHandle())
      .then((handle) => {
        // The file gets its whole length at once: one quota request, and a full disk fails here.
        if (write) handle.truncate(size);
        const id = nextHandle++;
        handles.set(id, handle);
        return [{ handle: id, size: handle.getSize() }, []];
      });
  return {
    answer(m) {
      if (m.op === 'open') return open(m.folder, m.file, m.write, m.size);
      const handle = handles.get(m.handle);
      if (handle === undefined) return Promise.reject(new Error('no open file ' + m.handle));
      try {
        if (m.op === 'write') {
          const bytes = handle.write(new Uint8Array(m.buffer), { at: m.at });
          if (bytes !== m.buffer.byteLength) throw new Error('wrote ' + bytes + ' of ' + m.buffer.byteLength + ' bytes at ' + m.at);
          return Promise.resolve([{ bytes, buffer: m.buffer }, [m.buffer]]);
        }
        if (m.op === 'read') {
          // Straight into the caller's memory where it can be reached (shared, or this thread's own).
          if (m.into !== undefined) return Promise.resolve([{ bytes: handle.read(new Uint8Array(m.into, m.offset, m.length), { at: m.at }) }, []]);
          const buffer = m.buffer !== undefined && m.buffer.byteLength >= m.length ? m.buffer : new ArrayBuffer(m.length);
          const bytes = handle.read(new Uint8Array(buffer, 0, m.length), { at: m.at });
          return Promise.resolve([{ bytes, buffer }, [buffer]]);
        }
        handles.delete(m.handle);
        try {
          if (m.flush) handle.flush();
        } finally {
          handle.close();
        }
        return Promise.resolve([{}, []]);
      } catch (error) {
        return Promise.reject(error);
      }
    },
  };
}
