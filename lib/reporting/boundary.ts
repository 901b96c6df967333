// The one boundary every output crosses: a report object, once built, has every string in it passed
// through the redactor's value layers (every spelling of every known secret, every learned token) and
// then the display-safety function. Nothing is left out by forgetting a field: paths, messages,
// evidence, headers, curl commands, titles and the manifest are all strings of this object.
import { displayBlock, displayLine } from './display.js';
import type { Redactor } from './redact.js';

/** Fields shown as several lines (a request or response shown whole); every other string is one line. */
const BLOCKS = new Set(['request', 'response', 'curl', 'replay']);

/**
 * `harnessTexts`: strings the harness wrote itself and publishes anyway (the catalogue's words, probe
 * titles, exchange ids). They are never redacted: a short secret that happens to be one of their
 * words ("user", "answers") would otherwise garble them, break the links between checks and
 * exchanges, and give itself away by comparison with the public docs/checks.md.
 */
export function published<T>(value: T, redactor: Redactor, harnessTexts: ReadonlySet<string> = NONE, key = ''): T {
  if (typeof value === 'string') {
    const redacted = harnessTexts.has(value) ? value : redactor.line(value);
    return (BLOCKS.has(key) ? displayBlock(redacted) : displayLine(redacted)) as T;
  }
  if (Array.isArray(value)) return value.map((v) => published(v, redactor, harnessTexts, key)) as T;
  if (value && typeof value === 'object') {
    // Member names are strings a target may supply too (a JSON member named after a token).
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [displayLine(harnessTexts.has(k) ? k : redactor.line(k)), published(v, redactor, harnessTexts, k)])) as T;
  }
  return value;
}

const NONE: ReadonlySet<string> = new Set();
