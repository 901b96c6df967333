// One redacted, display-safe view of a run. summary.json is this; the console, the vitest presentation
// (Allure, JUnit), the HTML report and traceability.md present it. Checks are reported as aggregates
// (exchanges judged, failed, distinct findings with counts, a few examples with their account), so
// the report stays the same size for one account or a hundred thousand. Nothing downstream sees an
// unredacted value: every string crosses the boundary (boundary.ts) on the way in.
import { cutShort } from '../checks/verdict-rule.js';
import { AREAS, type Check, type Level } from '../checks/check.js';
import { CATALOGUE_HASH } from '../checks/catalogue.js';
import { coverageOf } from './coverage.js';
import type { GenerationSummary, ShrunkFailure } from '../engine/generation.js';
import type { CheckResult, RunCounts, RunResult, Verdict } from '../engine/run.js';
import type { Example, FindingGroup } from '../engine/tally.js';
import { failLine, type LineFit } from '../checks/fail-line.js';
import { answerHeadOf, type Exchange } from '../http/exchange.js';
import { published, type OwnValues } from './boundary.js';
import { printedLength, shownMessage, shownPath, printedValue } from './display.js';
import { curlCommand, CUT_SHORT, requestText, responseText, secretFieldsOf, shownLine } from './exchange-text.js';
import type { Redactor } from './redact.js';
import type { ReportedDiffExample, ReportedDifferential, ReportedNoise, ReportedPathDifferences } from './differential.js';
import { exitCodeOf, judgesSides, resultVerdict, sideVerdicts, verdictWords, type Gate } from './verdict.js';
import { findingId } from './finding-id.js';
import { replayBounds, respelledMembers } from './replay-script.js';
import { peakRssBytes } from '../peak-rss.js';

/** A finding as reported: its `actual` already redacted, so its sensitivity is no longer needed. */
export type ReportedFinding = Omit<Example, 'sensitivity'>;

/** What a check says of itself: everything but its functions. */
export type CheckDescription = Omit<Check, 'appliesTo' | 'judge'>;

export interface CheckCounts {
  /** Exchanges judged (of which probes), of which with findings, and of its kind but not judgeable. */
  readonly judged: number;
  readonly probes: number;
  readonly failed: number;
  readonly skipped: number;
  readonly findings: number;
}

/** A check as reported: its own description and its aggregated result. */
export interface ReportedCheck extends CheckDescription {
  readonly status: CheckResult['status'];
  readonly message: string;
  readonly counts: CheckCounts;
  /** Distinct findings (received values masked), most frequent first. */
  readonly groups: readonly FindingGroup[];
  /** The first findings, with the exchange and account each came from. */
  readonly evidence: readonly ReportedFinding[];
  /** Kept exchanges (probes, examples) it judged: shown with it. */
  readonly exchanges: readonly string[];
  /** For a failed check: a curl command replaying the exchange of its first finding (secrets as markers). */
  readonly replay?: string;
  /** Its first failure on a generated request, shrunk to the smallest request that still fails it. */
  readonly shrunk?: ReportedShrink;
}

/** A shrunk failure as reported: the smallest failing request, how to replay it, and what the check
 *  found on its own answer. */
export interface ReportedShrink extends Omit<ShrunkFailure, 'findings'> {
  /** The request as sent (redacted like every request): request line, headers, body. */
  readonly request: string;
  /** A curl command that sends it again (secrets as markers). */
  readonly curl: string;
  readonly findings: readonly ReportedFinding[];
  /** The seed whose run generated it: --generate N --seed S sends it again. */
  readonly seed: number;
}

export interface ReportedExchange {
  readonly id: string;
  readonly title: string;
  readonly source: Exchange['origin']['source'];
  readonly case?: number;
  readonly method: string;
  readonly url: string;
  /** The answer's status: its response's, or of a head kept without its body (Exchange.answerHead). */
  readonly status?: number;
  readonly error?: string;
  /** A recording holds its request but not its answer (no response, no body, a body text naming no
   *  bytes): replay.sh has no answer of the run to compare a replay's with, not even "no answer". */
  readonly answerNotRecorded?: true;
  /** The answer's body went past the body cap and was not read on (its status, where it came, is
   *  `status`): replay.sh compares a replay's status alone with the run's. */
  readonly answerPastCap?: true;
  /** The answer's head came but its body stalled, was too slow or was cut off (CUT_SHORT; `error`
   *  says which): replay.sh compares a replay's status alone with the run's, saying why. */
  readonly answerCutShort?: true;
  readonly durationMs: number;
  /** Requests sent for it, when retried (429/503 with Retry-After). */
  readonly attempts?: number;
  readonly request: string;
  readonly response: string;
  readonly curl: string;
  /** SHA-256 of the response body as received: a replay that reproduces it has the same. */
  readonly responseSha256?: string;
  /** An account's sensitive request members the file wrote with escapes: replay.sh asks for their text as written (respelledMembers). */
  readonly respelled?: readonly string[];
  /** For each secret header field of its curl, in order, where its value first came in the run (the
   *  same value, the same source; never the value): null for the run's own --header value, else the
   *  exchange and its field (the `field`th named `name`). replay.sh asks for one variable per source. */
  readonly secretSources?: readonly (SecretSource | null)[];
}

