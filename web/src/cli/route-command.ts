// `laya-wasm route`: which checkpoint upstream's Router would answer a state with, and why
// (router/route.ts), printed as upstream's JSON prints the `routing` object. Nothing is loaded.
import { route, type Routing } from '../router/route.js';
import { routingJson } from '../router/routing-json.js';
import { parseJsonArgument, UsageError } from './args.js';

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

/** The routing decision for the arguments, as upstream's Router makes it. */
export function routeOf(args: RouteArguments): Routing {
  const state = typeof args.state === 'string' ? args.state : parseJsonArgument(args.state.json, '--state-json');
  const questions = args.questions === undefined ? undefined : parseJsonArgument(args.questions, '--questions');
  if (questions !== undefined && (typeof questions !== 'object' || questions === null || Array.isArray(questions))) {
    throw new UsageError('--questions must be a JSON object keyed by question id');
  }
  return route(state, {
    model: args.model, task: args.task, lang: args.lang, questions: questions as Record<string, unknown> | undefined,
  }, args.default === undefined ? {} : { default: args.default });
}

/** The routing object's JSON text, as upstream's `json.dumps` writes it. */
export function routeCommand(args: RouteArguments): string {
  return routingJson(routeOf(args));
}
