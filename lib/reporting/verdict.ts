// One verdict per run, in one spelling: the console, report.html's title, summary.json, junit.xml,
// traceability.md and the exit code all take it from here. It is reached from the MUST checks, the
// SHOULD checks when the run gates on them (--fail-on should), and the differences from the legacy
// in a differential run.
import { cutShort, verdictOf } from '../checks/verdict-rule.js';
import type { RunCounts, RunResult, Verdict } from '../engine/run.js';
import type { ReportedDifferential } from './differential.js';

/** What fails the run: MUST checks only (the default), or SHOULD checks too. */
export type Gate = 'must' | 'should';

export const VERDICT_WORDS: Readonly<Record<Verdict, string>> = {
  conformant: 'CONFORMANT',
  'non-conformant': 'NOT CONFORMANT',
  incomplete: 'INCOMPLETE',
  unreachable: 'UNREACHABLE',
  'nothing-observed': 'NOTHING OF THIS INTERFACE OBSERVED',
};

type Leveled = { readonly level: string; readonly status: 'pass' | 'fail' | 'skip' };

/** The checks whose evidence the verdict needs: the MUST checks. A run of SHOULD checks alone (only
 *  --fail-on should allows one: main.ts) needs theirs in the same way, or every one skipped would
 *  pass it, CONFORMANT of no check judged, where --fail-on must refuses such a run (exit 2). */
export function decidingChecks<C extends Leveled>(checks: readonly C[], gate: Gate): readonly C[] {
  const must = checks.filter((c) => c.level === 'MUST');
  return must.length || gate === 'must' ? must : checks.filter((c) => c.level === 'SHOULD');
}

/** The engine's verdict with the gate applied: under --fail-on should, a failed SHOULD check makes
 *  the run not conformant, as a failed MUST check does, even where the rest was not judged (stopped,
 *  or traffic no MUST check judged): a failure of the gate is known whatever the rest would say.
 *  Unreachable stays: nothing was judged then. */
export const gatedVerdict = (verdict: Verdict, shouldFailed: boolean, gate: Gate): Verdict =>
  (gate === 'should' && shouldFailed && verdict !== 'unreachable' ? 'non-conformant' : verdict);

/** The one verdict of a run or of merged parts (checks/verdict-rule.ts verdictOf) from its checks'
 *  results, the gate applied. `part`: a shard, whose checks left without evidence are judged by the
 *  merge (unless it judged none). */
export function runVerdict(facts: Omit<Parameters<typeof verdictOf>[0], 'mustFailed' | 'mustSkipped' | 'mustJudged'>, checks: readonly Leveled[], gate: Gate): Verdict {
  const deciding = decidingChecks(checks, gate);
  return gatedVerdict(verdictOf({
    ...facts, mustFailed: deciding.some((c) => c.status === 'fail'), mustSkipped: deciding.some((c) => c.status === 'skip'),
    mustJudged: deciding.some((c) => c.status !== 'skip'),
  }), checks.some((c) => c.level === 'SHOULD' && c.status === 'fail'), gate);
}

/** runVerdict of an engine run's result: the candidate's, and a differential run's legacy's. */
export const resultVerdict = (run: RunResult, gate: Gate): Verdict => runVerdict({
  unreachable: run.verdict === 'unreachable', mode: run.mode, interfaceSeen: Object.keys(run.counts.kinds).length > 0,
  casesNotSent: (run.counts.notSent?.case ?? 0) > 0, stopped: cutShort(run), part: run.part !== undefined,
}, run.results.map((x) => ({ level: x.check.level, status: x.status })), gate);

type Written = {
  readonly mode: RunResult['mode'];
  readonly gate?: Gate;
  readonly unreachable?: string;
  readonly stopped?: string;
  readonly inProgress?: boolean;
  readonly configuration: Readonly<Record<string, unknown>>;
  readonly counts: { readonly exchanges: Pick<RunCounts, 'kinds' | 'notSent'> };
  readonly checks: readonly Leveled[];
};

/** runVerdict of a report as written (a rebuild reads one): from its checks'
 *  results, its gate and what it states of the run, never from the verdict it was written with (an
 *  older harness may have reached another). A shard's (--shard, not merged) is a part's. */
export function reportVerdict(r: Written): Verdict {
  const { options, mergedFrom } = r.configuration as { options?: { shard?: unknown }; mergedFrom?: unknown };
  return runVerdict({
    unreachable: r.unreachable !== undefined, mode: r.mode, interfaceSeen: Object.keys(r.counts.exchanges.kinds).length > 0,
    // A report written while a live run went on is one stopped there (resultVerdict): rebuilt, it stays so.
    casesNotSent: (r.counts.exchanges.notSent?.case ?? 0) > 0, stopped: cutShort(r),
    part: options?.shard !== undefined && mergedFrom === undefined,
  }, r.checks, r.gate ?? 'must');
}

type Judged = {
  readonly verdict: Verdict;
  readonly inProgress?: boolean;
  readonly counts?: { readonly exchanges: Pick<RunCounts, 'exchanges' | 'unjudged'> };
  readonly differential?: Pick<ReportedDifferential, 'differences' | 'compared' | 'inconclusive'>;
  readonly runProblems?: readonly string[];
  readonly outputProblems?: readonly string[];
};

