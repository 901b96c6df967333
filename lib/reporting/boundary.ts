// The one boundary every output crosses: a report object, once built, has every string in it passed
// through the redactor's value layers (every spelling of every known secret, every learned token) and
// then the display-safety function. Nothing is left out by forgetting a field: paths, messages,
// evidence, headers, curl commands, titles and the manifest are all strings of this object.
import { displayBlock, displayLine } from './display.js';
import type { Redactor } from './redact.js';

/** Fields shown as several lines (a request or response shown whole); every other string is one line. */
const BLOCKS = new Set(['request', 'response', 'curl', 'replay']);

/** Where a report holds values the harness wrote itself (its verdict, gate, mode, version, clock,
 *  the statuses of its checks): member names, each `true` (every string under it is the harness's) or
 *  the shape of what it holds (an array's shape is its items'). */
export interface OwnValues { readonly [member: string]: true | OwnValues }

/**
 * `harnessTexts`: strings the harness wrote itself and publishes anyway (the catalogue's words, probe
 * titles, exchange ids). They are never redacted: a short secret that happens to be one of their
 * words ("user", "answers") would otherwise garble them, break the links between checks and
 * exchanges, and give itself away by comparison with the public docs/checks.md. `names`: member
 * names the harness wrote (the report's own), never redacted as names. `own`: the places that hold
 * the harness's values, never redacted: a target that sent "conformant" as a personal value had
 * masked it inside "non-conformant", and the verdict, the exit code with it, was lost.
 */
export function published<T>(value: T, redactor: Redactor, harnessTexts: ReadonlySet<string> = NONE, shownBy: ReadonlyMap<string, Redactor> = NO_SCOPES, names: ReadonlySet<string> = NONE, own: OwnValues | true | undefined = undefined, key = ''): T {
  if (typeof value === 'string') {
    // `shownBy`: a text an exchange's scope made with the harness's own text in it (a generated
    // request as sent) goes through that scope, which knows all the run-wide redactor knows and
    // redacts all but the own parts again (Redactor.shown).
    const redacted = own === true || harnessTexts.has(value) ? value : (shownBy.get(value) ?? redactor).line(value);
    return (BLOCKS.has(key) ? displayBlock(redacted) : displayLine(redacted)) as T;
  }
  if (Array.isArray(value)) return value.map((v) => published(v, redactor, harnessTexts, shownBy, names, own, key)) as T;
  if (value && typeof value === 'object') {
    // Member names are strings a target may supply too (a JSON member named after a token); `names`,
    // the value's own member names, are the harness's words.
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [
      displayLine(harnessTexts.has(k) || names.has(k) ? k : redactor.line(k)),
      published(v, redactor, harnessTexts, shownBy, names, own === true ? true : own !== undefined && Object.hasOwn(own, k) ? own[k] : undefined, k),
    ])) as T;
  }
  return value;
}

const NONE: ReadonlySet<string> = new Set();
const NO_SCOPES: ReadonlyMap<string, Redactor> = new Map();
