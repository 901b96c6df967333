// Judging on every core (issue 24): the run's thread sends (or reads) the exchanges and folds the
// verdicts; N worker threads judge them (parse, run the checks, learn the secrets). Exchange k goes to
// worker k % N with its sequence number; a worker answers each with its Judgement (looks, not
// tallies), and the run's thread folds the answers strictly in sequence order into the one Judge. So
// the tallies, groups, examples, kept exchanges and progress are exactly those of judging on one
// thread in the same order, by construction: nothing is merged but counts of looks already folded.
// Memory: at most IN_FLIGHT exchanges (and IN_FLIGHT_BYTES of bodies, or one exchange) wait per
// worker; answers waiting for an earlier one are bounded by the same window. A worker that fails
// ends the run with its cause (one line), never a hang.
import { Worker, parentPort, workerData, type Transferable } from 'node:worker_threads';
import { checkById } from '../checks/catalogue.js';
import type { Check, Finding, Look } from '../checks/check.js';
import type { CheckSettings } from '../checks/exchange-view.js';
import type { KeysOf } from '../checks/walk-json.js';
import { recordedResponse, type Exchange, type RecordedResponse } from '../http/exchange.js';
import type { JsonValue } from '../json/value.js';
import { fromRoot } from '../paths.js';
import type { ParsedXml } from '../xml/model.js';
import { collectGarbage, LARGE_BODY_BYTES } from './collect.js';
import { Judge, keepHead, type Failures, type Judgement } from './run.js';
import { MAX_EXAMPLE_EXCHANGES } from './tally.js';

/** A judging worker's program (started through bin/run.mjs, so it runs the compiled code or the
 *  sources exactly as the run does; it calls `serveJudging`), and the data its learner is made from,
 *  asked for when the workers start (what the run learned until then goes with it). */
export interface JudgeWorkerSpec {
  readonly program: string;
  readonly data: () => unknown;
}

/** Exchanges waiting for one worker at most, and bytes of their bodies (one larger exchange at a time). */
export const IN_FLIGHT = 16;
export const IN_FLIGHT_BYTES = 8 * 1024 * 1024;

/** Run → worker; `moved`: its body was moved, not copied (the run no longer holds it). */
interface Job { readonly seq: number; readonly ex: Exchange; readonly moved: boolean }
/** Worker → run: the judgement, and the exchange (its head) when the run may keep it; or why the
 *  worker cannot go on. */
interface Judged { readonly seq: number; readonly judgement: Judgement; readonly ex?: Exchange }
/** A judgement as a worker posts it: the checks that passed as one typed array, the other looks as
 *  they are (a clone of the whole [index, look] list cost three times as much, on both threads). */
interface PostedJudgement { readonly label?: string; readonly where?: string; readonly passed: Uint16Array; readonly others: Judgement['looks'] }
type Answer = { readonly seq: number; readonly judgement: PostedJudgement; readonly ex?: Exchange } | { readonly failed: string };

/** What a passing check found: nothing (one array for every such look). */
const PASSED: readonly Finding[] = Object.freeze([]);

export function posted(j: Judgement): PostedJudgement {
  const passed: number[] = [];
  const others: (readonly [number, Look])[] = [];
  for (const entry of j.looks) {
    if (Array.isArray(entry[1]) && !entry[1].length) passed.push(entry[0]);
    else others.push(entry);
  }
  return { ...(j.label !== undefined ? { label: j.label } : { where: j.where! }), passed: Uint16Array.from(passed), others };
}

/** The judgement a worker posted, its looks in check order again. */
export function unposted(p: PostedJudgement): Judgement {
  const looks: (readonly [number, Look])[] = [];
  let k = 0;
  for (const i of p.passed) {
    while (k < p.others.length && p.others[k]![0] < i) looks.push(p.others[k++]!);
    looks.push([i, PASSED]);
  }
  while (k < p.others.length) looks.push(p.others[k++]!);
  return p.label !== undefined ? { label: p.label, looks } : { where: p.where!, looks };
}

/** A judging worker failed: the run cannot be judged whole (the CLI exits 2 with this line). */
export class JudgeWorkerFailure extends Error {}
interface Setup { readonly checkIds: readonly string[]; readonly settings: CheckSettings; readonly data: unknown }

/** A body that came through postMessage is a Uint8Array: a Buffer again, over the same bytes; a
 *  response sent without its digest (`unhashed`) takes it lazily again, from those bytes. */
function asBuffers(ex: Exchange): Exchange {
  const r = ex.response as (Omit<RecordedResponse, 'body' | 'sha256'> & { body: Uint8Array; sha256?: string }) | undefined;
  if (!r || (Buffer.isBuffer(r.body) && r.sha256 !== undefined)) return ex;
  const body = Buffer.isBuffer(r.body) ? r.body : Buffer.from(r.body.buffer, r.body.byteOffset, r.body.byteLength);
  return { ...ex, response: r.sha256 === undefined ? recordedResponse(r.status, r.headers, body) : { ...(r as RecordedResponse), body } };
}