/** A secret header value recorded with an exchange: the `field`th field named `name` (in any case) of `exchange`. */
export interface SecretSource { readonly exchange: string; readonly name: string; readonly field: number }

export interface Tally { passed: number; failed: number; skipped: number }

/** The run a report belongs to (cli/identity.ts): a merge takes only shards whose identities agree. */
export interface RunIdentity {
  readonly runId: string;
  /** Where the id came from: --run-id, a CI variable (GITHUB_RUN_ID, …), or derived. */
  readonly runIdFrom: string;
  /** SHA-256 of the configuration the shards share (all but --shard, --report-dir and the like) and the harness. */
  readonly configurationSha256: string;
  readonly catalogueHash: string;
  /** SHA-256 of the --accounts file's bytes. */
  readonly accountsSha256?: string;
}

export interface Report {
  readonly harness: { readonly name: string; readonly version: string; readonly commit?: string };
  readonly catalogueHash: string;
  readonly run?: RunIdentity;
  readonly target: { readonly baseUrl: string; readonly description: string };
  readonly mode: RunResult['mode'];
  /** The run's verdict, the gate applied (verdict.ts spells it, with the differences, for every output). */
  readonly verdict: Verdict;
  /** What fails the run: MUST checks, or SHOULD checks too (--fail-on should). */
  readonly gate: Gate;
  readonly unreachable?: string;
  /** What stopped the run before it sent everything: a signal, or its parent process ended (the verdict is then incomplete at best). */
  readonly stopped?: string;
  /** Written while a live run (the proxy, the judging reference) goes on: the verdict is of the
   *  exchanges judged so far, INCOMPLETE unless a MUST check failed already. */
  readonly inProgress?: true;
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly durationMs: number;
  readonly node: string;
  /** Effective configuration, secrets replaced by markers. */
  readonly configuration: Readonly<Record<string, unknown>>;
  /** What an auditor must know about how the run was made (e.g. TLS verification off). */
  readonly warnings: readonly string[];
  /** Where the time went: process start to first request, sending and judging, presenting (vitest). */
  readonly timings: { readonly startupMs: number; readonly sendingMs: number; readonly checkingMs: number; readonly presentingMs?: number };
  /** Peak resident memory: while sending and judging, over the whole run, and of the child process
   *  that presented the results through vitest (Allure, JUnit). */
  readonly peakRss: { readonly checkingBytes: number; readonly runBytes?: number; readonly presentationBytes?: number };
  readonly counts: {
    readonly MUST: Tally;
    readonly SHOULD: Tally;
    readonly byArea: Readonly<Record<string, Tally>>;
    readonly exchanges: RunCounts;
  };
  readonly checks: readonly ReportedCheck[];
  /** The exchanges kept for the report: the probes and those the examples point at. */
  readonly exchanges: readonly ReportedExchange[];
  /** Set when the run generated requests (--generate): how many, and the seed that replays them. */
  readonly generation?: GenerationSummary;
  /** Set by a differential run (--legacy-url): the differences from the legacy, and its verdict. */
  readonly differential?: ReportedDifferential;
  /** What the run's evidence lost, found after it (an accounts file that changed under the run): each
   *  makes the exit code 2, and every output says so. Carried into a merge. */
  readonly runProblems?: readonly string[];
  /** Outputs this run could not write: each makes the exit code 2, and every output written says so.
   *  About this directory's writing only: neither a merge nor a rebuild carries them. */
  readonly outputProblems?: readonly string[];
}

/** Messages and values are shortened for reading, always after redaction (never before); a message's
 *  quoted values before its end (shownMessage). */
