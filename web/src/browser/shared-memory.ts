// The pthreads module's shared WebAssembly.Memory, made by the package instead of the glue (which
// asks for the link's 4 GiB maximum and gives up if refused): iOS Safari can refuse a shared memory
// with a large maximum with a RangeError while a smaller one works (emscripten #19144), so this
// steps the maximum down, as wllama does, and hands the first memory granted to the factory
// (options.wasmMemory). The .wasm imports a memory of at least the glue's initial size and at most
// 4 GiB, so any maximum in between links; past it, growth fails and malloc returns null, which the
// load reports as out_of_memory. If every maximum is refused, the single-threaded module runs.

const kPageBytes = 65536;
/** The glue's INITIAL_MEMORY (cpp/bind/CMakeLists.txt): the smallest memory the .wasm imports. */
export const kInitialMemoryBytes = 32 * 2 ** 20;
/** The link's MAXIMUM_MEMORY, the first maximum asked for. */
export const kMaximumMemoryBytes = 4 * 2 ** 30;
/** Each refusal lowers the maximum by this much (wllama's step). */
export const kMaximumStepBytes = 128 * 2 ** 20;
/** Below this no Laya checkpoint fits (0.64-0.84 GB of F16 weights, about half that in q8). */
export const kSmallestMaximumBytes = 256 * 2 ** 20;

export type SharedMemoryResult =
  | { memory: WebAssembly.Memory; maximumBytes: number; warning?: string }
  | { memory: null; refused: string };

/** A shared memory with the largest maximum this engine grants, from 4 GiB down in 128 MiB steps. */
export function createSharedMemory(): SharedMemoryResult {
  let firstRefusal: string | undefined;
  for (let maximum = kMaximumMemoryBytes; maximum >= kSmallestMaximumBytes; maximum -= kMaximumStepBytes) {
    try {
      const memory = new WebAssembly.Memory({
        initial: kInitialMemoryBytes / kPageBytes, maximum: maximum / kPageBytes, shared: true,
      } as WebAssembly.MemoryDescriptor);
      if (firstRefusal === undefined) return { memory, maximumBytes: maximum };
      return {
        memory, maximumBytes: maximum,
        warning: `laya-wasm: this engine refused a shared WebAssembly.Memory with a ${mib(kMaximumMemoryBytes)} maximum ` +
          `(${firstRefusal}); the pthreads module runs in one of at most ${mib(maximum)}, so the weights and a request must fit in that`,
      };
    } catch (error) {
      firstRefusal ??= describe(error);
    }
  }
  return {
    memory: null,
    refused: `this engine refused a shared WebAssembly.Memory at every maximum from ${mib(kMaximumMemoryBytes)} down to ` +
      `${mib(kSmallestMaximumBytes)} (${firstRefusal ?? 'no reason given'}), so the pthreads module cannot run`,
  };
}

/** What a load asking for threads runs on: the pthreads module's shared memory, or why it cannot. */
export interface ThreadedMemory {
  sharedMemory?: WebAssembly.Memory;
  /** Why the single-threaded module runs instead. */
  singleThreaded?: string;
  /** What onWarning says of the memory: a smaller maximum, or the refusal. */
  memoryWarning?: string;
}

/**
 * The shared memory for the pthreads module, unless `blocker` (why it cannot run here, e.g. no
 * cross-origin isolation) already rules it out, or every maximum is refused.
 */
export function memoryForThreads(blocker: string | undefined): ThreadedMemory {
  if (blocker !== undefined) return { singleThreaded: blocker };
  const shared = createSharedMemory();
  if (shared.memory === null) {
    return { singleThreaded: shared.refused, memoryWarning: `laya-wasm: running the single-threaded module: ${shared.refused}` };
  }
  return { sharedMemory: shared.memory, ...(shared.warning === undefined ? {} : { memoryWarning: shared.warning }) };
}

function mib(bytes: number): string {
  return bytes % 2 ** 30 === 0 ? `${bytes / 2 ** 30} GiB` : `${bytes / 2 ** 20} MiB`;
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
