// Types of fault-retries.mjs: the ledger of tests that passed only on a retry.

/** One test that failed with an engine's known fault and passed when run again. */
export interface PassOnRetry {
  /** The test's full name (describes and title), the engine among them. */
  test: string;
  /** Its test file, relative to the repository. */
  file: string;
  /** The first line of the first run's failure. */
  fault: string;
}

export const kRetriesFolderVariable: string;
export const kRetriesAllowed: number;
export function recordPassOnRetry(retry: PassOnRetry, env?: NodeJS.ProcessEnv): void;
export function readPassesOnRetry(folder: string): PassOnRetry[];
export function retriesVerdict(retries: readonly PassOnRetry[], allowed?: number): { report: string; error: Error | undefined };
