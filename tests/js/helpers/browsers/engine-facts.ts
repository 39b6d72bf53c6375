// What each engine under test is known to do differently here, in one place, so a test states
// the engine's behaviour it expects instead of skipping that engine (and fails when it changes).
import type { EngineName } from './engines.mjs';

/** Whether the engine compiles relaxed SIMD: Chromium 114+ and Firefox 146+ do; WebKit (Safari) does not. */
export const kRelaxedSimd: Record<EngineName, boolean> = { chromium: true, firefox: true, webkit: false };

/** The module the package picks by default in that engine. */
export const defaultSimd = (engine: EngineName): 'relaxed' | 'plain' => (kRelaxedSimd[engine] ? 'relaxed' : 'plain');