export const MAX_MESSAGE = 400;
/** A failing check's line in a report: made from its first finding as shown (redacted, then cut),
 *  within MAX_MESSAGE with its count after. */
export const REPORT_LINE: LineFit = { max: MAX_MESSAGE, width: printedLength, path: shownPath, message: shownMessage };
/** A received value in a finding, in characters as printed (printedValue). */
const MAX_ACTUAL = 200;

export const tally = (rs: readonly { status: CheckResult['status'] }[]): Tally => ({
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
  /** A differential run's section (differential.ts); crosses the boundary with the rest. */
  readonly differential?: ReportedDifferential;
  /** Report.runProblems. */
  readonly runProblems?: readonly string[];
  /** --fail-on should: a failed SHOULD check fails the run too. */
  readonly gate?: Gate;
  readonly run?: RunIdentity;
  /** The run's --header values by lower-case name: a secret field holding one is that --header's. */
  readonly headers?: Readonly<Record<string, string>>;
}

export const describeCheck = ({ appliesTo: _a, judge: _j, ...description }: Check): CheckDescription => description;

export function buildReport(run: RunResult, ctx: ReportContext): Report {
  const r = ctx.redactor;
  // Each kept exchange is shown with what it taught its own scope (its secrets, wherever they appear
  // in its texts and in the findings drawn from it).
  const scopes = new Map<string, Redactor>();
  for (const ex of run.exchanges) {
    const scope = r.scope();
    scope.learnExchange(ex);
    scopes.set(ex.id, scope);
  }
  const scopeOf = (id: string) => scopes.get(id) ?? r;
  // Texts a scope made with the harness's own text in them (a generated request's body, a value it
  // sent): the boundary passes each through that scope again, which spares the own parts.
  const shownBy = new Map<string, Redactor>();
  const byScope = (text: string, scope: Redactor): string => { if (scope !== r) shownBy.set(text, scope); return text; };
  const byId = new Map(run.exchanges.map((ex) => [ex.id, ex]));
  // Every curl within the run's bounds, as replay.sh's (one copied from summary.json does not hang).
  const bounds = replayBounds(ctx);
  const curlOf = (id: string) => { const ex = byId.get(id); return ex ? byScope(curlCommand(ex, scopeOf(id), bounds), scopeOf(id)) : undefined; };
  const findingsOf = (exchange: string, findings: readonly Omit<Example, 'exchange'>[]): ReportedFinding[] => findings.map((f) => {
    const scope = scopeOf(exchange);
    return {
      exchange,
      ...(f.case !== undefined ? { case: f.case } : {}),
      ...(f.path ? { path: shownPath(scope.line(f.path)) } : {}),
      // A value the harness sent is shown as sent, shortened or not (Redactor.value); any other of
      // megabytes by its redacted head (findingLine, findingValue).
      message: shownMessage(f.actual !== undefined && scope.isOwn(f.actual) ? scope.line(f.message) : scope.findingLine(f.message), MAX_MESSAGE),
      ...(f.actual !== undefined ? { actual: scope.isOwn(f.actual) ? byScope(scope.shown([[printedValue(f.actual, MAX_ACTUAL), true]]), scope) : printedValue(scope.findingValue(f.actual, f.sensitivity), MAX_ACTUAL) } : {}),
    };
  });
  // The engine keeps the shrunk request's exchange whenever it reports one.
  const shrunkOf = ({ findings, ...s }: ShrunkFailure): ReportedShrink => {
    const ex = byId.get(s.exchange)!;
    const scope = scopeOf(ex.id);
    return { ...s, request: byScope(requestText(ex, scope), scope), curl: byScope(curlCommand(ex, scope, bounds), scope), findings: findingsOf(ex.id, findings), seed: run.generation?.seed ?? 0 };
  };
  const checks = run.results.map((res): ReportedCheck => {
    const evidence = res.examples.flatMap((f) => findingsOf(f.exchange, [f]));
    return {
      ...describeCheck(res.check),
      status: res.status,
      // A failure's line quotes its first finding as the evidence shows it (redacted with what that
      // finding's exchange taught its scope, then cut); any other line is the engine's.
      message: res.status === 'fail'
        ? failLine({ judged: res.judged, judgedProbes: res.judgedProbes, failed: res.failed, findings: res.findingCount, ...(evidence[0] ? { first: evidence[0] } : {}) }, REPORT_LINE)
        : shownMessage(scopeOf(res.examples[0]?.exchange ?? '').line(res.message), MAX_MESSAGE),
      counts: { judged: res.judged, probes: res.judgedProbes, failed: res.failed, skipped: res.skipped, findings: res.findingCount },
      groups: res.groups.map((g) => ({ ...g, ...(g.path !== undefined ? { path: shownPath(r.line(g.path)) } : {}), message: shownMessage(r.line(g.message), MAX_MESSAGE) })),
      evidence,
      exchanges: res.exchanges,
      ...(res.status === 'fail' && res.examples[0] ? { replay: curlOf(res.examples[0].exchange) } : {}),
      ...(res.shrunk ? { shrunk: shrunkOf(res.shrunk) } : {}),
    };
  });
  // Where each secret header value of the kept exchanges first came: values stay in this map, in
  // the process; two values never share a replay.sh variable, one value is asked for once.
  const sourceOf = new Map<string, SecretSource | null>();
  const secretSources = (ex: Exchange, scope: Redactor): (SecretSource | null)[] | undefined => {
    const nth = new Map<string, number>();
    const sources = secretFieldsOf(ex, scope).map(([name, value]) => {
      const field = (nth.get(name.toLowerCase()) ?? 0) + 1;
      nth.set(name.toLowerCase(), field);
      let source = sourceOf.get(value);
      if (source === undefined) sourceOf.set(value, (source = ctx.headers?.[name.toLowerCase()] === value ? null : { exchange: ex.id, name, field }));
      return source;
    });
    return sources.length ? sources : undefined;
  };
  const exchanges = run.exchanges.map((ex): ReportedExchange => {
    const scope = scopeOf(ex.id);
    const respelled = respelledMembers(ex);
    const sources = secretSources(ex, scope);
    const head = answerHeadOf(ex);
    return {
      id: ex.id,
      // A recorded exchange's title and URL are as long as its URL: cut (its curl sends it whole).
      title: shownLine(ex.title, scope),
      source: ex.origin.source,
      ...(ex.origin.case !== undefined ? { case: ex.origin.case } : {}),
      method: shownLine(scope.text(ex.request.method), scope),
      url: shownLine(scope.text(ex.request.url), scope),
      ...(head ? { status: head.status } : {}),
      ...(ex.error ? { error: scope.text(ex.error.message) } : {}),
      ...(ex.error?.kind === 'not-recorded' ? { answerNotRecorded: true as const } : {}),
      ...(ex.error?.kind === 'too-large' ? { answerPastCap: true as const } : {}),
      ...(head && !ex.response && CUT_SHORT.has(ex.error?.kind) ? { answerCutShort: true as const } : {}),
      durationMs: ex.durationMs,
      ...(ex.attempts ? { attempts: ex.attempts } : {}),
      request: byScope(requestText(ex, scope), scope),
      response: responseText(ex, scope),
      curl: byScope(curlCommand(ex, scope, bounds), scope),
      ...(ex.response ? { responseSha256: ex.response.sha256 } : {}),
      ...(respelled ? { respelled } : {}),
      ...(sources ? { secretSources: sources } : {}),
    };
  });
  const at = (level: Level) => run.results.filter((x) => x.check.level === level);
  return published<Report>({
    harness: ctx.harness,
    catalogueHash: CATALOGUE_HASH,
    ...(ctx.run ? { run: ctx.run } : {}),
    target: { baseUrl: r.ownUrl(run.baseUrl), description: ctx.targetDescription },
    mode: run.mode,
    verdict: resultVerdict(run, ctx.gate ?? 'must'),
    gate: ctx.gate ?? 'must',
    ...(run.unreachable ? { unreachable: r.text(run.unreachable) } : {}),
    ...(run.stopped ? { stopped: run.stopped } : {}),
    ...(run.inProgress ? { inProgress: true as const } : {}),
    ...(ctx.runProblems?.length ? { runProblems: ctx.runProblems.map((p) => r.text(p)) } : {}),
    startedAt: run.startedAt,
    finishedAt: run.finishedAt,
    durationMs: Date.parse(run.finishedAt) - Date.parse(run.startedAt),
    node: process.version,
    configuration: ctx.configuration,
    warnings: [...(ctx.warnings ?? []), ...(r.boundWarning ? [r.boundWarning] : [])],
    timings: { startupMs: ctx.startupMs ?? 0, ...run.timings },
    peakRss: { checkingBytes: peakRssBytes() },
    counts: {
      MUST: tally(at('MUST')),
      SHOULD: tally(at('SHOULD')),
      byArea: Object.fromEntries(AREAS.map((a) => [a, tally(run.results.filter((x) => x.check.area === a))])),
      exchanges: run.counts,
    },
    checks,
    exchanges,
    ...(run.generation ? { generation: run.generation } : {}),
    ...(ctx.differential ? { differential: ctx.differential } : {}),
  }, r, harnessTexts(run), shownBy, new Set([...MEMBER_NAMES, ...configurationNames(ctx.configuration)]), OWN_VALUES);
}

/** The report's values the harness wrote itself, never redacted (boundary.ts): its name and version,
 *  the catalogue's hash, the mode, verdict and gate, its clock, the signal that stopped it, node's
 *  version, each check's status and level, each exchange's source, the legacy's verdict; and the URLs
 *  it was given (the target's and the legacy's, as options and as effective values), which ownUrl
 *  redacted of the run's given secrets alone when they were put in. */
const OWN_VALUES: OwnValues = {
  harness: true, catalogueHash: true, mode: true, verdict: true, gate: true, stopped: true, startedAt: true, finishedAt: true, node: true,
  checks: { status: true, level: true }, exchanges: { source: true }, differential: { legacy: { baseUrl: true, verdict: true, failed: { level: true } } },
  target: { baseUrl: true }, configuration: { options: { 'base-url': true, 'legacy-url': true }, baseUrl: true, legacyUrl: true },
};

/** The configuration's member names at any depth (its options, the effective values, the namespaces,
 *  the request values' operations and fields, …): the harness's words, never redacted as names (a
 *  --header "X-Api-Key: timeoutMs" masked the key of the run's timeout). The header names under
 *  `headers` are the user's, redacted as before; every value is, as before. */
function configurationNames({ headers: _user, ...own }: Readonly<Record<string, unknown>>): Set<string> {
  const names = new Set(['headers']);
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) { names.add(k); walk(v); }
  };
  walk(own);
  return names;
}

