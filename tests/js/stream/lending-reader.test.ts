// lendingReader(): a byte stream (a fetch body in Chromium, Firefox and Node) is read into one
// buffer that every read reuses, so a download leaves no spent chunks behind; any other stream is
// read as before and its chunks are the reader's to keep. StreamByteReader with lentChunks copies
// the chunks it keeps past the next read, so a lent buffer refilled by that read never shows through.
import { lendingReader } from '../../../web/src/stream/lending-reader.js';
import { StreamByteReader } from '../../../web/src/stream/stream-byte-reader.js';

/** A byte stream of `chunks`, one enqueued per pull (as a network hands them over). */
function byteStreamOf(chunks: number[][]): ReadableStream<Uint8Array> {
  let next = 0;
  return new ReadableStream({
    type: 'bytes',
    pull(controller) {
      const chunk = chunks[next++];
      if (chunk !== undefined) {
        controller.enqueue(Uint8Array.from(chunk));
        return;
      }
      controller.close();
      // A read waiting with its own buffer is answered "done" once told no byte went into it.
      controller.byobRequest?.respond(0);
    },
  });
}

test('a byte stream is read into one reused buffer: each chunk is lent until the next read', async () => {
  const reader = lendingReader(byteStreamOf([[1, 2, 3], [4, 5], [6]]), 8);
  expect(reader.lends).toBe(true);
  const first = await reader.read();
  expect(Array.from(first.value ?? [])).toEqual([1, 2, 3]);
  const second = await reader.read();
  expect(Array.from(second.value ?? [])).toEqual([4, 5]);
  // The first chunk's buffer went back to the stream for the second read.
  expect(first.value?.byteLength).toBe(0);
  expect(second.value?.buffer.byteLength).toBe(8);
  expect(Array.from((await reader.read()).value ?? [])).toEqual([6]);
  expect((await reader.read()).done).toBe(true);
});

test('a stream that is not a byte stream gives its chunks to keep', async () => {
  const chunks = [Uint8Array.from([1, 2]), Uint8Array.from([3])];
  const reader = lendingReader(new ReadableStream({ start(c) { for (const chunk of chunks) c.enqueue(chunk); c.close(); } }));
  expect(reader.lends).toBe(false);
  const first = await reader.read();
  await reader.read();
  expect(Array.from(first.value ?? [])).toEqual([1, 2]);
});

/** A stream whose every chunk is a view of one buffer, scribbled over when the next is read. */
function scribblingStreamOf(chunks: number[][]): ReadableStream<Uint8Array> {
  const lent = new Uint8Array(16);
  let next = 0;
  return new ReadableStream({
    pull(controller) {
      lent.fill(0xee);
      const chunk = chunks[next++];
      if (chunk === undefined) {
        controller.close();
        return;
      }
      lent.set(chunk);
      controller.enqueue(lent.subarray(0, chunk.length));
    },
  }, { highWaterMark: 0 });
}

const options = { file: 'model.safetensors', location: 'http://x/model.safetensors', size: 9, failureCode: 'network' as const, lentChunks: true };

test('with lent chunks, reads that straddle chunks get every byte as it was sent', async () => {
  const reader = new StreamByteReader(scribblingStreamOf([[1, 2, 3, 4], [5, 6, 7], [8, 9]]), options);
  expect(Array.from(await reader.readBytes(2))).toEqual([1, 2]);
  const heap = new Uint8Array(7);
  await reader.readInto(() => heap, 0, 7);
  expect(Array.from(heap)).toEqual([3, 4, 5, 6, 7, 8, 9]);
  await reader.expectEnd();
});

test('with lent chunks, the rest of a stream read whole keeps every chunk', async () => {
  const reader = new StreamByteReader(scribblingStreamOf([[1, 2, 3], [4, 5], [6, 7, 8, 9]]), options);
  expect(Array.from(await reader.readBytes(1))).toEqual([1]);
  expect(Array.from(await reader.readRest())).toEqual([2, 3, 4, 5, 6, 7, 8, 9]);
});