/** The exchange as posted to a worker: a response whose digest is still to be taken (recordedResponse's
 *  getter) goes without it, since copying the record would take it here, for every exchange; the
 *  worker takes it from the same bytes if a report shows the exchange. */
function unhashed(ex: Exchange): Exchange {
  const r = ex.response;
  if (!r || !Object.getOwnPropertyDescriptor(r, 'sha256')?.get) return ex;
  const { status, headers, body, size } = r;
  return { ...ex, response: { status, headers, body, size } as RecordedResponse };
}

/** A body that owns its whole memory is moved to the worker, not copied; a small one shares Node's
 *  pool with other buffers (moving it would take theirs): it is copied. */
const MOVE_FROM = 64 * 1024;
const movable = (ex: Exchange): Transferable[] => {
  const b = ex.response?.body;
  return b && b.byteLength >= MOVE_FROM && b.byteOffset === 0 && b.buffer.byteLength === b.byteLength && !(b.buffer instanceof SharedArrayBuffer) ? [b.buffer] : [];
};

export class JudgePool {
  private readonly workers: Worker[];
  private readonly inFlight: number[];
  private readonly bytes: number[];
  private next = 0;
  private folded = 0;
  /** Exchanges sent to a worker, by sequence: what the run keeps of them until they are folded. */
  private readonly waiting = new Map<number, { ex: Exchange; size: number; done: (f: Failures) => void; fail: (e: Error) => void }>();
  /** Answers that came before an earlier one's. */
  private readonly answered = new Map<number, Judged>();
  private room: (() => void) | undefined;
  private failure: Error | undefined;
  private closing = false;

  /** `fold`: folds one exchange's judgement on this thread, in sequence order. */
  constructor(jobs: number, checks: readonly Check[], settings: CheckSettings, spec: JudgeWorkerSpec,
    private readonly fold: (ex: Exchange, judgement: Judgement) => Failures) {
    const checkIds = checks.map((c) => c.id);
    const unknown = checks.filter((c) => checkById.get(c.id) !== c);
    if (unknown.length) throw new Error(`judging workers run only the catalogue's checks, not ${unknown.map((c) => c.id).join(', ')}`);
    const setup: Setup = { checkIds, settings, data: spec.data() };
    this.workers = Array.from({ length: jobs }, (_, i) => {
      const w = new Worker(fromRoot('bin', 'run.mjs'), { argv: [spec.program], workerData: setup });
      w.on('message', (a: Answer) => {
        if ('failed' in a) this.fail(new JudgeWorkerFailure(`judging worker ${i + 1} of ${jobs} failed: ${a.failed}`));
        else this.answer(i, { seq: a.seq, judgement: unposted(a.judgement), ...(a.ex ? { ex: a.ex } : {}) });
      });
      w.on('error', (e) => this.fail(new JudgeWorkerFailure(`judging worker ${i + 1} of ${jobs} failed: ${e.message.split('\n')[0]}`)));
      w.on('exit', (code) => { if (!this.closing) this.fail(new JudgeWorkerFailure(`judging worker ${i + 1} of ${jobs} stopped (exit code ${code})`)); });
      return w;
    });
    this.inFlight = this.workers.map(() => 0);
    this.bytes = this.workers.map(() => 0);
  }

  /** Judges one exchange on a worker; resolves with its failures once it is folded (every earlier
   *  one is folded before it). */
  async judge(ex: Exchange): Promise<Failures> {
    return (await this.submit(ex)).folded;
  }

  /** Gives one exchange to its worker once there is room there; `folded` resolves with its failures
   *  once it is folded. With `here`, an exchange whose worker has no room is judged at once on this
   *  thread instead (`here` judges it and learns its secrets): the run's thread, idle while it waits,
   *  takes the share of judging the workers cannot. */
  async submit(ex: Exchange, here?: (ex: Exchange) => Judgement): Promise<{ readonly folded: Promise<Failures> }> {
    const seq = this.next++;
    const w = seq % this.workers.length;
    const size = ex.response?.body.byteLength ?? 0;
    const full = () => this.inFlight[w]! > 0 && (this.inFlight[w]! >= IN_FLIGHT || this.bytes[w]! + size > IN_FLIGHT_BYTES);
    if (here && full() && !this.failure) {
      const folded = new Promise<Failures>((done, fail) => this.waiting.set(seq, { ex, size: 0, done, fail }));
      try {
        this.answered.set(seq, { seq, judgement: here(ex) });
      } catch (e) {
        this.fail(e as Error);
        throw e;
      }
      if (size >= LARGE_BODY_BYTES) collectGarbage();
      this.foldAnswered();
      return { folded };
    }
    while (!this.failure && full()) {
      await new Promise<void>((resolve) => { const before = this.room; this.room = () => { before?.(); resolve(); }; });
    }
    if (this.failure) throw this.failure;
    this.inFlight[w]!++;
    this.bytes[w]! += size;
    const folded = new Promise<Failures>((done, fail) => this.waiting.set(seq, { ex, size, done, fail }));
    const moving = movable(ex);
    this.workers[w]!.postMessage({ seq, ex: unhashed(ex), moved: moving.length > 0 } satisfies Job, moving);
    return { folded };
  }

