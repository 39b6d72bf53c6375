#!/usr/bin/env node
// Finishes the ES-module build of the wasm glue (cpp/bind/CMakeLists.txt, laya_core_esm) where
// Emscripten 3.1.6 stops short, so that bundlers and module workers take it as it is:
// - its pthread workers become module workers: X.worker.js is renamed X.worker.mjs (dist/wasm/
//   also holds the CommonJS build's classic X.worker.js) and created with { type: 'module' }; the
//   worker script needs no change for that (self.onmessage, and it loads the glue with import());
//   3.1.6 tells a worker by typeof importScripts, which a module worker also has (it throws);
// - the worker's import(e.data.urlOrBlob), used only with mainScriptUrlOrBlob, is marked for Vite
//   and webpack to leave alone (else they warn, and webpack replaces it with a failing stub).
// Every edit must match exactly once; otherwise the output is deleted and the link fails, naming
// the text not found (a newer Emscripten needs this script looked at again).
// Usage: node scripts/esm-glue-finish.mjs <build dir>/esm/laya-core[-mt][-relaxed].mjs
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';

/** `text` with `from` replaced by `to`, which must occur exactly once. */
function replaceOnce(text, from, to, file) {
  const count = text.split(from).length - 1;
  if (count !== 1) throw new Error(`${file}: expected ${JSON.stringify(from)} once, found it ${count} times`);
  return text.replace(from, () => to);
}

function finish(glueFile) {
  const name = basename(glueFile, '.mjs');
  const classicWorker = glueFile.replace(/\.mjs$/, '.worker.js');
  const moduleWorker = glueFile.replace(/\.mjs$/, '.worker.mjs');
  let glue = readFileSync(glueFile, 'utf8');
  if (existsSync(classicWorker)) {
    glue = replaceOnce(glue, `new Worker(new URL("${name}.worker.js",import.meta.url))`,
      `new Worker(new URL("./${name}.worker.mjs",import.meta.url),{type:"module"})`, glueFile);
    glue = replaceOnce(glue, `locateFile("${name}.worker.js")`, `locateFile("${name}.worker.mjs")`, glueFile);
    // The worker a locateFile option places (never given by the package for threaded builds).
    glue = replaceOnce(glue, 'new Worker(pthreadMainJs)', 'new Worker(pthreadMainJs,{type:"module"})', glueFile);
    const worker = replaceOnce(readFileSync(classicWorker, 'utf8'), 'import(e.data.urlOrBlob)',
      'import(/* webpackIgnore: true */ /* @vite-ignore */ e.data.urlOrBlob)', classicWorker);
    writeFileSync(moduleWorker, worker);
    rmSync(classicWorker);
  }
  writeFileSync(glueFile, glue);
}

const [glueFile] = process.argv.slice(2);
if (!glueFile?.endsWith('.mjs')) {
  console.error('usage: esm-glue-finish.mjs <laya-core*.mjs>');
  process.exit(2);
}
try {
  finish(glueFile);
  console.log(`esm-glue-finish: ${glueFile} finished`);
} catch (error) {
  rmSync(glueFile, { force: true });
  console.error(`esm-glue-finish: ${error.message}; deleted ${glueFile}`);
  process.exit(1);
}
