// Types of fault-retries-reporter.mjs: the Jest reporter that counts passes on a retry.

export default class FaultRetriesReporter {
  constructor(globalConfig?: unknown, options?: { allowed?: number });
  onRunStart(): void;
  onRunComplete(): void;
  getLastError(): Error | undefined;
}
