// On the createWritable() route (WebKitGTK's), a piece the engine has written is filled again for a
// later piece, so a download leaves a few buffers for the collector, not one per 8 MiB (WebKit's
// let them pile up to twice the checkpoint); the file still gets every byte in order. Run in Node
// with an OPFS folder whose writable copies what it is given, as an engine does before its write
// resolves. And a file that reads back short once closed gets no record, so it is never found.
import { OpfsStore, type DirectoryLike } from '../../../web/src/browser/store/opfs-store.js';
import { coalescing } from '../../../web/src/store/weight-store.js';

/** A folder of in-memory files, each written through a createWritable() that records the buffers it was given. */
function memoryFolder({ keepOnClose = Infinity } = {}): { folder: DirectoryLike; files: Map<string, Uint8Array>; buffersWritten: Set<ArrayBufferLike> } {
  const files = new Map<string, Uint8Array<ArrayBuffer>>();
  const buffersWritten = new Set<ArrayBufferLike>();
  const folder: DirectoryLike = {
    getDirectoryHandle: async () => folder,
    removeEntry: async (name) => { files.delete(name); },
    getFileHandle: async (name) => ({
      getFile: async () => new File([files.get(name) ?? new Uint8Array(0)], name),
      createWritable: async () => {
        const parts: Uint8Array[] = [];
        return {
          write: async (data: Uint8Array | string) => {
            const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
            if (typeof data !== 'string') buffersWritten.add(data.buffer);
            parts.push(bytes.slice());
          },
          close: async () => { files.set(name, Uint8Array.from(parts.flatMap((p) => Array.from(p))).slice(0, keepOnClose)); },
          abort: async () => undefined,
        };
      },
    }),
  };
  return { folder, files, buffersWritten };
}

test('pieces written by createWritable() are filled again, and the stored file has every byte in order', async () => {
  const { folder, buffersWritten } = memoryFolder();
  const store = await OpfsStore.open(folder, 'laya', {});
  expect(await store.route()).toBe('writable');
  const size = 4096;
  const bytes = Uint8Array.from({ length: size }, (_, i) => (i * 7) % 251);
  const writer = coalescing(await store.begin('https://x/model.safetensors', { size }), 64);
  for (let at = 0; at < size; at += 100) await writer.write(bytes.slice(at, at + 100));
  await writer.commit();
  // 64 pieces of 64 bytes went by, in a few buffers.
  expect(buffersWritten.size).toBeLessThanOrEqual(3);
  const stored = await store.find('https://x/model.safetensors');
  expect(stored?.record.size).toBe(size);
  expect(new Uint8Array(await (stored?.bytes as Blob).arrayBuffer())).toEqual(bytes);
});

test('a stored file that reads back short after its close gets no record: the commit fails and nothing is found', async () => {
  const { folder, files } = memoryFolder({ keepOnClose: 1000 });
  const store = await OpfsStore.open(folder, 'laya', {});
  const size = 4096;
  const writer = await store.begin('https://x/model.safetensors', { size });
  await writer.write(new Uint8Array(size).fill(7));
  await expect(writer.commit()).rejects.toThrow('the stored file holds 1000 of its 4096 bytes after it was closed');
  expect([...files.keys()].filter((name) => name.endsWith('.json'))).toEqual([]);
  expect(await store.find('https://x/model.safetensors')).toBeUndefined();
});
