// Which checkpoint upstream's Router would answer a request with, and why: `Router._route`
// (laya-spec-current §11.3) as of upstream main after 0.3.29 (0.4.0-dev). Pure and instant: nothing is loaded.
// The reasons are upstream's texts, with `%r` and `%.0f` in their Python meaning.
import { analyse, type Detection, type RoutableState } from './lang-detect.js';
import { formatFixed, pyRepr } from './python-format.js';
import { pyHead, pyStrip } from './python-text.js';
import { LayaError } from '../errors.js';
import {
  canonicalName, kBundledModels, kStandaloneModels, repoString, resolveName, type RepoSpec,
} from './registry.js';

/** A language hint: a code such as "en", "pt-BR" or "en_US.UTF-8", or a function of the state giving one. */
export type LangHint = string | null | undefined | ((state: RoutableState) => string | null | undefined);

/** How a Router is set up (upstream's `Router(...)` arguments that routing reads). */
export interface RouterSettings {
  /**
   * The checkpoint for text whose language detection abstains (no letters, or Latin text no rule
   * names). `"multilingual"`, as upstream main since 0.4.0; upstream up to 0.3.29 used
   * `"english"`, which a mostly English deployment may prefer.
   */
  default?: string;
  /** Route to typed-decisions when the question ids are exactly one workflow's. Default false. */
  autoTaskDetection?: boolean;
  /** Report the checkpoints' own repositories instead of the bundle's subfolders. Default false. */
  standaloneRepos?: boolean;
  /** More checkpoints, or other sources for the built-in names, by name. */
  models?: Readonly<Record<string, RepoSpec | string | null>>;
  /** A hint applied to every request, after a per-call `lang` and `langGuess`. */
  langGuess?: LangHint;
}

/** What one request says about its routing (upstream's `route(..., model, task, lang, lang_guess)`). */
export interface RouteRequest {
  /** The questions; only their ids are read, to recognise a typed-decisions workflow. */
  questions?: Readonly<Record<string, unknown>> | null;
  /** A checkpoint name or alias: wins over everything else. */
  model?: string | null;
  /** A task: `typed_decisions` (or `typed-decisions`), or a checkpoint name. */
  task?: string | null;
  /** The state's language code; a code naming no language (blank, C, POSIX, und, zxx, mul) abstains. */
  lang?: string | null;
  /** A per-call hint, checked before the Router's own. */
  langGuess?: LangHint;
}

/** The `routing` object of an answer, keys in upstream's order. */
export interface Routing {
  model: string;
  repo: string | null;
  reason: string;
  detection: Detection | null;
  workflow: string | null;
}

/** Upstream's default for `Router(default=...)` on main since 0.4.0. */
export const kDefaultCheckpoint = 'multilingual';

/** The question-id sets of the four typed-decisions workflows. */
export const kTypedDecisionWorkflows: Readonly<Record<string, readonly string[]>> = {
  agent_trace_observability: ['action', 'needs_review', 'outcome', 'risk', 'urgency'],
  customer_service: ['action', 'category', 'churn_risk', 'needs_human', 'urgency'],
  invoice_processing: ['discrepancy_severity', 'disposition', 'duplicate', 'matches_order', 'urgency'],
  security_incidents: ['credential_compromise', 'disposition', 'severity', 'true_positive', 'urgency'],
};

/** The workflow whose id set the question ids equal exactly, else null. */
export function matchTypedDecisionsWorkflow(questions: Readonly<Record<string, unknown>> | null | undefined): string | null {
  const ids = new Set(Object.keys(questions ?? {}));
  for (const [workflow, signature] of Object.entries(kTypedDecisionWorkflows)) {
    if (ids.size === signature.length && signature.every((id) => ids.has(id))) return workflow;
  }
  return null;
}

const kEnglishSubtags = new Set(['en', 'eng', 'english']);
const kLanguageAgnosticCodes = new Set(['c', 'posix', 'und', 'zxx', 'mul']);

/** True / false for a language code naming English or another language; null when it names none. */
export function englishFromCode(code: string | null | undefined): boolean | null {
  if (code === null || code === undefined) return null;
  let text = pyStrip(String(code)).toLowerCase();
  if (!text) return null;
  text = text.split('.')[0] ?? '';
  const primary = text.replaceAll('_', '-').split('-')[0] ?? '';
  if (!primary || kLanguageAgnosticCodes.has(primary)) return null;
  return kEnglishSubtags.has(primary);
}

