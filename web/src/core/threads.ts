// How many threads a load runs with, decided once per load: the pthreads module
// (laya-core-mt.js) where SharedArrayBuffer exists (Node; browsers only when the page is
// cross-origin isolated), the single-threaded SIMD module (laya-core.js) otherwise.
import type { WasmOptions } from '../options.js';
import type { LayaCoreModule } from './laya-core.js';
import { expectEmptyResult } from './session-result.js';

/** The default thread count: the machine's cores, at most 4 (more rarely helps a 2-core VM or a phone). */
export const kMaxDefaultThreads = 4;

/** True when this JavaScript context can share memory with workers. */
export function sharedMemoryAvailable(): boolean {
  if (typeof SharedArrayBuffer !== 'function') return false;
  const isolated = (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated;
  // Node has no crossOriginIsolated and always shares memory; browsers say so only when isolated.
  return isolated === undefined || isolated;
}

/**
 * Why the pthreads module cannot run here although threads > 1 were asked for, or undefined when
 * it can. `noSharedMemory` says it in the runtime's words.
 */
export function threadedModuleBlocker(wasm: WasmOptions, noSharedMemory: string): string | undefined {
  if (wasm.wasmBinary !== undefined) return 'options.wasm.wasmBinary holds the single-threaded module';
  if (!sharedMemoryAvailable()) {
    // WebKitGTK (2.50) does this: its JavaScriptCore runs with useSharedArrayBuffer off, so an
    // isolated page can make a shared memory but cannot hand it to a worker (DataCloneError).
    const isolated = (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated === true;
    return isolated ? kIsolatedWithoutSharedMemory : noSharedMemory;
  }
  return undefined;
}

const kIsolatedWithoutSharedMemory = 'the page is cross-origin isolated, but this engine gives it no SharedArrayBuffer ' +
  '(so no memory to share with worker threads)';

/** The threads a load asks for: the option, or the default for `cores` logical cores. */
export function requestedThreads(option: number | undefined, cores: number): number {
  if (option !== undefined) return option;
  return Math.max(1, Math.min(kMaxDefaultThreads, Math.floor(cores) || 1));
}

/**
 * Gives the module `threads` threads, or as many as it has (1 for laya-core.js). Returns the
 * count set, and a warning when fewer than asked.
 */
export function applyThreads(core: LayaCoreModule, threads: number, why: string): { threads: number; warning?: string } {
  const available = core.availableThreads();
  const granted = Math.min(threads, available);
  expectEmptyResult(core.setThreads(granted), 'setThreads');
  if (granted >= threads) return { threads: granted };
  return { threads: granted, warning: `laya-wasm: running on ${granted} thread${granted === 1 ? '' : 's'}, not the ${threads} asked for: ${why}` };
}
