// StreamByteReader: reads that straddle chunks, writes at an offset of a destination, and the
// end-of-stream checks.
import { StreamByteReader } from '../../../web/src/stream/stream-byte-reader.js';

function streamOf(chunks: number[][]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const c of chunks) controller.enqueue(Uint8Array.from(c));
      controller.close();
    },
  });
}

const options = { file: 'model.safetensors', location: 'http://x/model.safetensors', size: 9, failureCode: 'network' as const };

test('reads split across chunks land in order, at the offset asked', async () => {
  let seen = 0;
  const reader = new StreamByteReader(streamOf([[1, 2, 3], [], [4, 5, 6, 7], [8, 9]]), { ...options, onBytes: (n) => (seen += n) });
  expect(Array.from(await reader.readBytes(2))).toEqual([1, 2]);
  const heap = new Uint8Array(12);
  await reader.readInto(() => heap, 3, 7);
  expect(Array.from(heap)).toEqual([0, 0, 0, 3, 4, 5, 6, 7, 8, 9, 0, 0]);
  await reader.expectEnd();
  expect(seen).toBe(9);
  await reader.close();
});

test('a stream that ends early names the file, the place and the size', async () => {
  const reader = new StreamByteReader(streamOf([[1, 2, 3]]), options);
  await expect(reader.readBytes(5)).rejects.toThrow('model.safetensors: http://x/model.safetensors ended after 3 of 9 bytes (truncated)');
  await reader.close();
});

test('a file source that ends early is invalid_checkpoint calling the file truncated', async () => {
  const reader = new StreamByteReader(streamOf([[1, 2, 3]]), { ...options, location: 'picked/model.safetensors', failureCode: 'invalid_checkpoint' });
  const error = await reader.readInto(() => new Uint8Array(9), 0, 9).then(() => null, (e: unknown) => e);
  expect(error).toMatchObject({
    code: 'invalid_checkpoint',
    message: 'model.safetensors is truncated: picked/model.safetensors ended after 3 of its 9 bytes',
  });
  await reader.close();
});

test('bytes beyond the expected end are an invalid_checkpoint error', async () => {
  const reader = new StreamByteReader(streamOf([[1, 2], [3]]), { ...options, size: 2 });
  await reader.readBytes(2);
  await expect(reader.expectEnd()).rejects.toMatchObject({ code: 'invalid_checkpoint' });
  await reader.close();
  await reader.close();
});

test('an aborted signal stops reading with an AbortError', async () => {
  const controller = new AbortController();
  const reader = new StreamByteReader(streamOf([[1], [2]]), { ...options, signal: controller.signal });
  await reader.readBytes(1);
  controller.abort();
  await expect(reader.readBytes(1)).rejects.toMatchObject({ name: 'AbortError' });
  await reader.close();
});
