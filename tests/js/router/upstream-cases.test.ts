// Upstream's own routing and detection test cases (tests/data/router/upstream-router-cases.json,
// carried over from upstream's tests/test_router.py; see the README there), run on the port.
import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { kRepoRoot } from '../helpers/fixtures.js';
import { analyse, detectScript, guessLatinLanguage } from '../../../web/src/router/lang-detect.js';
import { englishFromCode, route, type RouteRequest, type RouterSettings } from '../../../web/src/router/route.js';

interface UpstreamCase {
  group: string;
  label: string;
  state: unknown;
  check: string;
  want: unknown;
  options?: RouteRequest;
  settings?: RouterSettings;
}

const kCases = (JSON.parse(readFileSync(join(kRepoRoot, 'tests', 'data', 'router', 'upstream-router-cases.json'), 'utf8')) as
  { cases: UpstreamCase[] }).cases;

/** The data file spells long repeated strings as {"$repeat": [text, count]}. */
function expandState(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(expandState);
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 1 && entries[0]?.[0] === '$repeat') {
      const [text, count] = entries[0][1] as [string, number];
      return text.repeat(count);
    }
    return Object.fromEntries(entries.map(([k, v]) => [k, expandState(v)]));
  }
  return value;
}

function observe(c: UpstreamCase): unknown {
  const state = expandState(c.state);
  switch (c.check) {
    case 'detect_script':
      return detectScript(state as string);
    case 'guess':
      return guessLatinLanguage(state as string);
    case 'english_from_code':
      return englishFromCode(state as string);
    case 'keys':
      return Object.keys(analyse(state));
    case 'diacritic_rate_at_least':
      return analyse(state).diacritic_rate > (c.want as number) ? c.want : analyse(state).diacritic_rate;
    case 'script':
    case 'is_english':
    case 'language':
    case 'language_undecided':
    case 'diacritic_rate':
    case 'script_profile':
    case 'non_latin_fraction':
    case 'mixed_segment':
      return analyse(state)[c.check];
    default: {
      const decision = route(state, c.options ?? {}, c.settings ?? {});
      switch (c.check) {
        case 'route_model': return decision.model;
        case 'route_repo': return decision.repo;
        case 'route_reason': return decision.reason;
        case 'route_reason_contains': return decision.reason.includes(c.want as string) ? c.want : decision.reason;
        case 'route_reason_lacks': return decision.reason.includes(c.want as string) ? decision.reason : c.want;
        case 'route_language': return decision.detection?.language;
        case 'route_language_undecided': return decision.detection?.language_undecided;
        case 'route_script': return decision.detection?.script;
        case 'route_workflow': return decision.workflow;
        default: throw new Error(`unknown check ${c.check}`);
      }
    }
  }
}

describe('upstream test_router.py cases give upstream answers', () => {
  const groups = new Map<string, UpstreamCase[]>();
  for (const c of kCases) groups.set(c.group, [...(groups.get(c.group) ?? []), c]);
  for (const [group, cases] of groups) {
    test(`${group}: every case matches (${cases.length})`, () => {
      const failures = cases
        .map((c) => ({ label: c.label, check: c.check, got: observe(c), want: c.want }))
        .filter((r) => JSON.stringify(r.got) !== JSON.stringify(r.want));
      expect(failures).toEqual([]);
    });
  }
});
