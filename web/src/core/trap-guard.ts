// A wasm trap (a WebAssembly.RuntimeError: an engine's own fault, docs/engine-faults.md, or the
// module aborting) stops a call wherever it was, so the module's memory holds whatever that call had
// half done: nothing the session answers afterwards can be trusted. The guard turns a trap into a
// LayaError that names it, and every later call into one that says the model must be loaded again.
import { LayaError } from '../errors.js';
import type { LayaSessionHandle } from './laya-core.js';

export interface GuardedSession {
  /** The session, each method guarded. */
  readonly session: LayaSessionHandle;
  /** The trap that ended the session ("RuntimeError: ..."), or null while none has. */
  trapped(): string | null;
}

export function guardTraps(session: LayaSessionHandle): GuardedSession {
  let trapped: string | null = null;
  const guarded = new Proxy(session, {
    get(target, key) {
      const value = Reflect.get(target, key) as unknown;
      if (typeof value !== 'function') return value;
      const method = String(key);
      return (...args: unknown[]): unknown => {
        if (trapped !== null) {
          throw new LayaError('internal', `${method}: the wasm module trapped in an earlier call (${trapped}); load the model again`);
        }
        try {
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        } catch (error) {
          if (!(error instanceof WebAssembly.RuntimeError)) throw error;
          trapped = `${error.name}: ${error.message}`;
          throw new LayaError('internal', `${method}: the wasm module trapped (${trapped}); this model can no longer be used: load it again`,
            { cause: error });
        }
      };
    },
  });
  return { session: guarded, trapped: () => trapped };
}
