// Judging traffic that never ends by itself (the judging reference, the validating proxy): each
// exchange judged as it finishes, its findings printed as they happen (one line each, redacted with
// what the exchange taught its own scope, made safe for a terminal), and the reports written on
// demand, one writer at a time, from what was judged so far.
import type { Check, Finding } from '../checks/check.js';
import type { ExchangeView } from '../checks/exchange-view.js';
import type { ServiceNamespaces } from '../contract/namespaces.js';
import { Judge, runResultOf } from '../engine/run.js';
import type { Exchange } from '../http/exchange.js';
import { failLine, type LineFit } from '../checks/fail-line.js';
import { consoleText, displayLine, printedLength, shownMessage, shownPath, shownValue } from '../reporting/display.js';
import type { Redactor } from '../reporting/redact.js';
import { MAX_MESSAGE } from '../reporting/report.js';
import type { Session } from './session.js';
import { writeWhole, type Written } from './write-reports.js';

export type Failures = readonly (readonly [Check, readonly Finding[]])[];

/** Lines printed for one check on one exchange; one more says how many were not. A request of
 *  10 000 unknown members printed 10 000 lines, each redacted: 0.5 to 1 s of the event loop. */
export const LINES_PER_CHECK = 10;

/** Characters of a request's path a live line shows: what a client wrote, cut (after redaction) so
 *  that a line of the longest check id, a finding's path cut as the reports cut it and this path
 *  still leaves its message room within MAX_MESSAGE. Longer than any path the contract gives. */
const MAX_LIVE_PATH = 64;

/** The lines of one judged exchange: "✗ ID [LEVEL] exchange METHOD /path: message at $.path" per
 *  finding (LINES_PER_CHECK of a check at most), or one "✓ …: no finding" when `clean` lines are
 *  asked for and there is none. */
export function findingLines(ex: Exchange, failures: Failures, redactor: Redactor, clean: boolean): string[] {
  // No line, no scope: what the exchange teaches one is only for its own lines (the run-wide
  // fingerprints were learned as it was judged), and walking it again was half the proxy judge's CPU.
  if (!failures.length && !clean) return [];
  const scope = redactor.scope();
  // A "✓" line shows the request's path alone: the request is learned for it, not the answer (its
  // values were fingerprinted run-wide as it was judged; walked again here, a third of the judging
  // reference's CPU per request).
  const { response: _answer, answerHead: _head, ...request } = ex;
  scope.learnExchange(failures.length ? ex : request);
  let path = ex.request.url;
  try { path = new URL(ex.request.url).pathname; } catch { path = path.split('?')[0]!; }
  // Each part a client wrote (its path, a value it sent) is cut, after redaction: a 900 KB value in a
  // request printed a 900 KB line.
  const what = `${ex.id} ${ex.request.method} ${shownValue(scope.line(path), MAX_LIVE_PATH)}`;
  const line = (text: string) => consoleText(displayLine(text));
  // A body left out (or not whole) was not judged: "no finding" alone read as a body that passed.
  const unjudgedBody = ex.request.bodyLeftOut ? ' (its body went past the body cap: not judged)' : ex.request.bodyUnfinished ? ' (its body was still coming when its answer was whole: not judged)' : '';
  if (!failures.length) return clean ? [line(`✓ ${what}: no finding${unjudgedBody}`)] : [];
  return failures.flatMap(([check, findings]) => {
    const id = `✗ ${check.id} [${check.level}] `;
    // Each line within MAX_MESSAGE as printed, as a report's failed-check line is: its path and message cut by failLine.
    const fit: LineFit = { max: MAX_MESSAGE - id.length, width: printedLength, path: (p) => shownPath(scope.line(p)), message: (m, max) => shownMessage(scope.line(m), max) };
    const shown = findings.slice(0, LINES_PER_CHECK).map((f) => line(`${id}${failLine({ judged: 0, judgedProbes: 0, failed: 1, findings: 1, first: { ...f, exchange: what } }, fit)}`));
    const more = findings.length - shown.length;
    return more > 0 ? [...shown, line(`${id}${what}: and ${more} more finding(s) of this check here (the reports count them all)`)] : shown;
  });
}

export class LiveJudging {
  private readonly judge: Judge;
  private readonly startedAt = new Date().toISOString();
  private readonly t0 = performance.now();
  private writing: Promise<unknown> = Promise.resolve();
  /** Exchanges judged since the reports were last written. */
  private unreported = 0;
  /** Exchanges that went by unjudged so far (the proxy's count): stated in the reports' counts and verdict. */
  unjudged = 0;
  /** The note stated now on each topic (see `state`). */
  private readonly notes = new Map<string, string>();

  /** The session's redactor learns every exchange the judge judges (through `learn`, when given). */
  constructor(readonly session: Session, checks: readonly Check[], namespaces: ServiceNamespaces, learn: Session['learn'] = session.learn) {
    this.judge = new Judge(checks, { namespaces }, learn);
  }

  get redactor(): Redactor { return this.session.redactor; }
  /** Stated in every report written from now on. */
  get warnings(): string[] { return this.session.warnings; }

  /** States `note` among the warnings of every report written from now on, in place of the one
   *  stated on `topic` before (undefined: none any more). */
  state(topic: string, note: string | undefined): void {
    const before = this.notes.get(topic);
    const at = before === undefined ? -1 : this.warnings.indexOf(before);
    if (at >= 0) this.warnings.splice(at, 1);
    if (note === undefined) { this.notes.delete(topic); return; }
    this.notes.set(topic, note);
    this.warnings.push(note);
  }

  /** Judges one finished exchange; the checks that found something, with their findings. `view`:
   *  one the caller made of `ex` with the same namespaces (its parsing is shared). */
  judgeExchange(ex: Exchange, view?: ExchangeView): Failures {
    this.unreported++;
    return this.judge.judge(ex, view);
  }

  get exchanges(): number { return this.judge.exchanges; }
  /** Whether anything was judged since the reports were last written. */
  get changed(): boolean { return this.unreported > 0; }

  /** Writes every report of what was judged so far, whole or not at all (writeWhole: a stop at once
   *  keeps the last set); one writer at a time (two in one directory would interleave). Unless
   *  `last` (traffic has ended), they say the run is in progress: INCOMPLETE, unless a MUST check
   *  failed already, and never a verdict the run's end could still change. */
  report(last = false): Promise<Written> {
    const next = this.writing.then(async () => {
      this.unreported = 0;
      const run = runResultOf(this.judge, { baseUrl: this.session.target.baseUrl, mode: 'traffic', startedAt: this.startedAt, sendingMs: performance.now() - this.t0, checkingStartedAt: performance.now(), ...(last ? {} : { inProgress: true as const }) });
      const report = await this.session.report(this.unjudged ? { ...run, counts: { ...run.counts, unjudged: this.unjudged } } : run);
      return writeWhole(report, this.session.setup.reportDir, this.session.setup.reports);
    });
    this.writing = next.catch(() => undefined);
    return next;
  }
}
