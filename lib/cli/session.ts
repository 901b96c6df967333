// One run, whatever its mode (probes, accounts, generated requests, a recording, the proxy, the
// judging reference, a differential run): the target, the redactor (made here and nowhere else), the
// warnings, the progress line, the configuration the reports show, the run's identity, and its end
// (the report built and written, the verdict printed, the exit code). A mode names only its sources
// of evidence and its loop. What a session is set up from is plain data, so the proxy's judge (a
// worker thread) opens the same session from it.
import type { EvidenceSource } from '../checks/check.js';
import { checkById, checksFor } from '../checks/catalogue.js';
import { marker } from '../contract/sensitivity.js';
import { sourcesOf as engineSources, type Progress, type RunOptions, type RunResult } from '../engine/run.js';
import type { GenerateOptions } from '../engine/generation.js';
import { verdictSummary } from '../reporting/console.js';
import { consoleText, displayLine } from '../reporting/display.js';
import type { ReportedDifferential } from '../reporting/differential.js';
import type { SharedFingerprints } from '../reporting/fingerprints.js';
import { Redactor } from '../reporting/redact.js';
import { buildReport, type Report } from '../reporting/report.js';
import { judgesSide, type Gate } from '../reporting/verdict.js';
import { removeAbandonedWorkDirs } from '../reporting/work-dirs.js';
import { shownOptions } from '../options.js';
import { CONFORMANCE_OPTIONS, defaultJobs, JUDGED_BEFORE_WORKERS, runWarnings, type Config } from './config.js';
import { harnessIdentity, runIdentity } from './identity.js';
import { ProgressLine } from './progress.js';
import { finish, startSlowWriters, writeReports, type ReportName, type Written } from './write-reports.js';

/** The sources of evidence a run of this configuration has (they decide which checks can judge): a
 *  recording or a proxy holds only what clients sent; otherwise the harness sends the requests. */
export const sourcesOf = (config: Config): Set<EvidenceSource> => engineSources({
  probes: !config.proxy && (!config.har || config.legacyUrl !== undefined),
  cases: config.accounts !== undefined || (config.har !== undefined && config.legacyUrl !== undefined),
  generate: config.generate !== undefined,
  // Replayed to both sides, a recording's requests keep their source: the request checks judge them.
  recorded: config.har ? ['har'] : config.proxy ? ['proxy'] : false,
});

/** The checks a run of this configuration runs: those its sources can feed, --only, --skip, --judge. */
export const selectedChecks = (config: Config) =>
  checksFor(sourcesOf(config)).filter((c) => (!config.only || config.only.includes(c.id)) && !config.skip?.includes(c.id) && judgesSide(c, config.judge));

/** Why --only named checks this run cannot feed (the sources each needs), or undefined. */
export function unfed(config: Config): string | undefined {
  const sources = sourcesOf(config);
  const missing = (config.only ?? []).map((id) => checkById.get(id)).filter((c) => c?.sources && !c.sources.some((s) => sources.has(s)));
  return missing.length ? `${missing.map((c) => `${c!.id} needs ${c!.probe ?? c!.sources!.join(' or ')}`).join('; ')}` : undefined;
}

/** What a session is opened with: plain data (a worker thread receives it as it is). */
export interface SessionSetup {
  /** The command, as its one-line errors name it. */
  readonly program: string;
  readonly reportDir: string;
  readonly target: { readonly baseUrl: string; readonly description: string };
  /** The options as given, as the reports show them (from the option table). */
  readonly options: Readonly<Record<string, unknown>>;
  /** The effective values the options stand for. `requestValues` are redacted when shown. */
  readonly effective: Readonly<Record<string, unknown>>;
  /** The options as given, raw (--run-id is read from them). */
  readonly given: Readonly<Record<string, unknown>>;
  /** Headers sent with every request (--header): their values are secret, their names marked. */
  readonly headers: Readonly<Record<string, string>>;
  readonly showPersonalData: boolean;
  readonly warnings: readonly string[];
  readonly gate: Gate;
  /** The outputs to write; all when undefined. */
  readonly reports?: ReadonlySet<ReportName>;
  readonly quiet: boolean;
  /** The --accounts file (its hash is part of the run's identity), and the accounts it holds for this run. */
  readonly accounts?: string;
  readonly cases?: number;
}

