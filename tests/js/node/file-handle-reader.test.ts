// FileHandleReader: a local file read straight into a destination, and a file that ends before the
// size it had when it was opened (cut short while a load was reading it) reported as truncated.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileHandleReader } from '../../../web/src/node/file-handle-reader.js';

let dir: string;
beforeAll(() => { dir = mkdtempSync(join(tmpdir(), 'laya-file-reader-')); });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('bytes land at the offset asked and the end is where the size said', async () => {
  const path = join(dir, 'whole.bin');
  writeFileSync(path, Uint8Array.from([1, 2, 3, 4, 5, 6]));
  const reader = new FileHandleReader(await open(path, 'r'), { file: 'model.safetensors', path, size: 6 });
  try {
    expect(Array.from(await reader.readBytes(2))).toEqual([1, 2]);
    const heap = new Uint8Array(8);
    await reader.readInto(() => heap, 1, 4);
    expect(Array.from(heap)).toEqual([0, 3, 4, 5, 6, 0, 0, 0]);
    await reader.expectEnd();
  } finally {
    await reader.close();
  }
});

test('a file shorter than its size when opened is invalid_checkpoint calling it truncated', async () => {
  const path = join(dir, 'model.safetensors');
  writeFileSync(path, new Uint8Array(600));
  // The size a stat gave before the file was cut to 600 bytes.
  const reader = new FileHandleReader(await open(path, 'r'), { file: 'model.safetensors', path, size: 1000 });
  try {
    const error = await reader.readInto(() => new Uint8Array(1000), 0, 1000).then(() => null, (e: unknown) => e);
    expect(error).toMatchObject({
      code: 'invalid_checkpoint',
      message: `model.safetensors is truncated: ${path} ended after 600 of its 1000 bytes`,
    });
  } finally {
    await reader.close();
  }
});
