// The differences section of a report (a differential run): per operation and contract path, how many
// pairs of answers differ, the rate, and a few examples with both values redacted by the field's
// sensitivity; noise paths apart, with their rates; the legacy's own verdict beside. Built from the
// engine's tallies; the report boundary (published) then passes every string through the redactor
// and the display-safety function like every other part of the report.
import { MAX_DIFF_EXAMPLES, type DiffExchanges, type DifferentialResult } from '../engine/differential.js';
import type { Verdict } from '../engine/run.js';
import { shownMessage, shownPath, shownValue } from './display.js';
import { failLine } from '../checks/fail-line.js';
import { MAX_MESSAGE, REPORT_LINE } from './report.js';
import type { Sensitivity } from '../contract/types.js';
import type { Redactor } from './redact.js';
import { exampleLine, NOT_COMPARED_TEXT } from './difference-texts.js';
import { resultVerdict, type Gate } from './verdict.js';

export interface ReportedDiffExample {
  readonly request: string;
  readonly case?: number;
  readonly legacy: string;
  readonly candidate: string;
  readonly how: string;
}

export interface ReportedPathDifferences {
  readonly operation: string;
  readonly path: string;
  readonly differing: number;
  readonly compared: number;
  readonly rate: string;
  readonly examples: readonly ReportedDiffExample[];
  /** The report's exchanges of its first example, to the legacy and to the candidate: replay.sh sends both again. */
  readonly shownBy?: DiffExchanges;
}

export interface ReportedNoise {
  readonly operation: string;
  readonly path: string;
  /** Requests whose two legacy answers differed here, of `compared`. */
  readonly legacyVaried: number;
  readonly compared: number;
  readonly rate: string;
  /** Candidate answers that differed here, counted as noise. */
  readonly candidateDiffered: number;
}

export interface ReportedDifferential {
  readonly legacy: {
    readonly baseUrl: string;
    readonly verdict: Verdict;
    /** Its failed checks: shown beside the candidate's, never part of the exit code. */
    readonly failed: readonly { readonly id: string; readonly level: string; readonly message: string; readonly exchange?: string }[];
  };
  /** Requests sent to both (each to the legacy twice) and compared. */
  readonly compared: number;
  readonly comparedByOperation: Readonly<Record<string, number>>;
  /** Requests sent but not compared: the legacy's own two answers differed in status, media type or
   *  in carrying a record, so nothing says what is volatile in them. */
  readonly inconclusive: number;
  /** Differing pairs, summed over every path. */
  readonly differences: number;
  readonly paths: readonly ReportedPathDifferences[];
  readonly noise: readonly ReportedNoise[];
  /** How values are compared, and what is not compared. */
  readonly interpretations: readonly string[];
}

export const DIFFERENTIAL_INTERPRETATIONS: readonly string[] = [
  'Every request goes to the legacy, then the candidate, then the legacy again; the legacy\'s first answer and the candidate\'s are compared.',
  'Values are compared as what they mean: datetimes as instants (a JSON fraction against SOAP\'s none compares the whole seconds: section 2 gives SOAP no fraction), guids regardless of dashes and case, integers as numbers, booleans 1/0 as true/false, null, an omitted member and xsi:nil alike, map entries by key, arrays in order; key order, whitespace, prefixes, CDATA and character references never count. Strings compare exactly.',
  'Status codes, media types by meaning (application/json and text/json are both JSON; the JavaScript types of JSONP are one; application/xml and text/xml are both XML), the JSONP callback name and the presence of members are compared too.',
  'Bodies of error answers (any status but 200) and of OPTIONS answers are not compared: the spec gives no error body and leaves OPTIONS answers open (4.4, 7). An error answer\'s status and media type are compared; an OPTIONS answer\'s status class only (200 and 204 are the same answer).',
  'Noise: a path whose value differs between the legacy\'s own two answers to a request (or a path below it) is volatile for that request; a candidate\'s difference there is noise, not a difference. The contract can mark a field volatile too; interface.md names none, so none is.',
  'SOAP-only Settings (always nil) is left to the conformance checks; it carries no value to compare.',
  'The candidate is the run\'s target and decides the verdict; the legacy is judged the same way and shown beside, never changing the exit code.',
  'A request the legacy did not answer (refused, reset, silent past --timeout), or answered two ways at the HTTP level (status, media type, a record or not), is not compared: it is counted as inconclusive, and a run where nothing was compared exits 2 (it could not judge). A noisy path absorbs a candidate\'s value only in a form the legacy showed there (absent, empty, or of a type): a token the candidate drops, empties or writes as another type is a difference.',
  'A candidate that could not be reached (every connection refused) gave no answer: the run is UNREACHABLE (exit 2), and nothing is compared, so no difference is counted, as a run without the legacy judges nothing of an unreachable target.',
];