/** The setup of a `conformance` run of this configuration against `target`. */
export function setupOf(config: Config, reportDir: string, target: SessionSetup['target'], cases?: number): SessionSetup {
  return {
    program: 'conformance', reportDir, target,
    options: shownOptions(CONFORMANCE_OPTIONS, config.given),
    effective: {
      baseUrl: target.baseUrl, ...(config.legacyUrl ? { legacyUrl: config.legacyUrl } : {}),
      ...(config.proxy ? { proxy: `${config.proxy.host}:${config.proxy.port}` } : {}),
      reportDir: config.reportDir, namespaces: config.namespaces, timeoutMs: config.timeoutMs, maxBodyBytes: config.maxBodyBytes,
      concurrency: config.concurrency, requestValues: config.values,
    },
    given: config.given, headers: config.headers, showPersonalData: config.showPersonalData, warnings: runWarnings(config),
    gate: config.failOn, reports: config.reports, quiet: config.quiet,
    ...(config.accounts ? { accounts: config.accounts } : {}), ...(cases !== undefined ? { cases } : {}),
  };
}

/** What a mode adds to its result for the report. */
export interface Outcome {
  readonly differential?: ReportedDifferential;
  /** The generated requests' count and seed (stated even when the run picked the seed: it replays the run). */
  readonly generate?: GenerateOptions;
  /** Problems found after the run (exit 2), stated in every output (Report.runProblems). */
  readonly problems?: readonly string[];
}

/** What a judging worker's redactor is made of (judge-worker.ts): the session's policy and secret
 *  header names, and its fingerprints in shared memory. */
export interface LearnerSetup {
  readonly showPersonalData: boolean;
  readonly secrets: readonly string[];
  readonly secretHeaders: readonly string[];
  readonly fingerprints: SharedFingerprints;
}

export class Session {
  /** The run's one redactor: the policy, --header values secret before any traffic, their names
   *  marked as secret headers; it learns every exchange judged (`engine`). */
  readonly redactor: Redactor;
  /** Stated before the run starts and in every report it writes. */
  readonly warnings: string[];
  readonly startupMs = Math.round(performance.now());
  private readonly progress: ProgressLine | undefined;

  constructor(readonly setup: SessionSetup, private readonly print: (text: string) => void = (t) => process.stdout.write(t)) {
    this.redactor = new Redactor({ showPersonalData: setup.showPersonalData, secrets: Object.values(setup.headers) });
    for (const name of Object.keys(setup.headers)) this.redactor.secretHeader(name);
    // What a killed run left in RAM or the temporary directory goes; what cannot is said, not fatal.
    this.warnings = [...setup.warnings, ...removeAbandonedWorkDirs()];
    this.targetNow = setup.target;
    this.progress = setup.quiet ? undefined
      : new ProgressLine({ tty: process.stderr.isTTY === true, write: (t) => process.stderr.write(t), ...(setup.cases !== undefined ? { cases: setup.cases } : {}) });
  }

  /** What the run judges; a live run learns its address once it listens (`retarget`). */
  get target(): SessionSetup['target'] { return this.targetNow; }
  private targetNow: SessionSetup['target'];
  retarget(baseUrl: string): void { this.targetNow = { ...this.targetNow, baseUrl }; }

  /** A line on the console (the caller made its parts display-safe; CI commands are escaped here). */
  say(line: string): void {
    this.progress?.done(); // a redrawn progress line is cleared first
    this.print(`${consoleText(line)}\n`);
  }

  /** States the warnings known before the run. */
  announce(): void { for (const w of this.warnings) this.say(`  ! ${displayLine(w)}`); }

  /** A warning found during the run: printed now, and stated in the reports. */
  warn(warning: string): void {
    this.warnings.push(warning);
    this.say(`  ! ${displayLine(warning)}`);
  }

  /** Teaches the redactor an exchange's secrets: the Judge calls it for every exchange it judges. */
  readonly learn = (...args: Parameters<Redactor['learnFingerprints']>): void => this.redactor.learnFingerprints(...args);

