// The wasm module as ES modules, dist/wasm/laya-core*.mjs (cpp/bind/CMakeLists.txt): the browser
// default when no options.wasm location is given. Each build is imported with a literal specifier,
// so a bundler (Vite, webpack 5) makes it a chunk of its own and follows, from there, the glue's
// new URL('laya-core*.wasm', import.meta.url) and its module pthread workers, emitting every file
// the page needs with no configuration; only the build chosen at load is fetched. Unbundled, the
// browser resolves the same specifiers beside this file in node_modules/laya-wasm/dist/.
import type { LayaCoreFactory } from '../core/laya-core.js';
import type { SimdVariant } from '../core/simd.js';

/** The factory of the build for `threaded` and `simd`. */
export async function importModuleFactory(threaded: boolean, simd: SimdVariant): Promise<LayaCoreFactory> {
  // Four literal import() calls, not one built from parts: bundlers follow only literals.
  if (threaded) {
    return simd === 'relaxed'
      ? (await import('../wasm/laya-core-mt-relaxed.mjs')).default
      : (await import('../wasm/laya-core-mt.mjs')).default;
  }
  return simd === 'relaxed'
    ? (await import('../wasm/laya-core-relaxed.mjs')).default
    : (await import('../wasm/laya-core.mjs')).default;
}

/** The file name of that build's glue, for messages. */
export function moduleFileName(threaded: boolean, simd: SimdVariant): string {
  return `laya-core${threaded ? '-mt' : ''}${simd === 'relaxed' ? '-relaxed' : ''}.mjs`;
}