function resolveHint(hint: LangHint, state: RoutableState): boolean | null {
  if (hint === null || hint === undefined) return null;
  return englishFromCode(typeof hint === 'function' ? hint(state) : hint);
}

const kCheckpointNamePattern = /^[a-z0-9][a-z0-9._-]*$/;

/** The checkpoint table of a Router: the built-ins, re-pointed or extended by `settings.models`. */
export function modelTable(settings: RouterSettings): Record<string, RepoSpec | string | null> {
  const table: Record<string, RepoSpec | string | null> = {
    ...(settings.standaloneRepos ? kStandaloneModels : kBundledModels),
  };
  for (const [name, source] of Object.entries(settings.models ?? {})) {
    const key = canonicalName(name);
    if (!Object.hasOwn(kBundledModels, key)) {
      if (!kCheckpointNamePattern.test(key)) {
        throw new LayaError('invalid_request', `invalid checkpoint name ${pyRepr(name)}: use lowercase letters, `
          + "digits, '.', '_' or '-', starting with a letter or digit");
      }
      if (key === 'auto') {
        throw new LayaError('invalid_request', `invalid checkpoint name ${pyRepr(name)}: 'auto' means automatic `
          + 'routing in every model= argument');
      }
    }
    table[key] = source;
  }
  return table;
}

/** Decide which checkpoint answers `state`, without loading anything (upstream's precedence). */
export function route(state: RoutableState, options: RouteRequest = {}, settings: RouterSettings = {}): Routing {
  const models = modelTable(settings);
  const decision = (model: string, reason: string, detection: Detection | null, workflow: string | null): Routing => (
    { model, repo: repoString(models[model]), reason, detection, workflow });

  if (options.model !== null && options.model !== undefined) {
    return decision(resolveName(options.model, models), `explicit model=${pyRepr(options.model)}`, null, null);
  }
  if (options.task !== null && options.task !== undefined) {
    const typed = options.task.toLowerCase().replaceAll('-', '_') === 'typed_decisions';
    const name = resolveName(typed ? 'typed-decisions' : options.task, models);
    return decision(name, `explicit task=${pyRepr(options.task)}`, null, null);
  }
  const workflow = matchTypedDecisionsWorkflow(options.questions);
  if (workflow && settings.autoTaskDetection) {
    return decision('typed-decisions', `question ids match the ${pyRepr(workflow)} typed-decisions workflow`, null, workflow);
  }
  if (options.lang !== null && options.lang !== undefined) {
    const english = englishFromCode(options.lang);
    if (english !== null) {
      return decision(english ? 'english' : 'multilingual', `explicit lang=${pyRepr(options.lang)}`, null, workflow);
    }
  }
  const hints: [string, LangHint][] = [['lang_guess', options.langGuess], ['Router(lang_guess=...)', settings.langGuess]];
  for (const [source, hint] of hints) {
    const english = resolveHint(hint, state);
    if (english !== null) {
      const what = english ? 'English' : 'non-English';
      return decision(english ? 'english' : 'multilingual', `${source}: the caller identified this as ${what} text`, null, workflow);
    }
  }

  const fallback = resolveName(settings.default ?? kDefaultCheckpoint, models);
  const detection = analyse(state);
  let model: string;
  let reason: string;
  if (detection.script === 'unknown') {
    model = fallback;
    reason = `no letters detected in state; using default (${fallback})`;
  } else if (detection.script !== 'latin') {
    model = 'multilingual';
    reason = `non-Latin script (${detection.script}, ${formatFixed(100 * detection.non_latin_fraction, 0)}% of letters); `
      + 'the English checkpoint cannot read it';
  } else if (!detection.is_english) {
    model = 'multilingual';
    if (detection.mixed_segment) {
      reason = `Latin script, mostly English, but a line or field reads as ${pyRepr(detection.language ?? '')} `
        + `(${pyRepr(pyHead(detection.mixed_segment, 60))}); the English checkpoint cannot read it`;
    } else if (detection.language) {
      reason = `Latin script but language looks like ${pyRepr(detection.language)}, not English`;
    } else {
      reason = `Latin script, language not identified but ${formatFixed(100 * detection.diacritic_rate, 0)}% `
        + 'non-English letters; not safe for the English checkpoint';
    }
  } else if (detection.language_undecided) {
    model = fallback;
    reason = `Latin script, language not identified and no non-English letters; using default (${fallback})`;
  } else {
    model = 'english';
    reason = 'English Latin text';
  }
  return decision(model, reason, detection, workflow);
}
