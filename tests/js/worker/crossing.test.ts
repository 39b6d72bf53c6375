// Errors crossing from the package worker to the page (web/src/worker/crossing.ts): a LayaError
// arrives as the caller would have caught it without a worker; anything else is a bug, arrives as an
// `internal` LayaError, and keeps where the worker caught it (a wasm trap's stack is the only lead).
import { LayaError } from '../../../web/src/errors.js';
import { crossingError, rebuildError } from '../../../web/src/worker/crossing.js';

function thrownInTheWorker(): Error {
  try {
    (function failingDeepInTheWorker(): never {
      throw new RangeError('Out of bounds memory access');
    })();
  } catch (error) {
    return error as Error;
  }
}

test('an unexpected error arrives as an internal LayaError naming it, with the worker\'s stack after the page\'s', () => {
  const thrown = thrownInTheWorker();
  const crossed = structuredClone(crossingError(thrown));
  const rebuilt = rebuildError(crossed);
  expect(rebuilt).toBeInstanceOf(LayaError);
  expect(rebuilt).toMatchObject({ code: 'internal', message: 'the laya-wasm worker failed: RangeError: Out of bounds memory access' });
  const [page, worker] = (rebuilt.stack ?? '').split('\n  in the worker at:\n');
  expect(page).toContain('rebuildError');
  expect(worker).toBe(thrown.stack);
  expect(worker).toContain('failingDeepInTheWorker');
});

test('a LayaError crosses with its code and fields, and no stack of the worker\'s', () => {
  const thrown = new LayaError('network', 'the checkpoint could not be read', { url: 'https://example.test/model.safetensors', status: 503 });
  const crossed = structuredClone(crossingError(thrown));
  expect(crossed).not.toHaveProperty('stack');
  const rebuilt = rebuildError(crossed);
  expect(rebuilt).toMatchObject({ code: 'network', message: thrown.message, url: thrown.url, status: 503 });
  expect(rebuilt.stack).not.toContain('in the worker at:');
});

test('an internal LayaError (a trap the model caught) crosses with its code, and the trap\'s stack after the page\'s', () => {
  const trap = thrownInTheWorker();
  const thrown = new LayaError('internal', 'predict: the wasm module trapped (RangeError: Out of bounds memory access)', { cause: trap });
  const rebuilt = rebuildError(structuredClone(crossingError(thrown)));
  expect(rebuilt).toMatchObject({ code: 'internal', message: thrown.message });
  expect((rebuilt.stack ?? '').split('\n  in the worker at:\n')[1]).toBe(trap.stack);
});
