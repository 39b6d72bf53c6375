// Command-line parsing for laya-wasm: a command, then --flag value pairs checked against what the
// command accepts, so that a typo or a missing value is a one-line error naming the flag.
import { LayaError } from '../errors.js';

export interface CommandSpec {
  required: readonly string[];
  optional: readonly string[];
}

export interface ParsedArgs {
  command: string;
  flags: Map<string, string>;
}

/** A usage error: exit status 2. */
export class UsageError extends LayaError {
  constructor(message: string) {
    super('invalid_request', message);
  }
}

/**
 * The command, then `--name value` pairs, and `--name` alone for the names in `switches` (their
 * value is "true").
 */
export function parseArgs(argv: readonly string[], commands: Readonly<Record<string, CommandSpec>>,
                          globalFlags: readonly string[], switches: readonly string[] = []): ParsedArgs {
  const [command, ...rest] = argv;
  if (command === undefined) throw new UsageError('no command given');
  const spec = commands[command];
  if (spec === undefined) throw new UsageError(`unknown command "${command}"`);
  const allowed = new Set([...spec.required, ...spec.optional, ...globalFlags]);
  const flags = new Map<string, string>();
  for (let i = 0; i < rest.length; i += 2) {
    const flag = rest[i] ?? '';
    if (!flag.startsWith('--')) throw new UsageError(`${command}: unexpected argument "${flag}"`);
    const name = flag.slice(2);
    if (flags.has(name)) throw new UsageError(`${command}: ${flag} given twice`);
    if (switches.includes(name)) {
      flags.set(name, 'true');
      i -= 1; // a switch takes no value
      continue;
    }
    if (!allowed.has(name)) throw new UsageError(`${command}: unknown option ${flag}`);
    const value = rest[i + 1];
    if (value === undefined || (value.startsWith('--') && value.length > 2)) {
      throw new UsageError(`${command}: ${flag} needs a value`);
    }
    flags.set(name, value);
  }
  for (const name of spec.required) {
    if (!flags.has(name)) throw new UsageError(`${command}: missing --${name}`);
  }
  return { command, flags };
}

export function positiveInteger(value: string, flag: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new UsageError(`--${flag} must be a positive integer, got "${value}"`);
  return Number(value);
}

/** A flag's value parsed as JSON (what it holds is checked where it is used). */
export function parseJsonArgument(value: string, flag: string): unknown {
  try {
    return JSON.parse(value) as unknown;
  } catch (error) {
    throw new UsageError(`${flag} is not valid JSON: ${(error as Error).message}`);
  }
}