  /** The options every engine run of this session takes: the redactor learns every exchange, the
   *  progress line follows the run, and the slow report writers start their children once the last
   *  request is taken (startSlowWriters). */
  engine(): Pick<RunOptions, 'observe' | 'onProgress' | 'onLastTaken'> {
    const progress = this.progress;
    return {
      observe: this.learn, onLastTaken: () => startSlowWriters(this.setup.reports),
      ...(progress ? { onProgress: (p: Progress) => progress.update(p) } : {}),
    };
  }

  /** The options of an engine run judged by `jobs` worker threads (issue 24; defaultJobs() when not
   *  chosen), each learning into this session's fingerprints (shared memory from when they start).
   *  Unless the user chose `jobs`, they start only after the first JUDGED_BEFORE_WORKERS exchanges
   *  (judged here), so a small run does not pay for starting them. */
  judging(jobs: number | undefined): Pick<RunOptions, 'jobs' | 'judgeWorker' | 'judgedBeforeWorkers'> {
    const workers = jobs ?? defaultJobs();
    if (workers === 0) return { jobs: 0 };
    const data = (): LearnerSetup => ({
      showPersonalData: this.setup.showPersonalData, secrets: Object.values(this.setup.headers),
      secretHeaders: this.redactor.secretHeaderNames, fingerprints: this.redactor.shareFingerprints(),
    });
    return { jobs: workers, judgeWorker: { program: 'cli/judge-worker', data }, judgedBeforeWorkers: jobs === undefined ? JUDGED_BEFORE_WORKERS : 0 };
  }

  /** The configuration the reports show: the options as given, the effective values they stand
   *  for, header values as markers and request values redacted. */
  configuration(generate?: GenerateOptions, shown = true): Record<string, unknown> {
    const { requestValues, ...effective } = this.setup.effective;
    // The URLs given, as ownUrl shows them: never redacted again (report.ts OWN_VALUES). Not `shown`:
    // as given (the run's identity is a digest of its configuration, shards' compared by it).
    const given = (v: unknown): unknown => (typeof v === 'string' && shown ? this.redactor.ownUrl(v) : v);
    return {
      options: Object.fromEntries(Object.entries(this.setup.options).map(([k, v]) => [k, k === 'base-url' || k === 'legacy-url' ? given(v) : v])),
      ...effective,
      ...(effective.baseUrl !== undefined ? { baseUrl: given(effective.baseUrl) } : {}),
      ...(effective.legacyUrl !== undefined ? { legacyUrl: given(effective.legacyUrl) } : {}),
      headers: Object.fromEntries(Object.entries(this.setup.headers).map(([k, v]) => [k, marker('secret header', v)])),
      ...(requestValues !== undefined ? { requestValues: JSON.parse(this.redactor.text(JSON.stringify(requestValues))) as unknown } : {}),
      ...(generate ? { generate } : {}),
    };
  }

  /** The report of a result (a run's end, or a live run's so far). */
  async report(result: RunResult, outcome: Outcome = {}): Promise<Report> {
    const configuration = this.configuration(outcome.generate);
    return buildReport(result, {
      redactor: this.redactor, harness: harnessIdentity(), targetDescription: this.target.description, configuration,
      warnings: this.warnings, startupMs: this.startupMs, gate: this.setup.gate, headers: this.setup.headers,
      ...(outcome.differential ? { differential: outcome.differential } : {}),
      ...(outcome.problems?.length ? { runProblems: outcome.problems } : {}),
      run: await runIdentity(this.configuration(outcome.generate, false), this.setup.given, process.env, this.setup.accounts),
    });
  }

  /** Writes the chosen reports of a result. */
  async write(result: RunResult, outcome: Outcome = {}, onVerdict?: (report: Report) => void): Promise<Written> {
    return writeReports(await this.report(result, outcome), this.setup.reportDir, this.setup.reports, onVerdict);
  }

  /** The run's end: reports written, the verdict printed; the exit code. */
  async finish(result: RunResult, outcome: Outcome = {}): Promise<number> {
    // The verdict is printed as soon as summary.json and the fast reports are written.
    return finish(await this.write(result, outcome, (report) => this.print(verdictSummary(report))), this.setup.program);
  }
}

export const openSession = (setup: SessionSetup): Session => new Session(setup);