/** What kept the run or its outputs from being whole (Report.runProblems, outputProblems): exit 2. */
const problemsOf = (r: Judged): number => (r.runProblems?.length ?? 0) + (r.outputProblems?.length ?? 0);

/** Nothing compared with the legacy: it answered no request, or each two ways. */
const nothingCompared = (r: Judged) => r.differential !== undefined && r.differential.compared === 0 && r.differential.inconclusive > 0;

/** The verdict as every output spells it, e.g. `CONFORMANT, DIFFERS FROM LEGACY (10 values)`. Traffic
 *  forwarded unjudged (the proxy's room full) is said in it, `CONFORMANT, 3 OF 5 EXCHANGES NOT JUDGED`:
 *  the verdict is of the part judged, and a reader of the verdict alone must not take it for all. So
 *  is a report written while a live run goes on, `INCOMPLETE, IN PROGRESS, 12 EXCHANGES JUDGED SO FAR`. */
export function verdictWords(r: Judged): string {
  const d = r.differential;
  const beside = !d ? '' : nothingCompared(r) ? ', NOTHING COMPARED WITH THE LEGACY'
    : d.differences ? `, DIFFERS FROM LEGACY (${d.differences} value${d.differences === 1 ? '' : 's'})` : '';
  const unjudged = r.counts?.exchanges.unjudged ?? 0;
  const forwarded = unjudged + (r.counts?.exchanges.exchanges ?? 0);
  const part = unjudged ? `, ${unjudged} OF ${forwarded} EXCHANGE${forwarded === 1 ? '' : 'S'} NOT JUDGED` : '';
  const judged = r.counts?.exchanges.exchanges ?? 0;
  const live = r.inProgress ? `, IN PROGRESS, ${judged} EXCHANGE${judged === 1 ? '' : 'S'} JUDGED SO FAR` : '';
  const problems = problemsOf(r);
  return `${VERDICT_WORDS[r.verdict] ?? `NO VERDICT OF THE HARNESS (${JSON.stringify(r.verdict)})`}${live}${beside}${part}${problems ? `, ${problems} PROBLEM${problems === 1 ? '' : 'S'}` : ''}`;
}

/** The exit code the verdict calls for: 0 passed the gate, 1 failed it, 2 could not judge (or a
 *  problem kept the run's evidence or its outputs from being whole). */
export function exitCodeOf(r: Judged): 0 | 1 | 2 {
  if (problemsOf(r)) return 2;
  if (r.verdict === 'unreachable') return 2;
  // A difference from the legacy fails the gate as a failed MUST check does, whatever the rest would
  // say: a run cut short (--max-requests, a stop) that found one had exited 2, "could not proceed".
  if (r.verdict === 'non-conformant' || r.differential?.differences) return 1;
  // Only a verdict that is one of the harness's words passes: anything else (a report altered on its
  // way) could not be judged.
  if (r.verdict !== 'conformant' || nothingCompared(r)) return 2;
  return 0;
}

/** The sides of recorded or proxied traffic a run judges (--judge): the server's answers, the
 *  clients' requests (the request checks), or both. */
export type JudgedSides = 'server' | 'client' | 'both';
type Sided = { readonly side?: 'request' | 'head' };

export const judgesSide = (check: Sided, sides: JudgedSides): boolean =>
  sides === 'both' || (sides === 'client') === (check.side === 'request');

type SidedResult = Sided & Leveled;

/** Over traffic, each side's own verdict from its deciding checks, MUST ones as for the run's (a side
 *  with no check run is left out): a failed one makes it not conformant, a passed one conformant,
 *  none judged nothing observed; the gate applied, as to the run's (a side's failed SHOULD check
 *  fails it under --fail-on should). */
export function sideVerdicts(checks: readonly SidedResult[], gate: Gate, stopped: boolean): Partial<Record<'server' | 'client', Verdict>> {
  const out: Partial<Record<'server' | 'client', Verdict>> = {};
  for (const side of ['server', 'client'] as const) {
    const mine = checks.filter((c) => (side === 'client') === (c.side === 'request'));
    if (!mine.length) continue;
    const must = decidingChecks(mine, gate);
    // Stopped, or still going on, a side no deciding check failed is incomplete, as the run is (verdictOf).
    const verdict = must.some((c) => c.status === 'fail') ? 'non-conformant' : stopped ? 'incomplete' : must.some((c) => c.status === 'pass') ? 'conformant' : 'nothing-observed';
    out[side] = gatedVerdict(verdict, mine.some((c) => c.level === 'SHOULD' && c.status === 'fail'), gate);
  }
  return out;
}

/** Whether a run judged two sides: traffic (recorded or proxied), or requests of a recording sent
 *  again (a differential run's --har): the request checks judge the recording's client, not the target. */
export const judgesSides = (report: { readonly mode: string; readonly checks: readonly Sided[] }): boolean =>
  report.mode === 'traffic' || report.checks.some((c) => c.side === 'request');

/** "server CONFORMANT, client NOT CONFORMANT", for the verdict line of a run that judged sides. */
export const sidesWords = (checks: readonly SidedResult[], gate: Gate, stopped: boolean): string =>
  Object.entries(sideVerdicts(checks, gate, stopped)).map(([side, v]) => `${side} ${VERDICT_WORDS[v]}`).join(', ');
