// Judging traffic that never ends by itself (the judging reference, the validating proxy): each
// exchange judged as it finishes, its findings printed as they happen (one line each, redacted with
// what the exchange taught its own scope, made safe for a terminal), and the reports written on
// demand, one writer at a time, from what was judged so far.
import type { Check, Finding } from '../checks/check.js';
import type { ServiceNamespaces } from '../contract/namespaces.js';
import { Judge, runResultOf } from '../engine/run.js';
import type { Exchange } from '../http/exchange.js';
import { displayLine } from '../reporting/display.js';
import { Redactor } from '../reporting/redact.js';
import { buildReport } from '../reporting/report.js';
import { harnessIdentity } from './identity.js';
import { writeReports, type Written } from './write-reports.js';

export type Failures = readonly (readonly [Check, readonly Finding[]])[];

/** The lines of one judged exchange: "✗ ID [LEVEL] exchange METHOD /path: message at $.path" per
 *  finding, or one "✓ …: no finding" when `clean` lines are asked for and there is none. */
export function findingLines(ex: Exchange, failures: Failures, redactor: Redactor, clean: boolean): string[] {
  const scope = redactor.scope();
  scope.learnExchange(ex);
  let path = ex.request.url;
  try { path = new URL(ex.request.url).pathname; } catch { path = path.split('?')[0]!; }
  const what = `${ex.id} ${ex.request.method} ${path}`;
  const line = (text: string) => displayLine(scope.line(text));
  if (!failures.length) return clean ? [line(`✓ ${what}: no finding`)] : [];
  return failures.flatMap(([check, findings]) => findings.map((f) =>
    line(`✗ ${check.id} [${check.level}] ${what}: ${f.message}${f.path && /^[$/]/.test(f.path) ? ` at ${f.path}` : ''}`)));
}

export interface LiveOptions {
  readonly checks: readonly Check[];
  readonly namespaces: ServiceNamespaces;
  readonly reportDir: string;
  readonly targetDescription: string;
  readonly configuration: Readonly<Record<string, unknown>>;
  readonly warnings?: readonly string[];
  readonly showPersonalData?: boolean;
  /** Values known to be secret before any traffic (configured header values). */
  readonly secrets?: readonly string[];
}

export class LiveJudging {
  readonly redactor: Redactor;
  private readonly judge: Judge;
  private readonly startedAt = new Date().toISOString();
  private readonly t0 = performance.now();
  private writing: Promise<unknown> = Promise.resolve();
  /** Exchanges judged since the reports were last written. */
  private unreported = 0;
  baseUrl = '';
  /** Stated in every report written from now on. */
  readonly warnings: string[];

  constructor(private readonly options: LiveOptions) {
    this.warnings = [...(options.warnings ?? [])];
    this.redactor = new Redactor({ showPersonalData: options.showPersonalData ?? false, secrets: options.secrets ?? [] });
    this.judge = new Judge(options.checks, { namespaces: options.namespaces }, (ex, parsed) => this.redactor.learnFingerprints(ex, parsed));
  }

  /** Judges one finished exchange; the checks that found something, with their findings. */
  judgeExchange(ex: Exchange): Failures {
    this.unreported++;
    return this.judge.judge(ex);
  }

  get exchanges(): number { return this.judge.exchanges; }
  /** Whether anything was judged since the reports were last written. */
  get changed(): boolean { return this.unreported > 0; }

  /** Writes every report of what was judged so far; one writer at a time (two in one directory would interleave). */
  report(): Promise<Written> {
    const next = this.writing.then(async () => {
      this.unreported = 0;
      const result = runResultOf(this.judge, { baseUrl: this.baseUrl, mode: 'traffic', startedAt: this.startedAt, sendingMs: performance.now() - this.t0, checkingStartedAt: performance.now() });
      const built = buildReport(result, {
        redactor: this.redactor, harness: harnessIdentity(), targetDescription: this.options.targetDescription,
        configuration: this.options.configuration, warnings: this.warnings,
      });
      return writeReports(built, this.options.reportDir);
    });
    this.writing = next.catch(() => undefined);
    return next;
  }
}
