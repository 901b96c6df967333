// One redacted view of a run. summary.json is this; the console, the vitest suites (Allure, JUnit)
// and the HTML report present it. Nothing downstream sees an unredacted value.
import { createHash } from 'node:crypto';
import { AREAS, type Check, type Finding, type Level } from '../checks/check.js';
import { CATALOGUE_HASH } from '../checks/catalogue.js';
import type { CheckResult, RunResult, Verdict } from '../engine/run.js';
import { published } from './boundary.js';
import { curlCommand, MAX_SHOWN, requestText, responseText } from './exchange-text.js';
import type { Redactor } from './redact.js';

/** A finding as reported: its `actual` already redacted, so its sensitivity is no longer needed. */
export type ReportedFinding = Omit<Finding, 'sensitivity'>;

/** A check as reported: its own description (everything but its function), and its result. */
export interface ReportedCheck extends Omit<Check, 'run'> {
  readonly status: CheckResult['status'];
  readonly message: string;
  readonly evidence: readonly ReportedFinding[];
  readonly exchanges: readonly string[];
  /** For a failed check: a curl command replaying the exchange of its first finding (secrets as markers). */
  readonly replay?: string;
}

export interface ReportedExchange {
  readonly id: string;
  readonly title: string;
  readonly method: string;
  readonly url: string;
  readonly status?: number;
  readonly error?: string;
  readonly durationMs: number;
  /** Requests sent for it, when retried (429/503 with Retry-After). */
  readonly attempts?: number;
  readonly request: string;
  readonly response: string;
  readonly curl: string;
  /** SHA-256 of the response body as received: a replay that reproduces it has the same. */
  readonly responseSha256?: string;
}

export interface Tally { passed: number; failed: number; skipped: number }

export interface Report {
  readonly harness: { readonly name: string; readonly version: string; readonly commit?: string };
  readonly catalogueHash: string;
  readonly target: { readonly baseUrl: string; readonly description: string };
  readonly verdict: Verdict;
  readonly unreachable?: string;
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly durationMs: number;
  readonly node: string;
  /** Effective configuration, secrets replaced by markers. */
  readonly configuration: Readonly<Record<string, unknown>>;
  /** What an auditor must know about how the run was made (e.g. TLS verification off). */
  readonly warnings: readonly string[];
  /** Where the time went: process start to first request, sending, judging, presenting (vitest). */
  readonly timings: { readonly startupMs: number; readonly sendingMs: number; readonly checkingMs: number; readonly presentingMs?: number };
  /** Peak resident memory: while sending and judging, and over the whole run (presentation included). */
  readonly peakRss: { readonly checkingBytes: number; readonly runBytes?: number };
  readonly counts: { readonly MUST: Tally; readonly SHOULD: Tally; readonly byArea: Readonly<Record<string, Tally>> };
  readonly checks: readonly ReportedCheck[];
  readonly exchanges: readonly ReportedExchange[];
}

/** Findings kept per check; the rest are counted in the message. */
const MAX_EVIDENCE = 50;
/** Messages and values are shortened for reading, always after redaction (never before). */
const MAX_MESSAGE = 400;
const MAX_ACTUAL = 200;
const shorten = (s: string, max: number) => (s.length > max ? `${s.slice(0, max - 1)}…` : s);

const tally = (rs: readonly CheckResult[]): Tally => ({
  passed: rs.filter((r) => r.status === 'pass').length,
  failed: rs.filter((r) => r.status === 'fail').length,
  skipped: rs.filter((r) => r.status === 'skip').length,
});

export interface ReportContext {
  readonly redactor: Redactor;
  readonly harness: Report['harness'];
  readonly targetDescription: string;
  readonly configuration: Readonly<Record<string, unknown>>;
  readonly warnings?: readonly string[];
  /** Milliseconds from process start to the first request. */
  readonly startupMs?: number;
}

