// The engine: sends the requests of the run (the probes, each account's requests) with bounded
// concurrency, pulling them lazily; judges every exchange (sent here or recorded elsewhere) with
// every check bound to its kind as soon as it completes; folds the verdicts per check; and drops the
// exchange, keeping only the probes and the few exchanges that examples point at. No printing, no
// files: callers present the result.
import type { Dispatcher } from 'undici';
import { checksFor } from '../checks/catalogue.js';
import type { Check, EvidenceSource, Finding, Level, Look } from '../checks/check.js';
import { ExchangeView, type CheckSettings } from '../checks/exchange-view.js';
import { readsKindOnly } from '../checks/kinds.js';
import { provenRecordMade, type ProvenRecord } from '../checks/fast-record.js';
import type { KeysOf, ValuesOf } from '../checks/walk-json.js';
import { bounded, kindLabel, type RequestKind } from '../contract/classify.js';
import { UNREACHABLE, type Exchange, type ExchangeSpec } from '../http/exchange.js';
import type { JsonValue } from '../json/value.js';
import type { ParsedXml } from '../xml/model.js';
import { BodySlots, createDispatcher, PHASES_PER_EXCHANGE, RequestBudget, send, type SendContext, type TransportOptions } from '../http/send.js';
import type { Generation, GenerateOptions, GenerationSummary, ShrunkFailure } from './generation.js';
import { collectGarbage, LARGE_BODY_BYTES } from './collect.js';
import { planProbes, type RequestSettings } from './probes.js';
import { CheckTally, type Example, type FindingGroup } from './tally.js';
import { failLine, type FailParts, type LineFit } from '../checks/fail-line.js';
import { JudgePool, type JudgeWorkerSpec } from './judge-pool.js';
import { cutShort, verdictOf, type Verdict } from '../checks/verdict-rule.js';

export type Source<T> = Iterable<T> | AsyncIterable<T>;

export interface RunOptions extends RequestSettings, TransportOptions {
  readonly baseUrl: string;
  /** Checks to run (default: the whole catalogue). */
  readonly checks?: readonly Check[];
  /** Send the probes (default true); they are sent once, whatever else the run holds. */
  readonly probes?: boolean;
  /** Set when this run is one part of a larger one ("shard 2/4", which sends no probes): a check left
   *  without evidence here is judged when the parts are merged, so it makes this part not "incomplete"
   *  (unless the part judged nothing: verdict-rule.ts). */
  readonly part?: string;
  /** More requests to send and judge, read lazily (one account's requests after another). */
  readonly cases?: Source<ExchangeSpec>;
  /** Exchanges that already happened (recorded or live traffic): judged, never sent. */
  readonly recorded?: Source<Exchange>;
  /** Requests generated from the contract (--generate), sent after the probes and cases; each
   *  check's first failure on one is shrunk (generation.ts). */
  readonly generate?: GenerateOptions;
  /** probe: the harness made the evidence, so a MUST check left without any is "incomplete".
   *  traffic: the verdict is about what was observed; a check without evidence is "not observed". */
  readonly mode?: 'probe' | 'traffic';
  /** Exchanges in flight at once. */
  readonly concurrency?: number;
  /** Supply a dispatcher (tests); otherwise one is made from the options and closed here. */
  readonly dispatcher?: Dispatcher;
  /** At most this many requests in the run (retries count). */
  readonly maxRequests?: number;
  /** At most this many requests per second. */
  readonly ratePerSecond?: number;
  /** Called with every exchange, once judged and before it is dropped (the CLI learns its secrets);
   *  with the answer's JSON value or XML tree when the checks parsed it. */
  readonly observe?: (ex: Exchange, parsed?: JsonValue | ParsedXml | ProvenRecord, keysOf?: KeysOf, valuesOf?: ValuesOf) => void;
  /** Worker threads that judge (issue 24; 0 or absent: this thread judges): they judge while this
   *  thread sends or reads and folds their judgements in the order the exchanges came
   *  (judge-pool.ts), so the result is the one judging here in that order gives. They run
   *  `judgeWorker`, whose learner stands for `observe`. */
  readonly jobs?: number;
  readonly judgeWorker?: JudgeWorkerSpec;
  /** Exchanges judged on this thread before the workers start (0: they start with the run). A run
   *  of fewer never starts them: starting one costs about as much CPU as judging a few hundred. */
  readonly judgedBeforeWorkers?: number;
  /** Called as the run moves (after every exchange judged). */
  readonly onProgress?: (progress: Progress) => void;
  /** Called once the last request is taken to be sent, or the last recorded exchange read: what is
   *  left is in flight or being judged. The CLI starts its slow report writers' children then, not
   *  while they would take CPU from a long run or its target on the same machine (a run stopped
   *  early may not call it: a writer starts its child when it writes). */
  readonly onLastTaken?: () => void;
  /** Aborted (its reason: the signal's name): nothing more is sent or read, what is in flight is
   *  judged, and the run is incomplete unless a MUST check failed. */
  readonly stop?: AbortSignal;
}

