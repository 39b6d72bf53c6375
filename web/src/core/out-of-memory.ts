// The out_of_memory error of a load whose weights do not fit in wasm memory, made actionable: the
// bytes the allocation asked for and the bytes the module held when it was refused (a browser tab
// has its own limit: iOS kills one near 1.5 GB, and may refuse memory growth well before), and the
// option that needs about half the memory for an F16 checkpoint.
import { LayaError } from '../errors.js';
import type { LayaCoreModule } from './laya-core.js';
import type { OpenedFile } from '../sources/checkpoint-source.js';

/** A rejection handler for streaming the weights: rethrows out_of_memory with the sizes and the way out. */
export function explainOutOfMemory(core: LayaCoreModule, weights: OpenedFile, held: 'stored' | 'q8'): (error: unknown) => never {
  return (error: unknown) => {
    if (!(error instanceof LayaError) || error.code !== 'out_of_memory') throw error;
    // C++ names the allocation's size ("cannot allocate N bytes ..."); else the file's is the estimate.
    const asked = Number(/allocate (\d+)/.exec(error.message)?.[1] ?? weights.size ?? 0);
    const heldBytes = core.HEAPU8.byteLength;
    const advice = held === 'q8'
      ? 'the weights are already held as q8; free memory in the page (other models) or use a smaller checkpoint'
      : "load with { weights: 'q8' } to hold them in about half (F16) or a quarter (F32) of that";
    throw new LayaError('out_of_memory',
      `${error.message}: asked for ${asked} bytes while the wasm memory held ${heldBytes} bytes ` +
      `(its growth was refused); ${advice}`, { file: weights.file, cause: error });
  };
}
