// A failed check's one line, made by the engine from its counts and by a report from its evidence as
// shown: here, below both, so that the presentation's modules need no engine module to make it.
import type { Finding } from './check.js';

/** What a failed check's line is made from: its counts and its first finding. */
export interface FailParts {
  readonly judged: number;
  /** Of the judged exchanges, how many were probes. */
  readonly judgedProbes: number;
  readonly failed: number;
  readonly findings: number;
  /** The first finding, and the exchange (and account) it was met on. */
  readonly first?: Finding & { readonly exchange: string; readonly case?: number };
}

const percent = (n: number, of: number) => `${of ? +((100 * n) / of).toFixed(2) : 0}%`;

/** How a failing check's line shows its first finding within a bound (the report's: after redaction,
 *  the engine's line is whole) on what is printed: its path cut as every path shown is, then its
 *  message cut to the room left, so that what follows it (the "(+N more)" count) is never what a cut drops. */
export interface LineFit {
  readonly max: number;
  /** Characters a part of the line takes where it is printed (escaped, as the console shows it). */
  readonly width: (text: string) => number;
  readonly path: (path: string) => string;
  readonly message: (message: string, max: number) => string;
}

/** The one line of a failed check: how much of its evidence failed, and its first finding. */
export function failLine(p: FailParts, fit?: LineFit): string {
  const first = p.first;
  // JSON and element paths are named in the line; a status or header is already in the message.
  const where = first?.path && /^[$/]/.test(first.path) ? ` at ${fit ? fit.path(first.path) : first.path}` : '';
  const who = first ? `${first.exchange}${first.case !== undefined ? ` (case ${first.case})` : ''}: ` : '';
  const more = p.findings > 1 ? ` (+${p.findings - 1} more)` : '';
  // Where the evidence is more than the probes (accounts, traffic), say how much of it failed first.
  const rate = p.judged > p.judgedProbes ? `failed on ${p.failed} of ${p.judged} exchanges (${percent(p.failed, p.judged)}); first: ` : '';
  const said = first?.message ?? 'failed';
  const head = `${rate}${who}`;
  const tail = `${where}${more}`;
  return `${head}${fit ? fit.message(said, Math.max(1, fit.max - fit.width(head) - fit.width(tail))) : said}${tail}`;
}
