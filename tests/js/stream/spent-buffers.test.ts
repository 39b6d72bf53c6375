// Spent buffers are given back at once (releaseBuffer): a reader detaches a chunk or slice that is
// its own once every byte of it is copied, and never one that is lent, kept, or part of a larger
// buffer. Node 20 has no ArrayBuffer.prototype.transfer, so the tests lend it one that detaches as
// transfer(0) does (structuredClone with the buffer transferred).
import { BlobByteReader } from '../../../web/src/stream/blob-byte-reader.js';
import { StreamByteReader } from '../../../web/src/stream/stream-byte-reader.js';

const proto = ArrayBuffer.prototype as { transfer?: (length?: number) => ArrayBuffer };
const hadTransfer = Object.prototype.hasOwnProperty.call(proto, 'transfer');
beforeAll(() => {
  if (!hadTransfer) {
    Object.defineProperty(proto, 'transfer', {
      configurable: true,
      value(this: ArrayBuffer) { return structuredClone(this, { transfer: [this] }).slice(0, 0); },
    });
  }
});
afterAll(() => {
  if (!hadTransfer) delete proto.transfer;
});

const options = { file: 'model.safetensors', location: 'http://x/model.safetensors', failureCode: 'network' as const };
const detached = (chunk: Uint8Array): boolean => chunk.buffer.byteLength === 0;

/** A stream of these chunks, as given (the test keeps them to look at afterwards). */
function streamOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const c of chunks) controller.enqueue(c);
      controller.close();
    },
  });
}

test('a given chunk is released once its last byte is copied, not while a read still needs its rest', async () => {
  const chunks = [Uint8Array.from([1, 2, 3, 4]), Uint8Array.from([5, 6])];
  const reader = new StreamByteReader(streamOf(chunks), { ...options, size: 6 });
  const heap = new Uint8Array(6);
  await reader.readInto(() => heap, 0, 3);
  expect(detached(chunks[0] as Uint8Array)).toBe(false);
  await reader.readInto(() => heap, 3, 3);
  expect(Array.from(heap)).toEqual([1, 2, 3, 4, 5, 6]);
  expect(detached(chunks[0] as Uint8Array)).toBe(true);
  await reader.expectEnd();
  expect(detached(chunks[1] as Uint8Array)).toBe(true);
  await reader.close();
});

test('lent chunks are never released: their reader fills the same buffer again', async () => {
  const chunks = [Uint8Array.from([1, 2]), Uint8Array.from([3, 4])];
  const reader = new StreamByteReader(streamOf(chunks), { ...options, size: 4, lentChunks: true });
  await reader.readInto(() => new Uint8Array(4), 0, 4);
  await reader.expectEnd();
  expect(chunks.map(detached)).toEqual([false, false]);
  await reader.close();
});

test('chunks that readRest keeps, and chunks that are part of a larger buffer, are not released', async () => {
  const whole = Uint8Array.from([9, 9, 1, 2, 3]);
  const kept = [whole.subarray(2, 4), Uint8Array.from([4, 5]), Uint8Array.from([6])];
  const reader = new StreamByteReader(streamOf(kept), options);
  expect(Array.from(await reader.readBytes(2))).toEqual([1, 2]);
  expect(detached(whole)).toBe(false);
  expect(Array.from(await reader.readRest())).toEqual([4, 5, 6]);
  expect(kept.map(detached)).toEqual([false, false, false]);
  await reader.close();
});

test('a Blob read in slices releases each slice once it is copied', async () => {
  const bytes = Uint8Array.from({ length: 40 }, (_, i) => i);
  const slices: ArrayBuffer[] = [];
  const blob = {
    size: bytes.byteLength,
    slice: (start: number, end: number) => ({
      arrayBuffer: async () => {
        const buffer = bytes.slice(start, end).buffer;
        slices.push(buffer);
        return buffer;
      },
    }),
  } as unknown as Blob;
  const reader = new BlobByteReader(blob, { file: 'model.safetensors', location: 'stored' });
  const heap = new Uint8Array(40);
  await reader.readInto(() => heap, 0, 40);
  expect(Array.from(heap)).toEqual(Array.from(bytes));
  expect(slices.length).toBeGreaterThan(0);
  expect(slices.every((s) => s.byteLength === 0)).toBe(true);
  await reader.expectEnd();
});
