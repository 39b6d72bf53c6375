// How an in-thread engine runs the forward passes a session method needs: in wasm, where the session
// runs them itself (WasmForwards), or on the GPU by replay (webgpu/gpu-session.ts GpuSession, the
// session waiting for the batches the GPU runs in between). The engine holds one, chosen at load.
import type { LayaSessionHandle } from '../core/laya-core.js';
import { parseSessionJson } from '../core/session-result.js';
import type { MemoryReport, StepProfile } from '../request.js';
import type { Backend } from './model-engine.js';

export interface ForwardRunner {
  readonly backend: Backend;
  /** Runs `call`, a synchronous session method, until it has its answer (text). */
  run(call: () => string, what: string, signal?: AbortSignal): Promise<string>;
  /** Turns the per-step timer on (from zero) or off. */
  setProfiling(on: boolean): void;
  profile(): StepProfile;
  /** The session's memory report with what this runner holds outside wasm added. */
  memory(report: MemoryReport): MemoryReport;
  /** Frees what the runner holds outside wasm. Idempotent. */
  destroy(): void;
}

/** The session runs its forward passes in wasm, on the module's threads. */
export class WasmForwards implements ForwardRunner {
  readonly backend = 'wasm';

  constructor(private readonly session: LayaSessionHandle) {}

  async run(call: () => string): Promise<string> {
    return call();
  }

  setProfiling(on: boolean): void {
    this.session.setProfiling(on);
  }

  profile(): StepProfile {
    return parseSessionJson<StepProfile>(this.session.profile(), 'profile');
  }

  memory(report: MemoryReport): MemoryReport {
    return report;
  }

  destroy(): void {}
}