/** The report's own member names, which published() never redacts as names: a secret or personal
 *  value spelled like one ("Gate", "exchanges") is masked where it stands as a value, never as a
 *  name (summary.json without its gate or counts.exchanges states another verdict, or none). Each
 *  type whole (the compiler says when a member is missing); a name not here is redacted as before. */
type ReportMember = keyof Report | keyof Report['harness'] | keyof Report['target'] | keyof Report['timings'] | keyof Report['peakRss']
  | keyof Report['counts'] | keyof RunIdentity | keyof Tally | keyof RunCounts | keyof ReportedCheck | keyof CheckCounts | keyof FindingGroup
  | keyof ReportedFinding | keyof ReportedShrink | keyof ReportedExchange | keyof SecretSource | keyof GenerationSummary
  | keyof ReportedDifferential | keyof ReportedDifferential['legacy'] | keyof ReportedDifferential['legacy']['failed'][number]
  | keyof ReportedPathDifferences | keyof ReportedDiffExample | keyof ReportedNoise;
const MEMBER_NAMES: ReadonlySet<string> = new Set(Object.keys({
  harness: true, catalogueHash: true, run: true, target: true, mode: true, verdict: true, gate: true, unreachable: true, stopped: true,
  inProgress: true, runProblems: true, outputProblems: true, startedAt: true, finishedAt: true, durationMs: true, node: true,
  configuration: true, warnings: true, timings: true, peakRss: true, counts: true, checks: true, exchanges: true, generation: true,
  differential: true, name: true, version: true, commit: true, baseUrl: true, description: true, startupMs: true, sendingMs: true,
  checkingMs: true, presentingMs: true, checkingBytes: true, runBytes: true, presentationBytes: true, MUST: true, SHOULD: true,
  byArea: true, runId: true, runIdFrom: true, configurationSha256: true, accountsSha256: true, passed: true, failed: true,
  skipped: true, bySource: true, notSent: true, cases: true, kinds: true, notInterface: true, notInterfaceTotal: true, unjudged: true,
  id: true, title: true, area: true, operation: true, clause: true, level: true, requirement: true, interpretation: true, judges: true,
  probe: true, sources: true, side: true, status: true, message: true, groups: true, evidence: true, replay: true, shrunk: true,
  judged: true, probes: true, findings: true, path: true, count: true, actual: true, exchange: true, case: true, from: true,
  steps: true, tried: true, request: true, curl: true, seed: true, source: true, method: true, url: true, error: true, attempts: true,
  response: true, responseSha256: true, answerNotRecorded: true, answerPastCap: true, answerCutShort: true, respelled: true, secretSources: true, field: true, requests: true, shrinkRequests: true,
  legacy: true, compared: true, comparedByOperation: true, inconclusive: true, differences: true, paths: true, noise: true,
  interpretations: true, differing: true, rate: true, examples: true, shownBy: true, candidate: true, how: true, legacyVaried: true,
  candidateDiffered: true,
} satisfies Record<ReportMember, true>));