export interface Progress {
  readonly exchanges: number;
  readonly failedExchanges: number;
  readonly sent: number;
  /** Distinct accounts judged so far. */
  readonly cases: number;
}

export interface CheckResult {
  readonly check: Check;
  readonly status: 'pass' | 'fail' | 'skip';
  /** One line. */
  readonly message: string;
  /** Exchanges judged (of which probes), with findings, and of its kind but not judgeable (no answer, not a record…). */
  readonly judged: number;
  readonly judgedProbes: number;
  readonly failed: number;
  readonly skipped: number;
  /** Findings in all, and the first of them. */
  readonly findingCount: number;
  readonly examples: readonly Example[];
  readonly groups: readonly FindingGroup[];
  /** Kept exchanges (probes, examples) it judged. */
  readonly exchanges: readonly string[];
  /** Its first failure on a generated request, shrunk to the smallest request that still fails it. */
  readonly shrunk?: ShrunkFailure;
}

export { verdictOf, type Verdict };

export interface RunCounts {
  /** Exchanges judged in all, and by source. */
  readonly exchanges: number;
  readonly bySource: Readonly<Record<string, number>>;
  /** Of those, the requests never sent (the request cap), by source; absent when all were sent. */
  readonly notSent?: Readonly<Record<string, number>>;
  /** Distinct accounts (cases) judged. */
  readonly cases: number;
  /** Exchanges of this interface, by kind (operation, route, selector, JSONP). */
  readonly kinds: Readonly<Record<string, number>>;
  /** Exchanges that are not this interface, by method and path (the first 50 distinct). */
  readonly notInterface: Readonly<Record<string, number>>;
  readonly notInterfaceTotal: number;
  /** Exchanges forwarded (--proxy) and never judged, besides those judged; absent when none: the
   *  verdict says it judged only part of the traffic (verdict.ts). */
  readonly unjudged?: number;
}

export interface RunResult {
  readonly baseUrl: string;
  readonly mode: 'probe' | 'traffic';
  readonly startedAt: string;
  readonly finishedAt: string;
  /** The exchanges kept for the report: the probes, and those examples point at. */
  readonly exchanges: readonly Exchange[];
  readonly counts: RunCounts;
  readonly results: readonly CheckResult[];
  readonly verdict: Verdict;
  /** Set when the verdict is "unreachable": the one-line cause. */
  readonly unreachable?: string;
  /** Set when options.stop aborted before the run sent everything: its reason (a signal, or its parent process ended). */
  readonly stopped?: string;
  /** Set on the result of a live run while it goes on (written before it stops): incomplete, unless a MUST check failed already. */
  readonly inProgress?: true;
  /** RunOptions.part: the report reaches the verdict again, the gate applied (reporting/verdict.ts). */
  readonly part?: string;
  /** Wall time spent sending and judging (together: each exchange is judged as it completes). */
  readonly timings: { readonly sendingMs: number; readonly checkingMs: number };
  /** Set when the run generated requests: how many, the seed that replays them, what shrinking cost. */
  readonly generation?: GenerationSummary;
}

/** Every probe of a run in flight at once: a probe run costs one round trip, not one per exchange. */
export const DEFAULT_CONCURRENCY = 32;
/** A kept exchange keeps this much of its body for the report (its size and digest describe the whole). */
export const KEPT_BODY_BYTES = 256 * 1024;
const MAX_NOT_INTERFACE = 50;
/** Distinct kinds of this interface counted apart at most (a run's are a few dozen), and what the rest are counted as. */
const MAX_KINDS = 500;
const OTHER_KINDS = `kinds past the first ${MAX_KINDS}`;
/** Shrinking sends no candidate after this many exchanges' worst-case time (each 3 × --timeout). */
export const SHRINK_EXCHANGE_TIMES = 4;

/** Pulls items lazily and runs `task` on each, at most `limit` at once: a source of a million
 *  accounts is never read ahead of what is in flight. (p-limit queues every item it is given, so it
 *  cannot hold back a lazy source; and Promise.race over the tasks in flight would leave a reaction
 *  on each of them per completion. A counter and one waiting resolver do it in a few lines.) A task
 *  may give its place to the next item before it ends (`release`, true when it did): at most
 *  `released` tasks run on so at once, so at most `limit + released` are alive. */
