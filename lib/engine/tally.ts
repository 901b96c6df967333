// A check's verdicts folded over every exchange it judged, in bounded memory whatever the number of
// exchanges: counts, distinct findings with their counts (values masked, so a finding repeated across
// accounts is one line), and the first findings as examples with the exchange and account they came
// from. The bodies behind them are dropped as soon as they are judged.
import { isSkip, type Check, type Finding, type Look } from '../checks/check.js';
import { HARNESS_WORDS } from '../checks/harness-words.js';
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
const maskValues = (message: string, actual?: string): string => maskActual(message.replace(/"(?:[^"\\]|\\.)*"/g, '"…"'), actual);
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A received value that is one of the harness's own words ("string") is left: masking it would mask
 *  the harness's text ("(string): expected an integer"); and a marker a check wrote is never entered. */
const maskActual = (text: string, actual?: string): string => {
  if (!actual || HARNESS_WORDS.has(actual.toLowerCase())) return text;
  const value = new RegExp(`(?<![\\p{L}\\p{N}_])${escapeRegExp(actual)}(?![\\p{L}\\p{N}_])`, 'gu');
  return text.split(/(«[^«»]*»)/).map((part, i) => (i % 2 ? part : part.replace(value, '…'))).join('');
};
/** Array indices and map keys vary from one record to the next: one group for all of them. */
const maskPath = (path: string): string => path.replace(/\[\d+\]/g, '[*]').replace(/\["(?:[^"\\]|\\.)*"\]/g, '[*]');

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
