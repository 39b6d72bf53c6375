// load()'s gpuKernels option (the WebGPU kernel variants a bench times): its values pass through,
// anything else is refused with invalid_request naming the option and what it takes.
import { LayaError } from '../../../web/src/errors.js';
import { resolveLoadOptions } from '../../../web/src/options.js';

test('no gpuKernels resolves to the defaults, and every GEMM choice and f16 value passes through', () => {
  expect(resolveLoadOptions({}).gpuKernels).toEqual({});
  for (const gemm of ['auto', 'scalar', 't32x32', 't32x64', 't64x64', 't128x64', 't64x128', 't32x128'] as const) {
    expect(resolveLoadOptions({ gpuKernels: { gemm, f16: 'off' } }).gpuKernels).toEqual({ gemm, f16: 'off' });
  }
});

test.each<[string, unknown, string]>([
  ['a string', 'fast', 'options.gpuKernels must be an object'],
  ['an unknown tile', { gemm: 't16x16' }, "options.gpuKernels.gemm must be one of 'auto', 'scalar', 't32x32'"],
  ['an unknown f16 value', { f16: 'on' }, "options.gpuKernels.f16 must be 'auto' or 'off', got on"],
  ['an unknown option', { subgroups: true }, "options.gpuKernels has no option 'subgroups'"],
])('gpuKernels as %s is refused', (_name, value, message) => {
  let error: unknown;
  try {
    resolveLoadOptions({ gpuKernels: value as never });
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(LayaError);
  expect(error).toMatchObject({ code: 'invalid_request', message: expect.stringContaining(message) });
});