/** What the harness itself wrote into a report: every word of the checks' descriptions, the areas,
 *  the ids of the exchanges and the titles of its probes (published never redacts these). */
function harnessTexts(run: RunResult): Set<string> {
  const texts = new Set<string>(AREAS);
  for (const res of run.results) for (const v of Object.values(describeCheck(res.check))) if (typeof v === 'string') texts.add(v);
  for (const ex of run.exchanges) {
    texts.add(ex.id);
    if (ex.origin.source === 'probe') texts.add(ex.title);
  }
  return texts;
}

/** A failed check's findings as lines (JUnit and the vitest presentation): its first ten, with the
 *  exchange, case and path of each (and the value received, when `values`), and its distinct
 *  findings when there are several. The presentation leaves the values out: they are in its
 *  evidence attachment. */
export const findingLines = (c: ReportedCheck, values: boolean): string[] => [
  ...c.evidence.slice(0, 10).map((e) => `  ${e.exchange}${e.case !== undefined ? ` (case ${e.case})` : ''}${e.path ? ` ${e.path}` : ''}: ${e.message}${values && e.actual !== undefined ? ` (got "${e.actual}")` : ''}`),
  ...(c.groups.length > 1 ? ['distinct findings:', ...c.groups.slice(0, 10).map((g) => `  ${g.count} × ${g.path ? `${g.path}: ` : ''}${g.message}`)] : []),
];

