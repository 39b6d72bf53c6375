// A reader of a download's body that lends its chunks instead of giving them: where the body is a
// byte stream (fetch in Chromium and Firefox), each read lands in one buffer of the reader's own,
// reused for the next read, so a 0.84 GB download leaves no 0.84 GB of spent chunks for the
// collector (the engine allocated a new ArrayBuffer per default read; the pages' peak memory
// counted them). A lent chunk is valid until the next read: whoever keeps bytes past it copies
// them (StreamByteReaderOptions.lentChunks). Where the body is not a byte stream (WebKit), the
// default reader's chunks are given as before and `lends` is false.

/** The reader's side that the download's consumers use (a ReadableStreamDefaultReader has it). */
export interface ChunkReader {
  read(): Promise<ReadableStreamReadResult<Uint8Array>>;
  cancel(reason?: unknown): Promise<void>;
  /** True when each chunk is only valid until the next read(). */
  readonly lends: boolean;
}

/** Bytes one read may land: a fast local download hands over up to a few MiB per read, a slow one far less. */
export const kLandingBytes = 4 * 1024 * 1024;

/** `body` read into one reused buffer where it is a byte stream, else by its default reader. */
export function lendingReader(body: ReadableStream<Uint8Array>, landingBytes = kLandingBytes): ChunkReader {
  let byob: ReadableStreamBYOBReader;
  try {
    byob = body.getReader({ mode: 'byob' });
  } catch {
    // Not a byte stream: nothing was locked.
    return givingReader(body);
  }
  // Each read transfers the buffer to the stream and hands it back under a new ArrayBuffer object.
  let landing = new ArrayBuffer(landingBytes);
  return {
    lends: true,
    async read() {
      const result = await byob.read(new Uint8Array(landing));
      if (result.value !== undefined) landing = result.value.buffer as ArrayBuffer;
      return result.done ? { done: true, value: undefined } : { done: false, value: result.value as Uint8Array };
    },
    cancel: (reason) => byob.cancel(reason),
  };
}

/** `body` read by its default reader, whose chunks are fresh: the reader's to keep. */
export function givingReader(body: ReadableStream<Uint8Array>): ChunkReader {
  const reader = body.getReader();
  return { read: () => reader.read(), cancel: (reason) => reader.cancel(reason), lends: false };
}