export async function pump<T>(source: Source<T>, limit: number, task: (item: T, release: () => boolean) => Promise<void>, released = 0): Promise<void> {
  let active = 0;
  let held = 0;
  let wake: (() => void) | undefined;
  let failure: { error: unknown } | undefined;
  const wakeUp = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  const slot = () => new Promise<void>((resolve) => { wake = resolve; });
  for await (const item of source) {
    while (active >= limit) await slot();
    if (failure) break;
    active++;
    let gave = false;
    const release = (): boolean => {
      if (!gave && held < released) {
        gave = true;
        active--;
        held++;
        wakeUp();
      }
      return gave;
    };
    const finished = () => {
      if (gave) held--;
      else active--;
      wakeUp();
    };
    task(item, release).then(finished, (error: unknown) => {
      failure ??= { error };
      finished();
    });
  }
  while (active + held > 0) await slot();
  if (failure) throw failure.error;
}

/** Resolves in the check phase after the next one: after every immediate queued before it, and
 *  after the requests dispatched until then are written (undici writes to a connection it reuses
 *  in an immediate of its own, queued at the dispatch). One promise per turn of the loop. */
let nextWrites: Promise<void> | undefined;
const afterWrites = (): Promise<void> => (nextWrites ??= new Promise<void>((resolve) => setImmediate(() => {
  nextWrites = undefined;
  setImmediate(resolve);
})));

/** An answer smaller than this lets its exchange give its place to the next request before it is
 *  judged (runConformance); a larger one holds it until then, so large bodies stay `concurrency` at most. */
const EARLY_RELEASE_BYTES = 64 * 1024;

/** Exchanges judged and not yet folded (runConformance without workers; comparisons in a differential
 *  run): past this many, an exchange judged waits for the earlier ones before its slot goes to the
 *  next request. */
export const MAX_UNFOLDED = 512;
/** What Judge.fold reads of an exchange it will not keep: all an exchange waiting to be folded holds. */
export const foldedPart = (ex: Exchange): Exchange => ({ id: ex.id, title: ex.title, origin: ex.origin, startedAt: ex.startedAt, request: ex.request, durationMs: ex.durationMs, ...(ex.error ? { error: ex.error } : {}) });

/** Results folded in the order their tasks began, whatever order the tasks end in (runConformance's
 *  exchanges, a differential run's triples): the reports' examples are then the same on every run of
 *  the same input. A task that ends before an earlier one waits for its turn (`turn`): until it is
 *  folded when it is held whole, else only while MAX_UNFOLDED wait. A fold that throws fails the run:
 *  every task waiting for its turn is woken to fail with it (left waiting, nothing kept the run alive
 *  and it ended with no verdict: judge-pool.ts's twin). */
export class FoldOrder<T> {
  private readonly unfolded = new Map<number, T | undefined>();
  private begun = 0;
  private folded = 0;
  private waiters: (() => void)[] = [];
  private failure: { readonly error: unknown } | undefined;

  constructor(private readonly fold: (item: T) => void) {}

  /** A task's place in the order. */
  begin(): number {
    return this.begun++;
  }

  /** A task's result (undefined: none to fold), and every one whose turn has come folded. */
  settle(seq: number, item: T | undefined): void {
    this.unfolded.set(seq, item);
    if (this.failure) throw this.failure.error;
    const from = this.folded;
    while (this.unfolded.has(this.folded)) {
      const next = this.unfolded.get(this.folded);
      this.unfolded.delete(this.folded++);
      try {
        if (next !== undefined) this.fold(next);
      } catch (error) {
        this.failure = { error };
        this.wake();
        throw error;
      }
    }
    if (this.folded !== from) this.wake();
  }