export function buildReport(run: RunResult, ctx: ReportContext): Report {
  const r = ctx.redactor;
  // Learn every sensitive value first, so the value scan hides them wherever they appear.
  for (const ex of run.exchanges) {
    r.learnHeaders(ex.request.headers);
    if (ex.request.body) r.learn(ex.request.body, MAX_SHOWN);
    if (ex.response) {
      r.learnHeaders(ex.response.headers);
      r.learn(ex.response.body.toString('utf8'), MAX_SHOWN);
    }
  }
  const byId = new Map(run.exchanges.map((ex) => [ex.id, ex]));
  const curlOf = (id: string) => { const ex = byId.get(id); return ex ? curlCommand(ex, r) : undefined; };
  const describe = ({ run: _run, ...description }: Check) => description;
  const checks = run.results.map((res): ReportedCheck => ({
    ...describe(res.check),
    status: res.status,
    message: shorten(r.text(res.message), MAX_MESSAGE),
    evidence: res.findings.slice(0, MAX_EVIDENCE).map((f) => ({
      exchange: f.exchange,
      ...(f.path ? { path: f.path } : {}),
      message: shorten(r.text(f.message), MAX_MESSAGE),
      ...(f.actual !== undefined ? { actual: shorten(r.value(f.actual, f.sensitivity), MAX_ACTUAL) } : {}),
    })),
    ...(res.status === 'fail' && res.findings[0] ? { replay: curlOf(res.findings[0].exchange) } : {}),
  }));
  const exchanges = run.exchanges.map((ex): ReportedExchange => ({
    id: ex.id,
    title: ex.title,
    method: ex.request.method,
    url: r.text(ex.request.url),
    ...(ex.response ? { status: ex.response.status } : {}),
    ...(ex.error ? { error: r.text(ex.error.message) } : {}),
    durationMs: ex.durationMs,
    ...(ex.attempts ? { attempts: ex.attempts } : {}),
    request: requestText(ex, r),
    response: responseText(ex, r),
    curl: curlCommand(ex, r),
    ...(ex.response ? { responseSha256: createHash('sha256').update(ex.response.body).digest('hex') } : {}),
  }));
  const at = (level: Level) => run.results.filter((x) => x.check.level === level);
  return published<Report>({
    harness: ctx.harness,
    catalogueHash: CATALOGUE_HASH,
    target: { baseUrl: r.text(run.baseUrl), description: ctx.targetDescription },
    verdict: run.verdict,
    ...(run.unreachable ? { unreachable: r.text(run.unreachable) } : {}),
    startedAt: run.startedAt,
    finishedAt: run.finishedAt,
    durationMs: Date.parse(run.finishedAt) - Date.parse(run.startedAt),
    node: process.version,
    configuration: ctx.configuration,
    warnings: [...(ctx.warnings ?? [])],
    timings: { startupMs: ctx.startupMs ?? 0, ...run.timings },
    peakRss: { checkingBytes: process.resourceUsage().maxRSS * 1024 },
    counts: {
      MUST: tally(at('MUST')),
      SHOULD: tally(at('SHOULD')),
      byArea: Object.fromEntries(AREAS.map((a) => [a, tally(run.results.filter((x) => x.check.area === a))])),
    },
    checks,
    exchanges,
  }, r);
}

export const VERDICT_WORDS: Readonly<Record<Verdict, string>> = {
  conformant: 'CONFORMANT',
  'non-conformant': 'NOT CONFORMANT',
  incomplete: 'INCOMPLETE',
  unreachable: 'UNREACHABLE',
};

/** The HTML report's title: target, verdict, date. */
export const reportTitle = (r: Pick<Report, 'target' | 'verdict' | 'startedAt'>): string =>
  `Conformance of ${r.target.baseUrl}: ${VERDICT_WORDS[r.verdict]} (${r.startedAt.slice(0, 16).replace('T', ' ')} UTC)`;

/** Who checked what, how and when: the run manifest (summary.json, Allure's environment, the HTML). */
export const manifestOf = (report: Report) => ({
  harness: report.harness,
  catalogueHash: report.catalogueHash,
  target: report.target,
  verdict: report.verdict,
  startedAt: report.startedAt,
  finishedAt: report.finishedAt,
  node: report.node,
  configuration: report.configuration,
  warnings: report.warnings,
});

/** summary.json: the report without the exchange texts (those live in the Allure attachments). */
export const summaryOf = (report: Report) => ({
  ...report,
  exchanges: report.exchanges.map(({ request: _q, response: _s, ...rest }) => rest),
});
