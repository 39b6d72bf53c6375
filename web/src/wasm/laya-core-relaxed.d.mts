// The type of dist/wasm/laya-core-relaxed.mjs (the ES-module glue scripts/build-wasm.sh places there; Emscripten
// 3.1.6 writes no declarations): its default export is the module factory.
import type { LayaCoreFactory } from '../core/laya-core.js';

declare const factory: LayaCoreFactory;
export default factory;