  /** Until the task `seq` may go on: folded, when held `whole`; else while MAX_UNFOLDED wait. */
  async turn(seq: number, whole: boolean): Promise<void> {
    while (this.folded <= seq && (whole || this.unfolded.size > MAX_UNFOLDED)) {
      await new Promise<void>((resolve) => this.waiters.push(resolve));
      if (this.failure) throw this.failure.error;
    }
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}

/** What unjudgeableBy reads of a check: which side of the exchange it judges. */
const ANSWER_SIDE = {};
const REQUEST_SIDE = { side: 'request' } as const;
const HEAD_SIDE = { side: 'head' } as const;

/** A check that throws is a harness defect: say so rather than hide it as a pass. */
function safely(check: Check, view: ExchangeView): Look {
  try {
    return check.judge(view);
  } catch (e) {
    return [{ message: `harness error in ${check.id}: ${(e as Error).message}` }];
  }
}

export const keepHead = (ex: Exchange): Exchange =>
  (ex.response && ex.response.body.length > KEPT_BODY_BYTES ? { ...ex, response: { ...ex.response, body: Buffer.from(ex.response.body.subarray(0, KEPT_BODY_BYTES)) } } : ex);

/** Sources whose exchanges the harness did not send (it observed them): never counted as sent. The
 *  proxy's are: it forwarded them, so a target it could never reach makes the run "unreachable". */
const OBSERVED: ReadonlySet<EvidenceSource> = new Set(['har', 'client']);

/** The checks that found something on an exchange, with their findings. */
export type Failures = (readonly [Check, readonly Finding[]])[];

/** What the checks found on one exchange before it is folded into the tallies: made on the thread
 *  that judges it, folded on the run's thread in the order the exchanges came (judge-pool.ts). */
export interface Judgement {
  /** Its kind (operation, route, selector, JSONP), for an exchange of this interface; */
  readonly label?: string;
  /** otherwise its method and path. */
  readonly where?: string;
  /** [index of the check's tally, its look], for every check that applies. */
  readonly looks: readonly (readonly [number, Look])[];
}

/** Judges exchanges one at a time as they arrive; holds the tallies and the kept exchanges. */
export class Judge {
  readonly tallies: CheckTally[];
  readonly kept: Exchange[] = [];
  private readonly bySource = new Map<string, number>();
  private readonly notSent = new Map<string, number>();
  private readonly kinds = new Map<string, number>();
  private readonly notInterface = new Map<string, number>();
  private readonly cases = new Set<number>();
  private notInterfaceTotal = 0;
  exchanges = 0;
  failedExchanges = 0;
  sent = 0;
  unreachable = 0;
  firstUnreachable: string | undefined;

  constructor(checks: readonly Check[], private readonly settings: CheckSettings, private readonly observe?: RunOptions['observe']) {
    this.tallies = checks.map((c) => new CheckTally(c));
    this.kindOnly = checks.map((c) => readsKindOnly(c.appliesTo));
  }

  /** Judges one exchange; returns the checks that found something, with their findings. `view`: one
   *  the caller made of `ex` with the same settings, so a body is parsed once for everything that reads it. */
  judge(ex: Exchange, view = new ExchangeView(ex, this.settings)): Failures {
    return this.fold(ex, this.judgedHere(ex, view));
  }

  /** judgement() of one exchange, its secrets learned (observe), not yet folded: judge() without the
   *  fold, for a judging worker and for the run's thread judging in the workers' stead. */
  judgedHere(ex: Exchange, view = new ExchangeView(ex, this.settings)): Judgement {
    const judgement = this.judgement(ex, view);
    // A record proven from its bytes has no tree: its values to learn came with the proof.
    this.observe?.(ex, provenRecordMade(view) ?? view.parsedBody(), view.keysOf, view.valuesOf);
    return judgement;
  }

  /** What every check that applies finds on one exchange, not yet folded: the part of judging a
   *  worker of judge-pool.ts does. */
  judgement(ex: Exchange, view: ExchangeView): Judgement {
    const looks: (readonly [number, Look])[] = [];
    const { tallies } = this;
    const { kind } = view;
    // Whether anything of it can be judged depends on the check's side alone: asked once for each side.
    const unjudgeable = view.unjudgeableBy(ANSWER_SIDE);
    const unjudgeableRequest = view.unjudgeableBy(REQUEST_SIDE);
    const unjudgeableHead = view.unjudgeableBy(HEAD_SIDE);
    for (const i of this.candidates.get(kind) ?? this.candidatesOf(view)) {
      const { check } = tallies[i]!;
      if (!this.kindOnly[i] && !check.appliesTo(view)) continue;
      const why = check.side === 'request' ? unjudgeableRequest : check.side === 'head' ? unjudgeableHead : unjudgeable;
      looks.push([i, why ? { skip: why } : safely(check, view)]);
    }
    return kind.operation ? { label: kindLabel(kind), looks }
      : { where: `${bounded(ex.request.method)} ${bounded(ex.request.url.replace(/^https?:\/\/[^/]+/, '').split('?')[0]!)}`, looks };
  }

  /** Whether each check's appliesTo reads the exchange's kind alone (kinds.ts onKind). */
  private readonly kindOnly: readonly boolean[];
  /** Per kind (the classifier hands out one object per distinct request kind): the checks that may
   *  apply to its exchanges, in order: those of the kind, and those whose appliesTo reads more. */
  private readonly candidates = new WeakMap<RequestKind, readonly number[]>();
  private candidatesOf(view: ExchangeView): readonly number[] {
    const out: number[] = [];
    for (let i = 0; i < this.tallies.length; i++) if (!this.kindOnly[i] || this.tallies[i]!.check.appliesTo(view)) out.push(i);
    this.candidates.set(view.kind, out);
    return out;
  }