/** The HTML report's title: target, verdict, date. */
export const reportTitle = (r: Pick<Report, 'target' | 'verdict' | 'startedAt' | 'differential'>): string =>
  `Conformance of ${r.target.baseUrl}: ${verdictWords(r)} (${r.startedAt.slice(0, 16).replace('T', ' ')} UTC)`;

/** Who checked what, how and when: the run manifest (summary.json, Allure's environment, the HTML). */
export const manifestOf = (report: Report) => ({
  harness: report.harness,
  catalogueHash: report.catalogueHash,
  ...(report.run ? { run: report.run } : {}),
  target: report.target,
  mode: report.mode,
  verdict: report.verdict,
  verdictWords: verdictWords(report),
  gate: report.gate,
  startedAt: report.startedAt,
  finishedAt: report.finishedAt,
  node: report.node,
  configuration: report.configuration,
  warnings: report.warnings,
});

/** summary.json's one vocabulary for a status, as its counts, the console and JUnit say it. */
export const STATUS_WORDS = { pass: 'passed', fail: 'failed', skip: 'skipped' } as const satisfies Record<CheckResult['status'], string>;

/** A check's status read back from summary.json (one written before the change says pass, fail, skip). */
export const statusOfWord = (word: string): CheckResult['status'] =>
  (Object.entries(STATUS_WORDS).find(([, w]) => w === word)?.[0] ?? word) as CheckResult['status'];

/** summary.json: the report without the exchange texts (those live in the Allure attachments). Every
 *  status is passed, failed or skipped; the verdict is spelled as the console spells it
 *  (`verdictWords`), beside its enum (`verdict`, one word per enum value: verdict.ts VERDICT_WORDS). */
export const summaryOf = (report: Report) => ({
  // The verdict as the console spells it, and the exit code it calls for, beside the enum.
  verdictWords: verdictWords(report),
  exitCode: exitCodeOf(report),
  ...report,
  // Each distinct finding with its stable id, for CI and ticket systems to follow across runs.
  checks: report.checks.map((c) => ({ ...c, status: STATUS_WORDS[c.status], groups: c.groups.map((g) => ({ ...g, id: findingId(c.id, g) })) })),
  exchanges: report.exchanges.map(({ request: _q, response: _s, ...rest }) => rest),
  // Over traffic, or a recording's requests sent again, each side's verdict (the server's answers, the clients' requests).
  ...(judgesSides(report) ? { sides: sideVerdicts(report.checks, report.gate ?? 'must', cutShort(report)) } : {}),
  // Over traffic, what the verdict reaches: kinds observed, checks with and without evidence.
  ...(report.mode === 'traffic' ? { coverage: coverageOf(report) } : {}),
});