/** Characters of a value the redactor reads to show an example: far more than the display bound, so
 *  what is shown has been redacted with its context, and far less than a value of megabytes (the
 *  redactor's walk costs tens of bytes per character). */
export const SCANNED_VALUE_CHARS = 64 * 1024;

/** One value of a difference as shown: redacted (a hidden field's value becomes its marker, made from
 *  the whole typed value), then cut at the display bound. A value longer than SCANNED_VALUE_CHARS is
 *  redacted on its head only; were more than half that head masked, the cut head's end (where a secret
 *  could have been cut in two, unrecognised) could come into view, so the value is then not shown. */
export function shownExampleValue(redactor: Redactor, value: string, sensitivity: Sensitivity | undefined, typed: unknown): string {
  if (redactor.hides(sensitivity) || value.length <= SCANNED_VALUE_CHARS) return shownValue(redactor.value(value, sensitivity, typed));
  const head = redactor.line(value.slice(0, SCANNED_VALUE_CHARS));
  if (head.length < SCANNED_VALUE_CHARS / 2) return `«${value.length} characters, mostly masked: not shown»`;
  return shownValue(head);
}

const percent = (n: number, of: number) => `${of ? +((100 * n) / of).toFixed(2) : 0}%`;

/** `gate`: the run's; the legacy's verdict beside is reached as the candidate's (a failed SHOULD
 *  check makes it not conformant under --fail-on should). */
export function differentialSection(result: DifferentialResult, redactor: Redactor, gate: Gate): ReportedDifferential {
  const comparedByOperation = Object.fromEntries(result.operations.map((o) => [o.operation, o.compared]));
  return {
    legacy: {
      baseUrl: redactor.ownUrl(result.legacy.baseUrl), // as given (report.ts OWN_VALUES)
      verdict: resultVerdict(result.legacy, gate),
      // Each names the exchange of its first finding (sent to the legacy): replay.sh sends it there again.
      failed: result.legacy.results.filter((r) => r.status === 'fail').map((r) => {
        const first = r.examples[0];
        // As the candidate's lines: the first finding redacted, then cut, with its count kept.
        const shown = first && { ...first, ...(first.path ? { path: shownPath(redactor.line(first.path)) } : {}), message: shownMessage(redactor.line(first.message), MAX_MESSAGE) };
        const message = failLine({ judged: r.judged, judgedProbes: r.judgedProbes, failed: r.failed, findings: r.findingCount, ...(shown ? { first: shown } : {}) }, REPORT_LINE);
        return { id: r.check.id, level: r.check.level, message, ...(first ? { exchange: first.exchange } : {}) };
      }),
    },
    compared: result.compared,
    comparedByOperation,
    inconclusive: result.inconclusive,
    differences: result.differences,
    paths: result.operations.flatMap((o) => [...o.paths.values()].map((p) => ({
      operation: o.operation, path: p.path, differing: p.differing, compared: o.compared, rate: percent(p.differing, o.compared),
      // Both values go through the redactor with the field's sensitivity: a credential or personal
      // value becomes its marker («personal: string, 27 chars»), whatever else it is; then they are
      // cut at the display bound. Values the engine kept as shown (redacted and cut) are scanned again
      // for what the run learned since.
      examples: p.examples.map((e) => ({
        request: e.request, ...(e.case !== undefined ? { case: e.case } : {}),
        legacy: shownValue(e.shown ? redactor.line(e.legacy) : redactor.value(e.legacy, e.sensitivity, e.legacyTyped)),
        candidate: shownValue(e.shown ? redactor.line(e.candidate) : redactor.value(e.candidate, e.sensitivity, e.candidateTyped)),
        how: shownValue(e.how),
      })),
      ...(p.shownBy ? { shownBy: p.shownBy } : {}),
    }))).sort((a, b) => b.differing - a.differing),
    noise: result.operations.flatMap((o) => [...o.noise.values()].map((n) => ({
      operation: o.operation, path: n.path, legacyVaried: n.legacyVaried, compared: o.compared, rate: percent(n.legacyVaried, o.compared), candidateDiffered: n.candidateDiffered,
    }))),
    interpretations: DIFFERENTIAL_INTERPRETATIONS,
  };
}