  /** Folds a judgement of `ex` into the counts and tallies, keeping `ex` (its head) when a probe or an
   *  example points at it; returns the checks that found something, with their findings. */
  fold(ex: Exchange, j: Judgement): Failures {
    this.exchanges++;
    this.bySource.set(ex.origin.source, (this.bySource.get(ex.origin.source) ?? 0) + 1);
    if (ex.origin.case !== undefined && this.cases.size < 10_000_000) this.cases.add(ex.origin.case);
    if (ex.error?.kind === 'not-sent') this.notSent.set(ex.origin.source, (this.notSent.get(ex.origin.source) ?? 0) + 1);
    else if (!OBSERVED.has(ex.origin.source)) {
      this.sent++;
      if (ex.error && UNREACHABLE.has(ex.error.kind)) { this.unreachable++; this.firstUnreachable ??= ex.error.message; }
    }
    if (j.label !== undefined) {
      // Kinds past MAX_KINDS (a recording of a method per entry) are counted together.
      const label = this.kinds.has(j.label) || this.kinds.size < MAX_KINDS ? j.label : OTHER_KINDS;
      this.kinds.set(label, (this.kinds.get(label) ?? 0) + 1);
    } else {
      this.notInterfaceTotal++;
      const where = j.where!;
      if (this.notInterface.has(where) || this.notInterface.size < MAX_NOT_INTERFACE) this.notInterface.set(where, (this.notInterface.get(where) ?? 0) + 1);
    }
    let keep = ex.origin.source === 'probe';
    const failures: (readonly [Check, readonly Finding[]])[] = [];
    const { tallies } = this;
    for (const [i, look] of j.looks) {
      const t = tallies[i]!;
      if (Array.isArray(look) && look.length) failures.push([t.check, look]);
      if (t.fold(ex.id, ex.origin, look)) keep = true;
    }
    if (failures.length) this.failedExchanges++;
    if (keep) {
      this.kept.push(keepHead(ex));
      for (const [i] of j.looks) tallies[i]!.kept.add(ex.id); // every check that judged it
    }
    return failures;
  }

  /** Keeps an exchange judged outside the tallies (a shrunk request) for the report, shown with `check`. */
  keep(ex: Exchange, check: Check): void {
    if (!this.kept.some((k) => k.id === ex.id)) this.kept.push(keepHead(ex));
    this.tallies.find((t) => t.check === check)?.kept.add(ex.id);
  }

  get caseCount(): number {
    return this.cases.size;
  }

