// Where the browser runtime takes the wasm module from (web/src/browser/browser-runtime.ts): the
// package's ES modules unless options.wasm names a location. The classic-script locations other
// than moduleUrl only place files beside a given moduleUrl, so alone they are refused, naming the
// option, before anything loads. (The ES-module path itself runs in tests/js/bundlers/.)
import { browserRuntime } from '../../../web/src/browser/browser-runtime.js';
import { LayaError } from '../../../web/src/errors.js';

describe('the browser runtime without options.wasm.moduleUrl', () => {
  test.each(['threadedModuleUrl', 'relaxedModuleUrl', 'relaxedThreadedModuleUrl'] as const)(
    'refuses %s alone, saying it needs moduleUrl', async (option) => {
      const attempt = browserRuntime.createCore({ [option]: 'https://example.test/wasm/laya-core-mt.js' }, 1, 'plain');
      await expect(attempt).rejects.toBeInstanceOf(LayaError);
      await expect(attempt).rejects.toMatchObject({
        code: 'invalid_request',
        message: expect.stringContaining(`options.wasm.${option} places a classic script and needs options.wasm.moduleUrl`),
      });
    });
});
