// The one boundary every output crosses: a report object, once built, has every string in it passed
// through the redactor's value layers (every spelling of every known secret, every learned token) and
// then the display-safety function. Nothing is left out by forgetting a field: paths, messages,
// evidence, headers, curl commands, titles and the manifest are all strings of this object.
import { displayBlock, displayLine } from './display.js';
import type { Redactor } from './redact.js';

/** Fields shown as several lines (a request or response shown whole); every other string is one line. */
const BLOCKS = new Set(['request', 'response', 'curl', 'replay']);

export function published<T>(value: T, redactor: Redactor, key = ''): T {
  if (typeof value === 'string') {
    const redacted = redactor.line(value);
    return (BLOCKS.has(key) ? displayBlock(redacted) : displayLine(redacted)) as T;
  }
  if (Array.isArray(value)) return value.map((v) => published(v, redactor, key)) as T;
  if (value && typeof value === 'object') {
    // Member names are strings a target may supply too (a JSON member named after a token).
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [displayLine(redactor.line(k)), published(v, redactor, k)])) as T;
  }
  return value;
}