  counts(): RunCounts {
    return {
      exchanges: this.exchanges,
      bySource: Object.fromEntries(this.bySource),
      ...(this.notSent.size ? { notSent: Object.fromEntries(this.notSent) } : {}),
      cases: this.cases.size,
      kinds: Object.fromEntries([...this.kinds].sort(([a], [b]) => (a < b ? -1 : 1))),
      notInterface: Object.fromEntries(this.notInterface),
      notInterfaceTotal: this.notInterfaceTotal,
    };
  }
}

/** What a check's one-line message is made from: its counts and its first finding. */
export interface MessageParts extends FailParts {
  readonly skipped: number;
  /** Why it could not look, for a check that judged nothing, or the first reason, otherwise. */
  readonly skipReason?: string;
}

/** The status and one-line message of a check from its counts (a run's, or shards' merged). */
export function statusAndMessage(p: MessageParts, check: Check, mode: 'probe' | 'traffic', part?: string, fit?: LineFit): { status: CheckResult['status']; message: string } {
  if (p.judged === 0) {
    const reason = p.skipReason ?? (mode === 'traffic' ? `not observed in this traffic${check.probe ? ` (needs ${check.probe})` : ''}`
      : part ? `no exchange of its kind in ${part} (the merged report judges it)` : 'no exchange of its kind in this run');
    return { status: 'skip', message: reason };
  }
  const note = p.skipped ? `; not judged on ${p.skipped} exchange(s): ${p.skipReason ?? 'no answer to judge'}` : '';
  if (!p.failed) return { status: 'pass', message: p.judged > p.judgedProbes ? `passed on ${p.judged} exchange${p.judged === 1 ? '' : 's'}${note}` : `passed${note}` };
  return { status: 'fail', message: failLine(p, fit) };
}

export function resultOf(t: CheckTally, mode: 'probe' | 'traffic', part?: string): CheckResult {
  const skips = [...t.skipReasons].map(([reason, n]) => (n > 1 ? `${reason} (${n} exchanges)` : reason));
  const { status, message } = statusAndMessage({
    judged: t.judged, judgedProbes: t.judgedProbes, failed: t.failed, skipped: t.skipped, findings: t.findings,
    ...(t.examples[0] ? { first: t.examples[0] } : {}),
    ...(skips.length ? { skipReason: t.judged === 0 ? skips.join('; ') : skips[0]! } : {}),
  }, t.check, mode, part);
  return {
    check: t.check, status, message, judged: t.judged, judgedProbes: t.judgedProbes, failed: t.failed, skipped: t.skipped, findingCount: t.findings,
    examples: t.examples, groups: t.findingGroups(), exchanges: [...t.kept],
  };
}

export const failedAt = (results: readonly CheckResult[], level: Level) => results.filter((r) => r.status === 'fail' && r.check.level === level);

/** What feeds a run: the probes, cases, generated requests, and exchanges recorded elsewhere (from
 *  which sources; any a client could send, unless named). */
export interface EvidencePlan {
  readonly probes?: boolean;
  readonly cases?: boolean;
  readonly generate?: boolean;
  readonly recorded?: boolean | readonly EvidenceSource[];
}

/** The sources of evidence a run has (the CLI's and the engine's one rule). */
export const sourcesOf = (plan: EvidencePlan): Set<EvidenceSource> => new Set<EvidenceSource>([
  ...(plan.probes !== false ? ['probe' as const] : []),
  ...(plan.cases ? ['case' as const] : []),
  ...(plan.generate ? ['generated' as const] : []),
  ...(plan.recorded === true ? ['har' as const, 'proxy' as const, 'client' as const] : plan.recorded || []),
]);

/** `items` until `stop` aborts: the rest is neither sent nor read (an accounts file of millions is
 *  not walked through). `cut` hears when the stop left some unread: an item came after it, or the
 *  source failed after it (a source that stops reading on the stop, harExchanges, ends so). */
export async function* untilStopped<T>(items: Source<T>, stop: AbortSignal | undefined, cut: () => void): AsyncGenerator<T> {
  try {
    for await (const item of items) {
      if (stop?.aborted) { cut(); return; }
      yield item;
    }
  } catch (e) {
    if (!stop?.aborted) throw e;
    cut();
  }
}

/** An exchange's place in the order of judging (runConformance's sendAndJudge). */
interface Turn {
  settled: boolean;
  waiting?: Promise<void>;
  wake?: () => void;
}
/** A promise of the turn's end, made when some exchange waits for it. */
const turnOf = (t: Turn): Promise<void> => (t.waiting ??= new Promise<void>((resolve) => { t.wake = resolve; }));
const endTurn = (t: Turn): void => {
  if (t.settled) return;
  t.settled = true;
  t.wake?.();
};

export async function runConformance(options: RunOptions): Promise<RunResult> {
  const startedAt = new Date().toISOString();
  const t0 = performance.now();
  const mode = options.mode ?? 'probe';
  const checks = options.checks ?? checksFor(sourcesOf({ probes: options.probes !== false, cases: !!options.cases, generate: !!options.generate, recorded: !!options.recorded }));
  const settings: CheckSettings = { namespaces: options.namespaces };
  const judge = new Judge(checks, settings, options.observe);
  const progress = () => options.onProgress?.({ exchanges: judge.exchanges, failedExchanges: judge.failedExchanges, sent: judge.sent, cases: judge.caseCount });

  // Only the probes (and generated requests) some selected check judges (--only and --skip shrink the run).
  const judged = (spec: ExchangeSpec) => {
    const view = new ExchangeView({ ...spec, request: { method: spec.method, url: spec.path, headers: spec.headers }, startedAt: '', durationMs: 0 }, settings);
    return checks.some((c) => c.appliesTo(view));
  };
  const probes = options.probes === false ? [] : planProbes(options).filter(judged);
  // Loaded only for --generate: fast-check and the generators cost every other run's start ~30 ms of CPU.
  const generation = options.generate ? new (await import('./generation.js')).Generation(options.generate, options, judged) : undefined;
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  const sending = probes.length > 0 || options.cases !== undefined || generation !== undefined;
  const dispatcher = sending ? options.dispatcher ?? createDispatcher({ ...options, connections: options.connections ?? concurrency }) : undefined;
  const budget = new RequestBudget(options.maxRequests, options.ratePerSecond);
  const stopped = () => options.stop?.aborted === true;
  /** Set when the stop left requests unsent (a stop after the last was sent changes nothing). */
  let cut = false;
  options.stop?.addEventListener('abort', () => budget.stop(String(options.stop!.reason)), { once: true });
  const slots = new BodySlots();
  /** Folds what judging found on one exchange (here, or on a worker) in the order the exchanges came. */
  const fold = (ex: Exchange, failures: Failures): Failures => {
    if (ex.origin.source === 'generated') generation?.observe(keepHead(ex), failures);
    progress();
    return failures;
  };
  let pool: JudgePool | undefined;
  let judgedHere = 0;
  /** The workers, once this thread has judged its share (started then); undefined while it judges. */
  const workers = (): JudgePool | undefined => {
    if (pool || !options.judgeWorker || !(options.jobs! > 0) || judgedHere < (options.judgedBeforeWorkers ?? 0)) return pool;
    return (pool = new JudgePool(options.jobs!, checks, settings, options.judgeWorker, (ex, j) => fold(ex, judge.fold(ex, j))));
  };
  /** The run's thread judges an exchange whose worker has no room (judge-pool.ts). */
  const here = (ex: Exchange) => judge.judgedHere(ex);
  /** Judges one exchange on this thread; true when its body was large. */
  const judgeOne = (ex: Exchange): boolean => {
    judgedHere++;
    fold(ex, judge.judge(ex));
    return (ex.response?.body.length ?? 0) >= LARGE_BODY_BYTES;
  };
  // Exchanges are folded in the order they were sent, not the order their answers came: which ones a
  // report shows as examples (the first failures of each check) is then the same on every run of the
  // same input. With judging workers an exchange is also judged in that order: an answer that comes
  // early waits for the earlier ones, at most `concurrency` of them (pump holds a slot until its
  // exchange is judged), so memory stays bounded as before. Each exchange's turn is settled once it is
  // submitted; the next one waits for it only when it comes first, and only then is a promise made.
  let last: Turn = { settled: true };
  const sendContext: SendContext = { dispatcher: dispatcher!, options, budget, slots };
  const sendAndJudgeInTurn = async (spec: ExchangeSpec) => {
    const before = last;
    const mine: Turn = { settled: false };
    last = mine;
    try {
      const ex = await send(spec, options.baseUrl, sendContext);
      if (!before.settled) await turnOf(before);
      const judging = workers();
      if (judging) {
        const { folded } = await judging.submit(ex, here); // the pool folds in the order exchanges are submitted
        endTurn(mine);
        await folded;
      } else if (judgeOne(ex)) collectGarbage(); // what judging a large body left behind (its text, its tree): collect.ts
    } finally {
      endTurn(mine);
    }
  };
  // Without workers, an exchange is judged (and its secrets learned) as soon as its answer comes (a
  // small one once the request its place went to is written), and
  // folded once every earlier one is: one slow answer no longer holds every slot the later ones took,
  // leaving this thread idle while they wait. What waits to be folded is its judgement and, unless it
  // may be kept (a probe, a generated request, a failure: it then holds its slot until folded, as
  // before), only what folding reads of it (its id, origin and error): at most MAX_UNFOLDED of them.
  // (An entry undefined: its task failed, and so does the run.)
  const order = new FoldOrder<{ readonly ex: Exchange; readonly judgement: Judgement }>((u) => fold(u.ex, judge.fold(u.ex, u.judgement)));
  const sendAndJudgeAhead = async (spec: ExchangeSpec, release: () => boolean) => {
    const seq = order.begin();
    let entry: { readonly ex: Exchange; readonly judgement: Judgement } | undefined;
    let whole = true;
    try {
      const ex = await send(spec, options.baseUrl, sendContext);
      // The next request goes out before this answer is judged: the target works on it meanwhile,
      // rather than waiting for this thread (which judges many answers in one turn of the loop).
      if ((ex.response?.body.length ?? 0) < EARLY_RELEASE_BYTES && release()) await afterWrites();
      judgedHere++;
      const judgement = judge.judgedHere(ex);
      whole = ex.origin.source !== 'case' || judgement.looks.some(([, look]) => Array.isArray(look) && look.length > 0);
      entry = { ex: whole ? ex : foldedPart(ex), judgement };
      if ((ex.response?.body.length ?? 0) >= LARGE_BODY_BYTES) collectGarbage();
    } finally {
      order.settle(seq, entry);
    }
    await order.turn(seq, whole);
  };
  const sendAndJudge = options.judgeWorker && options.jobs! > 0 ? sendAndJudgeInTurn : sendAndJudgeAhead;
  let shrunk: Awaited<ReturnType<Generation['shrinkFailures']>> | undefined;
  try {
    if (sending) {
      async function* requests(): AsyncGenerator<ExchangeSpec> {
        yield* probes;
        if (options.cases) yield* options.cases;
        if (generation) yield* generation.requests();
        options.onLastTaken?.();
      }
      await pump(untilStopped(requests(), options.stop, () => { cut = true; }), concurrency, sendAndJudge, concurrency);
    }
    // Every judgement folded before shrinking keeps its exchanges (after those the run kept).
    await pool?.drain();
    // Nothing to shrink when the target could never be reached.
    if (generation && !stopped() && !(judge.sent > 0 && judge.unreachable === judge.sent)) {
      // Every candidate goes through the run's send path and budget, and is judged on its own answer.
      shrunk = await generation.shrinkFailures(checks, async (spec) => {
        const ex = await send(spec, options.baseUrl, { dispatcher: dispatcher!, options, budget, slots });
        if (ex.error?.kind !== 'not-sent') options.observe?.(ex);
        return ex;
      }, (check, ex) => {
        const view = new ExchangeView(ex, settings);
        return check.appliesTo(view) ? safely(check, view) : { skip: 'not of the kind the check judges' };
      }, concurrency, SHRINK_EXCHANGE_TIMES * PHASES_PER_EXCHANGE * options.timeoutMs);
      for (const [id, { keep }] of shrunk) for (const ex of keep) judge.keep(ex, checks.find((c) => c.id === id)!);
    }
    if (options.recorded) {
      for await (const ex of untilStopped(options.recorded, options.stop, () => { cut = true; })) {
        const judging = workers();
        if (judging) {
          // Read on while the workers judge: a failure surfaces at the next exchange or at drain().
          (await judging.submit(ex, here)).folded.catch(() => undefined);
        } else {
          judgeOne(ex);
        }
      }
      options.onLastTaken?.();
      await pool?.drain();
    }
  } finally {
    await pool?.close();
    if (dispatcher && !options.dispatcher) await dispatcher.close();
  }
  const t1 = performance.now();
  return runResultOf(judge, {
    baseUrl: options.baseUrl, mode, startedAt, sendingMs: t1 - t0, checkingStartedAt: t1,
    ...(options.part ? { part: options.part } : {}), ...(shrunk ? { shrunk } : {}), ...(generation ? { generation: generation.summary() } : {}),
    ...(cut ? { stopped: String(options.stop!.reason) } : {}),
  });
}

/** What a run's result is made of besides the judge's tallies. */
export interface ResultContext {
  readonly baseUrl: string;
  readonly mode: 'probe' | 'traffic';
  readonly startedAt: string;
  readonly sendingMs: number;
  /** performance.now() when sending ended: what follows is checking time. */
  readonly checkingStartedAt: number;
  readonly part?: string;
  readonly shrunk?: Awaited<ReturnType<Generation['shrinkFailures']>>;
  readonly generation?: GenerationSummary;
  /** What stopped the run before it sent everything (RunResult.stopped). */
  readonly stopped?: string;
  /** A live run's result while it goes on (RunResult.inProgress). */
  readonly inProgress?: true;
}

/** A check's result turned to skipped, judging nothing, for `reason`. */
const notJudged = (r: CheckResult, reason: string): CheckResult =>
  ({ ...r, status: 'skip', message: reason, judged: 0, judgedProbes: 0, failed: 0, skipped: r.judged + r.skipped, findingCount: 0, examples: [], groups: [] });

/** The result of what a judge has judged so far: at the end of a run, or in the middle of one that
 *  never ends by itself (the judging reference, which reports on demand while it serves). */
export function runResultOf(judge: Judge, c: ResultContext): RunResult {
  // Unreachable: every exchange actually sent failed to connect (those the cap held back say nothing).
  const unreachable = judge.sent > 0 && judge.unreachable === judge.sent ? judge.firstUnreachable : undefined;
  const results = judge.tallies.map((t) => {
    const r = resultOf(t, c.mode, c.part);
    const s = c.shrunk?.get(t.check.id)?.shrunk;
    // A target never reached answered nothing to judge: a check's "no answer" is no finding about it,
    // and is not counted as one (the run's one error is the verdict, UNREACHABLE). A check of the
    // clients' requests judged them whatever the target did: its failure stands.
    if (unreachable !== undefined && r.status === 'fail' && t.check.side !== 'request') return notJudged(r, `not judged: the target could not be reached (${unreachable})`);
    return s ? { ...r, shrunk: s } : r;
  });
  const counts = judge.counts();
  const must = results.filter((r) => r.check.level === 'MUST');
  const verdict = verdictOf({
    unreachable: unreachable !== undefined, mode: c.mode, interfaceSeen: Object.keys(counts.kinds).length > 0,
    mustFailed: must.some((r) => r.status === 'fail'), mustSkipped: must.some((r) => r.status === 'skip'),
    mustJudged: must.some((r) => r.status !== 'skip'), casesNotSent: (counts.notSent?.case ?? 0) > 0, stopped: cutShort(c), part: c.part !== undefined,
  });
  return {
    baseUrl: c.baseUrl, mode: c.mode, startedAt: c.startedAt, finishedAt: new Date().toISOString(),
    exchanges: [...judge.kept], counts, results, verdict, ...(unreachable ? { unreachable } : {}), ...(c.stopped ? { stopped: c.stopped } : {}),
    ...(c.inProgress ? { inProgress: true as const } : {}),
    ...(c.part ? { part: c.part } : {}),
    ...(c.generation ? { generation: c.generation } : {}),
    timings: { sendingMs: Math.round(c.sendingMs), checkingMs: Math.round(performance.now() - c.checkingStartedAt) },
  };
}