  private answer(w: number, a: Judged): void {
    const job = this.waiting.get(a.seq);
    this.inFlight[w]!--;
    this.bytes[w]! -= job?.size ?? 0;
    const wake = this.room;
    this.room = undefined;
    wake?.();
    this.answered.set(a.seq, a);
    this.foldAnswered();
  }

  /** Folds every answer whose earlier ones are all folded. */
  private foldAnswered(): void {
    for (let next = this.answered.get(this.folded); next && !this.failure; next = this.answered.get(this.folded)) {
      this.answered.delete(this.folded);
      const { ex, done } = this.waiting.get(this.folded)!;
      this.waiting.delete(this.folded);
      this.folded++;
      // The exchange as the worker returned it (when it may be kept), else the run's own record of it
      // (its body, when moved, is gone: only its id, origin and error are read).
      try {
        done(this.fold(next.ex ? asBuffers(next.ex) : ex, next.judgement));
      } catch (e) {
        this.fail(e as Error);
      }
    }
  }

  private fail(e: Error): void {
    if (this.failure) return;
    this.failure = e;
    for (const { fail } of this.waiting.values()) fail(e);
    this.waiting.clear();
    const wake = this.room;
    this.room = undefined;
    wake?.();
    void this.close();
  }

  /** Every exchange given so far folded; throws a worker's failure. */
  async drain(): Promise<void> {
    await Promise.all([...this.waiting.values()].map((w) => new Promise<void>((resolve, reject) => {
      const [done, fail] = [w.done, w.fail];
      w.done = (f) => { done(f); resolve(); };
      w.fail = (e) => { fail(e); reject(e); };
    })));
    if (this.failure) throw this.failure;
  }

  /** Stops the workers. */
  async close(): Promise<void> {
    this.closing = true;
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}

/** What a worker makes of its learner's data: the function that learns each judged exchange's
 *  secrets (with the body's JSON value or XML tree when the checks parsed it). */
export type MakeLearner = (data: unknown) => ((ex: Exchange, parsed?: JsonValue | ParsedXml, keysOf?: KeysOf) => void) | undefined;

/** A judging worker's loop: judges each exchange it is given with the run's checks and settings,
 *  learns its secrets, and answers with the judgement; the exchange too when its body was moved here
 *  and the run may keep it: a
 *  probe, a generated request that failed (shrinking starts from it), or a failure of a check that
 *  has had fewer than MAX_EXAMPLE_EXCHANGES failures on this worker (past them, the run has had at
 *  least as many before this one, so no example of that check can come from it). */
export function serveJudging(makeLearner: MakeLearner): void {
  if (!parentPort) throw new Error('a judging worker runs inside a run (--jobs)');
  const port = parentPort;
  /** Whatever stops this worker is told to the run in one line, which ends the run with it. */
  const failed = (e: unknown) => port.postMessage({ failed: String((e as Error)?.message ?? e).split('\n')[0] ?? '' } satisfies Answer);
  let judge: Judge, failedHere: number[];
  try {
    const setup = workerData as Setup;
    const checks = setup.checkIds.map((id) => checkById.get(id)!);
    judge = new Judge(checks, setup.settings, makeLearner(setup.data));
    failedHere = checks.map(() => 0);
  } catch (e) {
    failed(e);
    return;
  }
  port.on('message', (job: Job) => {
    try {
      const ex = asBuffers(job.ex);
      const judgement = judge.judgedHere(ex);
      const probe = ex.origin.source === 'probe';
      let keep = probe;
      for (const [i, look] of judgement.looks) {
        if (!Array.isArray(look) || !look.length) continue;
        if (ex.origin.source === 'generated' || probe || failedHere[i]! < MAX_EXAMPLE_EXCHANGES) keep = true;
        if (!probe) failedHere[i]!++;
      }
      port.postMessage({ seq: job.seq, judgement: posted(judgement), ...(keep && job.moved ? { ex: keepHead(ex) } : {}) } satisfies Answer);
      if ((ex.response?.body.length ?? 0) >= LARGE_BODY_BYTES) collectGarbage();
    } catch (e) {
      failed(e);
    }
  });
}
