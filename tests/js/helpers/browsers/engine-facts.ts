// What each engine under test is known to do differently here, in one place, so a test states
// the engine's behaviour it expects instead of skipping that engine (and fails when it changes).
import type { EngineName } from './engines.mjs';

/** Whether the engine compiles relaxed SIMD: Chromium 114+ and Firefox 146+ do; WebKit (Safari) does not. */
export const kRelaxedSimd: Record<EngineName, boolean> = { chromium: true, firefox: true, webkit: false };

/** The module the package picks by default in that engine. */
export const defaultSimd = (engine: EngineName): 'relaxed' | 'plain' => (kRelaxedSimd[engine] ? 'relaxed' : 'plain');

/**
 * Whether a cross-origin-isolated page gets SharedArrayBuffer, and so the pthreads module. WebKitGTK
 * 2.50 (Debian's stock build) runs JavaScriptCore with useSharedArrayBuffer off: an isolated page
 * reports crossOriginIsolated but has no SharedArrayBuffer global (a shared WebAssembly.Memory can
 * be made, not posted to a worker), so the package runs its single-threaded module there. Safari
 * turns it on for isolated pages; JSC_useSharedArrayBuffer=true in the driver's environment does
 * the same for WebKitGTK, which the tests do not set: they run the engine as Debian ships it.
 */
export const kSharedMemoryWhenIsolated: Record<EngineName, boolean> = { chromium: true, firefox: true, webkit: false };
