// A check's verdicts folded over every exchange it judged, in bounded memory whatever the number of
// exchanges: counts, distinct findings with their counts (values masked, so a finding repeated across
// accounts is one line), and the first findings as examples with the exchange and account they came
// from. The bodies behind them are dropped as soon as they are judged.
import { isSkip, type Check, type Finding, type Look } from '../checks/check.js';
import { HARNESS_WORDS } from '../checks/harness-words.js';
import { closingQuote, replaceQuoted } from '../json/closing-quote.js';
import type { Origin } from '../http/exchange.js';

/** A finding as kept: where it came from. */
export interface Example extends Finding {
  readonly exchange: string;
  /** The account (case) the exchange belongs to. */
  readonly case?: number;
}

/** One distinct finding: the message and path with received values masked, and how often. */
export interface FindingGroup {
  readonly message: string;
  readonly path?: string;
  readonly count: number;
}

/** Findings kept as examples per check. */
export const MAX_EXAMPLES = 50;
/** Exchanges from outside the probes whose findings are kept, per check (each with all its findings up
 *  to MAX_EXAMPLES): a few cases show the pattern; counts and groups carry the rest. */
export const MAX_EXAMPLE_EXCHANGES = 5;
/** Distinct findings counted per check; the rest are counted together. Judged on worker threads
 *  (--jobs), tallies are never merged: the run folds every look in exchange order (judge-pool.ts), so
 *  which findings are the first MAX_GROUPS kinds, and the overflow, are those one thread gives. */
export const MAX_GROUPS = 100;
const MAX_SKIP_REASONS = 20;

/** A received value inside a message, masked for grouping: "…" for quoted text, and the finding's
 *  received value wherever it stands unquoted (a member name, a number), on word boundaries; «…» kept.
 *  Groups outlive the exchanges they came from, so no received value may stay in them. */
const maskValues = (message: string, actual?: string): string => maskActual(maskQuoted(message), actual);

/** Each quoted text of `message` (as show() writes a value) replaced by "…", in one pass (a pattern
 *  overflowed the stack on a value of 9 M characters: a harness error in place of the finding, no
 *  reports). A quote never closed is left as it is. */
export const maskQuoted = (message: string): string => replaceQuoted(message, () => '"…"');
/** A received value that is one of the harness's own words ("string") is left: masking it would mask
 *  the harness's text ("(string): expected an integer"); and a marker a check wrote is never entered. */
export const maskActual = (text: string, actual?: string): string => {
  if (!actual || !text.includes(actual) || HARNESS_WORDS.has(actual.toLowerCase())) return text;
  return text.split(/(«[^«»]*»)/).map((part, i) => (i % 2 ? part : maskWord(part, actual))).join('');
};

/** A letter, digit or underscore: what may not touch a masked value (a word of its own). */
const WORD = /^[\p{L}\p{N}_]$/u;
const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;

/**
 * Every occurrence of `actual` in `text` that stands as a word of its own (no letter, digit or `_`
 * on either side, by code point) replaced by "…", left to right: what a global Unicode expression
 * `(?<![\p{L}\p{N}_])actual(?![\p{L}\p{N}_])` does, without compiling one per received value (a
 * Unicode property class costs about a millisecond to compile, and every datetime or guid a faulty
 * answer holds is a new value).
 */
function maskWord(text: string, actual: string): string {
  let at = text.indexOf(actual);
  if (at < 0) return text;
  let out = '';
  let from = 0;
  while (at >= 0) {
    const end = at + actual.length;
    if (standsAlone(text, at, end)) {
      out += `${text.slice(from, at)}…`;
      from = end;
      at = text.indexOf(actual, end);
    } else {
      at = text.indexOf(actual, at + 1);
    }
  }
  return out + text.slice(from);
}

