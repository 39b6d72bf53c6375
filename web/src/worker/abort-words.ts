// How an abort reaches a forward pass that is blocking the worker's thread: a ring of Int32 words
// in a SharedArrayBuffer. The caller's thread writes a call's id into the call's word when its
// signal aborts; the engine reads that word (Atomics.load) before every step and stops the run
// when it holds the id (cpp/bind/embind.cc setAbortWatch). Ids only grow, so a word left from an
// earlier call never stops a later one. Without SharedArrayBuffer (a page that is not
// cross-origin isolated) there are no words: see worker-engine.ts for what an abort does then.
import { sharedMemoryAvailable } from '../core/threads.js';

/**
 * Words in the ring: a word is reused every kAbortWords calls, so an abort is lost only if its call
 * is still queued 256 calls later.
 */
export const kAbortWords = 256;

/** The ring, or null where this context cannot share memory with a worker. */
export function createAbortWords(): Int32Array | null {
  return sharedMemoryAvailable() ? new Int32Array(new SharedArrayBuffer(kAbortWords * 4)) : null;
}

export function abortWordIndex(id: number): number {
  return id % kAbortWords;
}

/** Marks call `id` aborted (the caller's thread). */
export function markAborted(words: Int32Array, id: number): void {
  Atomics.store(words, abortWordIndex(id), id);
}

/** True when call `id` was marked aborted (the worker, before starting it). */
export function isMarkedAborted(words: Int32Array, id: number): boolean {
  return Atomics.load(words, abortWordIndex(id)) === id;
}