/** Worst first: the legacy verdict of a merged run is the worst any shard reached. */
const VERDICT_ORDER: readonly Verdict[] = ['unreachable', 'non-conformant', 'incomplete', 'nothing-observed', 'conformant'];

/** The section of a run split into shards, from each shard's (in shard order): counts add up per
 *  operation and path, rates are taken again over the merged counts, examples are kept in shard
 *  order up to the run's number, and the legacy's verdict is the worst a shard saw. */
export function mergeDifferential(parts: readonly ReportedDifferential[]): ReportedDifferential {
  const comparedByOperation: Record<string, number> = {};
  for (const d of parts) for (const [op, n] of Object.entries(d.comparedByOperation)) comparedByOperation[op] = (comparedByOperation[op] ?? 0) + n;
  const of = (op: string) => comparedByOperation[op] ?? 0;
  const paths = new Map<string, { operation: string; path: string; differing: number; examples: ReportedDiffExample[]; shownBy?: DiffExchanges }>();
  const noise = new Map<string, { operation: string; path: string; legacyVaried: number; candidateDiffered: number }>();
  for (const d of parts) {
    for (const p of d.paths) {
      const at = paths.get(`${p.operation} ${p.path}`) ?? paths.set(`${p.operation} ${p.path}`, { operation: p.operation, path: p.path, differing: 0, examples: [] }).get(`${p.operation} ${p.path}`)!;
      at.differing += p.differing;
      at.examples.push(...p.examples.slice(0, MAX_DIFF_EXAMPLES - at.examples.length));
      // The first shard's, as its first example is.
      if (!at.shownBy && p.shownBy) at.shownBy = p.shownBy;
    }
    for (const n of d.noise) {
      const at = noise.get(`${n.operation} ${n.path}`) ?? noise.set(`${n.operation} ${n.path}`, { operation: n.operation, path: n.path, legacyVaried: 0, candidateDiffered: 0 }).get(`${n.operation} ${n.path}`)!;
      at.legacyVaried += n.legacyVaried;
      at.candidateDiffered += n.candidateDiffered;
    }
  }
  const failed = new Map<string, ReportedDifferential['legacy']['failed'][number]>();
  for (const d of parts) for (const f of d.legacy.failed) if (!failed.has(f.id)) failed.set(f.id, f);
  const head = parts[0]!;
  return {
    legacy: { baseUrl: head.legacy.baseUrl, verdict: VERDICT_ORDER.find((v) => parts.some((d) => d.legacy.verdict === v)) ?? head.legacy.verdict, failed: [...failed.values()] },
    compared: parts.reduce((n, d) => n + d.compared, 0),
    comparedByOperation,
    inconclusive: parts.reduce((n, d) => n + (d.inconclusive ?? 0), 0),
    differences: parts.reduce((n, d) => n + d.differences, 0),
    paths: [...paths.values()].map((p) => ({ ...p, compared: of(p.operation), rate: percent(p.differing, of(p.operation)) })).sort((a, b) => b.differing - a.differing),
    noise: [...noise.values()].map((n) => ({ ...n, compared: of(n.operation), rate: percent(n.legacyVaried, of(n.operation)) })),
    interpretations: head.interpretations,
  };
}

/** The console's lines for the section; `unreachable`: the candidate could not be reached. */
export function differentialLines(d: ReportedDifferential, unreachable = false): string[] {
  const lines = ['', `Differential: ${d.compared} requests compared with the legacy ${d.legacy.baseUrl} (legacy verdict: ${d.legacy.verdict}${d.legacy.failed.length ? `, failed ${d.legacy.failed.map((f) => f.id).join(', ')}` : ''}; not part of the exit code)`];
  if (d.inconclusive) lines.push(`  ! ${d.inconclusive} request(s) not compared: ${NOT_COMPARED_TEXT}`);
  if (!d.paths.length) lines.push(unreachable ? '  nothing compared: the candidate gave no answer' : '  no difference beyond noise');
  for (const p of d.paths) {
    lines.push(`  ≠ ${p.operation} ${p.path}: ${p.differing} of ${p.compared} pairs (${p.rate})`);
    for (const e of p.examples) lines.push(`      ${exampleLine(e)}`);
  }
  if (d.noise.length) lines.push(`  noise (the legacy's own answers differ; not counted):`);
  for (const n of d.noise) lines.push(`  ~ ${n.operation} ${n.path}: legacy varied on ${n.legacyVaried} of ${n.compared} requests (${n.rate}); candidate differed ${n.candidateDiffered} time(s)`);
  return lines;
}