/** Whether text[at, end) starts and ends on code point boundaries with no word character next to it. */
function standsAlone(text: string, at: number, end: number): boolean {
  if (at > 0 && isHigh(text.charCodeAt(at - 1)) && isLow(text.charCodeAt(at))) return false;
  if (end < text.length && isHigh(text.charCodeAt(end - 1)) && isLow(text.charCodeAt(end))) return false;
  if (at > 0) {
    const c = text.charCodeAt(at - 1);
    const from = isLow(c) && at > 1 && isHigh(text.charCodeAt(at - 2)) ? at - 2 : at - 1;
    if (WORD.test(text.slice(from, at))) return false;
  }
  if (end < text.length) {
    const c = text.charCodeAt(end);
    const to = isHigh(c) && end + 1 < text.length && isLow(text.charCodeAt(end + 1)) ? end + 2 : end + 1;
    if (WORD.test(text.slice(end, to))) return false;
  }
  return true;
}
/** Array indices and map keys vary from one record to the next: one group for all of them. */
const maskPath = (path: string): string => maskKeys(path.replace(/\[\d+\]/g, '[*]'));

/** Each ["…"] of a path (a map key, a name not an identifier) as [*], in one pass (see maskQuoted). */
function maskKeys(path: string): string {
  let out = '';
  let from = 0;
  for (let at = path.indexOf('["'); at >= 0; at = path.indexOf('["', at + 1)) {
    const end = closingQuote(path, at + 2);
    if (end < 0) break;
    if (path.charCodeAt(end + 1) !== 0x5d) continue;
    out += `${path.slice(from, at)}[*]`;
    from = end + 2;
    at = end + 1;
  }
  return out + path.slice(from);
}

/** Most frequent first; equal counts by path and message, so the order never depends on arrival. */
export const byCount = (a: FindingGroup, b: FindingGroup): number =>
  b.count - a.count || (a.path ?? '').localeCompare(b.path ?? '') || a.message.localeCompare(b.message);

export class CheckTally {
  /** Exchanges judged (the check looked), and how many of them were probes. */
  judged = 0;
  judgedProbes = 0;
  /** Exchanges with at least one finding. */
  failed = 0;
  /** Exchanges of its kind it could not look at. */
  skipped = 0;
  /** Findings in all. */
  findings = 0;
  readonly skipReasons = new Map<string, number>();
  private readonly groups = new Map<string, { message: string; path?: string; count: number }>();
  private groupsOverflow = 0;
  readonly examples: Example[] = [];
  private readonly exampleExchanges = new Set<string>();
  /** Kept exchanges (probes, examples) it judged: their texts are attached to the check. */
  readonly kept = new Set<string>();

  constructor(readonly check: Check) {}

  /** Folds one exchange's look; true when an example from it was kept. */
  fold(exchange: string, origin: Origin, look: Look): boolean {
    if (isSkip(look)) {
      this.skipped++;
      const n = this.skipReasons.get(look.skip);
      if (n !== undefined || this.skipReasons.size < MAX_SKIP_REASONS) this.skipReasons.set(look.skip, (n ?? 0) + 1);
      return false;
    }
    this.judged++;
    const probe = origin.source === 'probe';
    if (probe) this.judgedProbes++;
    if (!look.length) return false;
    this.failed++;
    this.findings += look.length;
    for (const f of look) {
      const message = maskValues(f.message, f.actual);
      const path = f.path === undefined ? undefined : maskActual(maskPath(f.path), f.actual);
      const key = `${path ?? ''}\0${message}`;
      const g = this.groups.get(key);
      if (g) g.count++;
      else if (this.groups.size < MAX_GROUPS) this.groups.set(key, { message, ...(path ? { path } : {}), count: 1 });
      else this.groupsOverflow++;
    }
    if (!probe && this.exampleExchanges.size >= MAX_EXAMPLE_EXCHANGES) return false;
    const room = MAX_EXAMPLES - this.examples.length;
    if (room <= 0) return false;
    if (!probe) this.exampleExchanges.add(exchange);
    for (const f of look.slice(0, room)) this.examples.push({ ...f, exchange, ...(origin.case !== undefined ? { case: origin.case } : {}) });
    return true;
  }

  /** Distinct findings, most frequent first; findings past MAX_GROUPS distinct ones counted as one line. */
  findingGroups(): FindingGroup[] {
    const out: FindingGroup[] = [...this.groups.values()].sort(byCount);
    if (this.groupsOverflow) out.push({ message: `${this.groupsOverflow} more findings of other kinds (only ${MAX_GROUPS} distinct kinds are kept)`, count: this.groupsOverflow });
    return out;
  }
}
