// Where each result stands in report.html's tree: MUST failures first, then SHOULD failures, then the
// differences from the legacy, then what passed, then what was not evaluated. Allure 3's awesome
// report orders its tree by the results' start times alone (@allurereport/plugin-awesome
// generators.js: the tests sorted by `start`, groups made in that order, each group's leaves sorted
// by `start`; its page's default "order,asc" sorts groups by their earliest leaf's start), and groups
// it by the labels of `groupBy` (html.ts: the outcome first). So each result is given an outcome
// label and a start: the run's start plus its place in this order, in milliseconds (the
// presentation's own times say nothing about the run). Light imports only: the presentation child loads this.
import type { Report, ReportedCheck } from '../lib/reporting/report.js';

/** The label the tree is grouped by first. */
export const OUTCOME = 'outcome';

export const OUTCOMES = {
  mustFailed: 'MUST failed',
  shouldFailed: 'SHOULD failed',
  differs: 'Differs from the legacy',
  passed: 'Passed',
  notEvaluated: 'Not evaluated',
} as const;

/** A catalogue check a standalone run could not feed (always not evaluated). */
interface NotRunCheck { readonly id: string }

export interface TreePlace {
  readonly outcome: string;
  /** Epoch milliseconds: the start Allure orders the result by. */
  readonly start: number;
}

/** The key of a differential result (its path, or the whole comparison). */
export const differentialKey = (what: string): string => `differential ${what}`;

const outcomeOf = (c: ReportedCheck): string => (c.status === 'fail' ? (c.level === 'MUST' ? OUTCOMES.mustFailed : OUTCOMES.shouldFailed)
  : c.status === 'pass' ? OUTCOMES.passed : OUTCOMES.notEvaluated);

/** Every result's outcome and start, by check id or differentialKey(). */
export function treePlaces(report: Report, notRun: readonly NotRunCheck[] = []): ReadonlyMap<string, TreePlace> {
  const d = report.differential;
  const entries: [string, string][] = [
    ...report.checks.map((c): [string, string] => [c.id, outcomeOf(c)]),
    ...notRun.map((c): [string, string] => [c.id, OUTCOMES.notEvaluated]),
    ...(d?.paths ?? []).map((p): [string, string] => [differentialKey(`${p.operation} ${p.path}`), OUTCOMES.differs]),
    ...(d && !d.paths.length ? [[differentialKey('none'), OUTCOMES.passed] as [string, string]] : []),
    ...(d?.noise ?? []).map((n): [string, string] => [differentialKey(`noise ${n.operation} ${n.path}`), OUTCOMES.notEvaluated]),
    ...(d?.inconclusive ? [[differentialKey('inconclusive'), OUTCOMES.notEvaluated] as [string, string]] : []),
  ];
  const rank: readonly string[] = [OUTCOMES.mustFailed, OUTCOMES.shouldFailed, OUTCOMES.differs, OUTCOMES.passed, OUTCOMES.notEvaluated];
  // A stable sort: within an outcome, the catalogue's order (area, operation, check).
  const ordered = entries.map((e, i) => ({ e, i })).sort((a, b) => rank.indexOf(a.e[1]) - rank.indexOf(b.e[1]) || a.i - b.i);
  const base = Date.parse(report.startedAt);
  return new Map(ordered.map(({ e: [key, outcome] }, place) => [key, { outcome, start: (Number.isFinite(base) ? base : 0) + place }]));
}
