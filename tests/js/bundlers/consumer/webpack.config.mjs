// The whole webpack 5 configuration a page author needs for laya-wasm: an entry and an output
// folder. The browser entry, its .wasm files and its workers come from `new URL(..., import.meta.url)`
// and import() in the package, which webpack follows by itself.
import { fileURLToPath } from 'node:url';

export default {
  mode: 'production',
  entry: './page.mjs',
  output: { path: fileURLToPath(new URL('./site-webpack/', import.meta.url)), clean: true },
};
