// `laya-wasm route`: which checkpoint upstream's Router would answer a state with, and why
// (router/route.ts), printed as upstream's JSON prints the `routing` object. Nothing is loaded.
import { route } from '../router/route.js';
import { routingJson } from '../router/routing-json.js';
import { UsageError } from './args.js';

export interface RouteArguments {
  /** The state: plain text, or JSON text (`--state-json`). */
  state: string | { json: string };
  model?: string | undefined;
  task?: string | undefined;
  lang?: string | undefined;
  /** The questions as JSON text; only their ids are read. */
  questions?: string | undefined;
  /** The checkpoint for text detection abstains on (upstream main: multilingual). */
  default?: string | undefined;
}

/** The routing object's JSON text, as upstream's `json.dumps` writes it. */
export function routeCommand(args: RouteArguments): string {
  const state = typeof args.state === 'string' ? args.state : parseJson(args.state.json, '--state-json');
  const questions = args.questions === undefined ? undefined : parseJson(args.questions, '--questions');
  if (questions !== undefined && (typeof questions !== 'object' || questions === null || Array.isArray(questions))) {
    throw new UsageError('--questions must be a JSON object keyed by question id');
  }
  const routing = route(state, {
    model: args.model, task: args.task, lang: args.lang, questions: questions as Record<string, unknown> | undefined,
  }, args.default === undefined ? {} : { default: args.default });
  return routingJson(routing);
}

function parseJson(text: string, flag: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new UsageError(`${flag} is not valid JSON: ${(error as Error).message}`);
  }
}
