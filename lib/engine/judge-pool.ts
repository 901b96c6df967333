// Judging on every core (issue 24): the run's thread sends (or reads) the exchanges and folds the
// verdicts; N worker threads judge them (parse, run the checks, learn the secrets). Exchange k goes to
// worker k % N with its sequence number, in batches (`Batch`); a worker answers each batch with its
// Judgements (looks, not tallies), and the run's thread folds them strictly in sequence order into
// the one Judge. So the tallies, groups, examples, kept exchanges and progress are exactly those of
// judging on one thread in the same order, by construction: nothing is merged but counts of looks
// already folded. Memory: at most IN_FLIGHT exchanges (and IN_FLIGHT_BYTES of bodies, or one
// exchange) wait per worker, their bodies in its ring of RING_BYTES (or their own buffers past it);
// answers waiting for an earlier one are bounded by the same window. A worker that fails ends the
// run with its cause (one line), never a hang.
import { Worker, parentPort, workerData } from 'node:worker_threads';
import { checkById } from '../checks/catalogue.js';
import type { Check, Finding, Look } from '../checks/check.js';
import type { CheckSettings } from '../checks/exchange-view.js';
import type { ProvenRecord } from '../checks/fast-record.js';
import type { KeysOf, ValuesOf } from '../checks/walk-json.js';
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

/** Exchanges waiting for one worker at most (judged there or not: an answer waits until this thread
 *  reads it), and bytes of their bodies (one larger exchange at a time). */
export const IN_FLIGHT = 64;
/** Exchanges given to one worker and not yet judged there from which the run's thread, when it may,
 *  judges the next ones itself. Counted by the worker in shared memory, not by the answers read here:
 *  the run's thread, busy sending, reads them late, and judged here what the worker, idle, could have
 *  (half the exchanges of a 20 000-account run, the worker idle 60% of it). */
export const AHEAD = 16;
export const IN_FLIGHT_BYTES = 8 * 1024 * 1024;
/** Batches posted to one worker and not yet answered, at most: one it judges, one that waits. */
const OUTSTANDING = 2;

/** Run → worker: the exchanges given to one worker since its last batch, posted together (one
 *  message, not one each: a message costs both threads as much as judging a small exchange). The
 *  exchanges go as one JSON text without their response bodies (a structured clone of the same
 *  objects cost twice as much); the bodies are written into the worker's ring of shared memory (a
 *  small body's structured clone copied the whole 8 KiB pool it sits in; a buffer allocated and moved
 *  per batch cost as much again). A large body that owns its memory is moved to the worker, not
 *  copied: the run no longer holds it. A body the ring has no room for goes in a buffer of its own. */
export interface Batch {
  readonly seqs: readonly number[];
  readonly exchanges: string;
  /** Per exchange, two numbers: the start and end of its body in the ring; [-1, -1] without a
   *  response; [-2, k] for `own[k]`, moved from the run; [-3, k] for `own[k]`, a copy. */
  readonly spans: readonly number[];
  readonly own: readonly Uint8Array[];
}
/** Worker → run: the judgements of one batch, in its order; the exchange (its head) where the run may
 *  keep it and its body was moved; or why the worker cannot go on. */
type Answer = { readonly seqs: readonly number[]; readonly judgements: PostedJudgements; readonly kept: readonly (readonly [number, Exchange])[] } | { readonly failed: string };

/** Judgements as a worker posts them, several at once: each one's label (or its method and path),
 *  the checks that passed as one typed array for all, the other looks as they are (a clone of the
 *  whole [index, look] lists cost three times as much, on both threads). */
export interface PostedJudgements {
  readonly heads: readonly string[];
  /** 1 where a head is a `where` (not of this interface), 0 for a label. */
  readonly where: Uint8Array;
  /** Every judgement's passing checks, one judgement after another; `ends[k]`: where judgement k's end in it. */
  readonly passed: Uint16Array;
  readonly ends: Uint32Array;
  /** Per judgement, its other looks in check order, or 0 for none. */
  readonly others: readonly (Judgement['looks'] | 0)[];
}

/** What a passing check found: nothing (one array for every such look). */
const PASSED: readonly Finding[] = Object.freeze([]);

export function posted(js: readonly Judgement[]): PostedJudgements {
  const passed: number[] = [];
  const ends = new Uint32Array(js.length);
  const where = new Uint8Array(js.length);
  const heads: string[] = [];
  const others: (Judgement['looks'] | 0)[] = [];
  js.forEach((j, k) => {
    let other: (readonly [number, Look])[] | 0 = 0;
    for (const entry of j.looks) {
      if (Array.isArray(entry[1]) && !entry[1].length) passed.push(entry[0]);
      else (other ||= []).push(entry);
    }
    ends[k] = passed.length;
    where[k] = j.label === undefined ? 1 : 0;
    heads.push(j.label ?? j.where!);
    others.push(other);
  });
  return { heads, where, passed: Uint16Array.from(passed), ends, others };
}

/** The judgements a worker posted, each one's looks in check order again. */
export function unposted(p: PostedJudgements): Judgement[] {
  return p.heads.map((head, j) => {
    const looks: (readonly [number, Look])[] = [];
    const others = p.others[j] || [];
    let k = 0;
    for (let n = j ? p.ends[j - 1]! : 0; n < p.ends[j]!; n++) {
      const i = p.passed[n]!;
      while (k < others.length && others[k]![0] < i) looks.push(others[k++]!);
      looks.push([i, PASSED]);
    }
    while (k < others.length) looks.push(others[k++]!);
    return p.where[j] ? { where: head, looks } : { label: head, looks };
  });
}

/** A judging worker failed: the run cannot be judged whole (the CLI exits 2 with this line). */
export class JudgeWorkerFailure extends Error {}
/** A worker's start: the run's checks, settings and learner data, and its ring's memory. */
interface Setup { readonly checkIds: readonly string[]; readonly settings: CheckSettings; readonly data: unknown; readonly ring: SharedArrayBuffer; readonly done: SharedArrayBuffer }

/** A body that owns its whole memory and is this large is moved to the worker, not copied (the run
 *  gets it back only when it may keep the exchange). */
const MOVE_FROM = 64 * 1024;
export const movable = (ex: Exchange): boolean => {
  const b = ex.response?.body;
  return !!b && b.byteLength >= MOVE_FROM && b.byteOffset === 0 && b.buffer.byteLength === b.byteLength && !(b.buffer instanceof SharedArrayBuffer);
};

/** Bytes of a worker's ring: the bodies of IN_FLIGHT answers of some kilobytes each many times over. */
export const RING_BYTES = 2 * 1024 * 1024;

/** Shared memory the run's thread writes one worker's bodies into, taken in order and given back in
 *  order, a batch at a time: the worker answers its batches in the order it was given them, and
 *  holds no view of a batch's bodies once it has answered it. */
export class Ring {
  readonly memory: SharedArrayBuffer;
  private readonly bytes: Uint8Array;
  /** Next byte to write; oldest byte still held; bytes held (with what a wrap skipped). */
  private head = 0;
  private tail = 0;
  private used = 0;
  /** Per batch posted and not yet answered: the bytes it holds, and where the ring's head was after it. */
  private readonly held: { readonly taken: number; readonly end: number }[] = [];
  private taken = 0;

  constructor(size = RING_BYTES) {
    this.memory = new SharedArrayBuffer(size);
    this.bytes = new Uint8Array(this.memory);
  }

  /** Copies `body` in; its start, or -1 when there is no room now. */
  put(body: Uint8Array): number {
    const len = body.byteLength;
    const size = this.bytes.byteLength;
    let at = -1;
    if (this.head > this.tail || (this.head === this.tail && this.used === 0)) {
      if (this.head + len <= size) at = this.head;
      else if (len <= this.tail) { this.taken += size - this.head; this.used += size - this.head; at = 0; }
    } else if (this.head + len <= this.tail) at = this.head;
    if (at < 0) return -1;
    this.bytes.set(body, at);
    this.head = at + len;
    this.taken += len;
    this.used += len;
    return at;
  }

  /** Ends the batch being written. */
  seal(): void {
    this.held.push({ taken: this.taken, end: this.head });
    this.taken = 0;
  }

  /** Batches posted and not yet answered. */
  get batches(): number {
    return this.held.length;
  }

  /** Gives back the oldest batch's bytes (its worker answered it). */
  release(): void {
    const b = this.held.shift()!;
    this.used -= b.taken;
    this.tail = b.end;
  }
}

/** An exchange as its batch's JSON holds it: without its response body, and without a digest still
 *  to be taken (recordedResponse's getter: reading it would take it here, for every exchange; the
 *  worker takes it from the same bytes if a report shows the exchange). */
function withoutBody(ex: Exchange): unknown {
  const r = ex.response;
  // Nor the request's fields as received: shown only, never judged (asBuffers puts them back).
  if (ex.request.rawHeaders) { const { rawHeaders: _raw, ...request } = ex.request; ex = { ...ex, request }; }
  if (!r) return ex;
  const { status, headers, size, contentCoding } = r;
  const hashed = !Object.getOwnPropertyDescriptor(r, 'sha256')?.get;
  // `body: 0` keeps its place: the worker's record has its keys in the order of the run's.
  return { ...ex, response: { status, headers, body: 0, size, ...(hashed ? { sha256: r.sha256 } : {}), ...(contentCoding ? { contentCoding } : {}) } };
}

/** The batch of some exchanges: each body written into `ring` (sealed as one batch), or moved when
 *  `move`, or copied into a buffer of its own when the ring is full. */
export function batchOf(jobs: readonly Queued[], ring: Ring): Batch {
  const spans: number[] = [];
  const own: Uint8Array[] = [];
  for (const { ex, move } of jobs) {
    const body = ex.response?.body;
    const at = !body || move ? -1 : ring.put(body);
    if (!body) spans.push(-1, -1);
    else if (at >= 0) spans.push(at, at + body.byteLength);
    else spans.push(move ? -2 : -3, own.push(move ? body : new Uint8Array(body)) - 1);
  }
  ring.seal();
  return { seqs: jobs.map((j) => j.seq), exchanges: JSON.stringify(jobs.map((j) => withoutBody(j.ex))), spans, own };
}

/** What posting a batch moves rather than copies: the buffers of its own bodies. */
export const transfers = (b: Batch): ArrayBuffer[] => b.own.map((u) => u.buffer as ArrayBuffer);

/** The exchanges of a batch again, each with its body: a Buffer over its bytes in the ring (valid
 *  until the batch is answered) or over its own. */
export function unbatched(b: Batch, ring: SharedArrayBuffer): Exchange[] {
  const list = JSON.parse(b.exchanges) as (Omit<Exchange, 'response'> & { response?: Omit<RecordedResponse, 'body' | 'sha256'> & { sha256?: string } })[];
  return list.map((ex, k) => {
    const r = ex.response;
    if (!r) return ex as Exchange;
    const [start, end] = [b.spans[2 * k]!, b.spans[2 * k + 1]!];
    const u = start < 0 ? b.own[end]! : undefined;
    const body = u ? Buffer.from(u.buffer, u.byteOffset, u.byteLength) : Buffer.from(ring, start, end - start);
    // Written into the parsed object: its keys stay in the order the run's record has them.
    (ex as { response?: RecordedResponse }).response = r.sha256 === undefined
      ? Object.assign(recordedResponse(r.status, r.headers, body), r.size !== body.length ? { size: r.size } : {}, r.contentCoding ? { contentCoding: r.contentCoding } : {})
      : { ...(r as Omit<RecordedResponse, 'body'>), body };
    return ex as Exchange;
  });
}

/** Exchanges given to one worker and not yet posted to it. */
export interface Queued { readonly seq: number; readonly ex: Exchange; readonly move: boolean }

export class JudgePool {
  private readonly workers: Worker[];
  private readonly inFlight: number[];
  private readonly bytes: number[];
  /** Per worker, the exchanges given to it since its last batch; posted together at the end of this
   *  turn of the event loop (every exchange that completed in it), or once IN_FLIGHT wait. */
  private readonly queued: Queued[][];
  private readonly rings: Ring[];
  /** Per worker, the exchanges posted to it, and those it has judged (it counts them in shared memory). */
  private readonly given: number[];
  private readonly done: Int32Array[];
  private posting: NodeJS.Immediate | undefined;
  private next = 0;
  private folded = 0;
  /** Exchanges given to a worker, by sequence: what the run keeps of them until they are folded. */
  private readonly waiting = new Map<number, { ex: Exchange; size: number; done: (f: Failures) => void; fail: (e: Error) => void }>();
  /** Judgements that came before an earlier one's, and the exchange a worker returned with one. */
  private readonly answered = new Map<number, { judgement: Judgement; ex?: Exchange }>();
  private room: (() => void) | undefined;
  private failure: Error | undefined;
  private closing = false;

  /** `fold`: folds one exchange's judgement on this thread, in sequence order. */
  constructor(jobs: number, checks: readonly Check[], settings: CheckSettings, spec: JudgeWorkerSpec,
    private readonly fold: (ex: Exchange, judgement: Judgement) => Failures) {
    const checkIds = checks.map((c) => c.id);
    const unknown = checks.filter((c) => checkById.get(c.id) !== c);
    if (unknown.length) throw new Error(`judging workers run only the catalogue's checks, not ${unknown.map((c) => c.id).join(', ')}`);
    const data = spec.data();
    this.rings = Array.from({ length: jobs }, () => new Ring());
    this.done = this.rings.map(() => new Int32Array(new SharedArrayBuffer(4)));
    this.given = this.rings.map(() => 0);
    this.workers = Array.from({ length: jobs }, (_, i) => {
      const w = new Worker(fromRoot('bin', 'run.mjs'), { argv: [spec.program], workerData: { checkIds, settings, data, ring: this.rings[i]!.memory, done: this.done[i]!.buffer as SharedArrayBuffer } satisfies Setup });
      w.on('message', (a: Answer) => {
        if ('failed' in a) this.fail(new JudgeWorkerFailure(`judging worker ${i + 1} of ${jobs} failed: ${a.failed}`));
        else this.answer(i, a);
      });
      w.on('error', (e) => this.fail(new JudgeWorkerFailure(`judging worker ${i + 1} of ${jobs} failed: ${e.message.split('\n')[0]}`)));
      w.on('exit', (code) => { if (!this.closing) this.fail(new JudgeWorkerFailure(`judging worker ${i + 1} of ${jobs} stopped (exit code ${code})`)); });
      return w;
    });
    this.inFlight = this.workers.map(() => 0);
    this.bytes = this.workers.map(() => 0);
    this.queued = this.workers.map(() => []);
  }

  /** Judges one exchange on a worker; resolves with its failures once it is folded (every earlier
   *  one is folded before it). */
  async judge(ex: Exchange): Promise<Failures> {
    return (await this.submit(ex)).folded;
  }

  /** Gives one exchange to its worker once there is room there; `folded` resolves with its failures
   *  once it is folded. With `here`, an exchange whose worker has no room, or has AHEAD not yet judged,
   *  is judged at once on this thread instead (`here` judges it and learns its secrets): the run's
   *  thread takes the share of judging the workers cannot. */
  async submit(ex: Exchange, here?: (ex: Exchange) => Judgement): Promise<{ readonly folded: Promise<Failures> }> {
    const seq = this.next++;
    const w = seq % this.workers.length;
    const size = ex.response?.body.byteLength ?? 0;
    const full = () => this.inFlight[w]! > 0 && (this.inFlight[w]! >= IN_FLIGHT || this.bytes[w]! + size > IN_FLIGHT_BYTES);
    if (here && !this.failure && (this.unjudged(w) >= AHEAD || full())) {
      this.post(); // what waits for the workers goes before this thread judges (a source read without a turn of the event loop)
      const folded = new Promise<Failures>((done, fail) => this.waiting.set(seq, { ex, size: 0, done, fail }));
      try {
        this.answered.set(seq, { judgement: here(ex) });
      } catch (e) {
        this.fail(e as Error);
        throw e;
      }
      if (size >= LARGE_BODY_BYTES) collectGarbage();
      this.foldAnswered();
      return { folded };
    }
    while (!this.failure && full()) {
      this.post(); // what waits for this worker goes now: its room comes from its answer
      await new Promise<void>((resolve) => { const before = this.room; this.room = () => { before?.(); resolve(); }; });
    }
    if (this.failure) throw this.failure;
    this.inFlight[w]!++;
    this.bytes[w]! += size;
    const folded = new Promise<Failures>((done, fail) => this.waiting.set(seq, { ex, size, done, fail }));
    this.queued[w]!.push({ seq, ex, move: movable(ex) });
    this.posting ??= setImmediate(() => this.post());
    return { folded };
  }

  /** Exchanges given to worker `w` (posted or queued) that it has not judged yet. */
  unjudged(w: number): number {
    return this.given[w]! + this.queued[w]!.length - Atomics.load(this.done[w]!, 0);
  }

  /** Posts every worker's queued exchanges, one batch each, to a worker with fewer than OUTSTANDING
   *  batches unanswered; the others' wait for an answer (which posts them): a worker that is behind
   *  gets one larger batch rather than many small ones, each a wake-up of both threads. */
  private post(): void {
    if (this.posting) clearImmediate(this.posting);
    this.posting = undefined;
    if (this.failure) return;
    this.queued.forEach((jobs, w) => {
      if (!jobs.length || this.rings[w]!.batches >= OUTSTANDING) return;
      this.queued[w] = [];
      const batch = batchOf(jobs, this.rings[w]!);
      this.given[w]! += jobs.length;
      this.workers[w]!.postMessage(batch, transfers(batch));
    });
  }

  private answer(w: number, a: Exclude<Answer, { failed: string }>): void {
    this.rings[w]!.release();
    const judgements = unposted(a.judgements);
    const kept = new Map(a.kept);
    a.seqs.forEach((seq, k) => {
      this.inFlight[w]!--;
      this.bytes[w]! -= this.waiting.get(seq)?.size ?? 0;
      const ex = kept.get(k);
      this.answered.set(seq, ex ? { judgement: judgements[k]!, ex } : { judgement: judgements[k]! });
    });
    const wake = this.room;
    this.room = undefined;
    wake?.();
    if (this.queued[w]!.length) this.posting ??= setImmediate(() => this.post());
    this.foldAnswered();
  }

  /** Folds every answer whose earlier ones are all folded. */
  private foldAnswered(): void {
    for (let next = this.answered.get(this.folded); next && !this.failure; next = this.answered.get(this.folded)) {
      this.answered.delete(this.folded);
      const { ex, done, fail } = this.waiting.get(this.folded)!;
      this.waiting.delete(this.folded);
      this.folded++;
      // The exchange as the worker returned it (when it may be kept), else the run's own record of it
      // (its body, when moved, is gone: only its id, origin and error are read).
      try {
        done(this.fold(next.ex ? asBuffers(next.ex, ex) : ex, next.judgement));
      } catch (e) {
        // This one's own wait ends with the failure too (no longer among those `fail` ends): left
        // unsettled, the run had nothing to wait on once the workers stopped, and Node exited 0.
        fail(e as Error);
        this.fail(e as Error);
      }
    }
  }

  private fail(e: Error): void {
    if (this.failure) return;
    this.failure = e;
    for (const { fail } of this.waiting.values()) fail(e);
    this.waiting.clear();
    for (const q of this.queued) q.length = 0;
    const wake = this.room;
    this.room = undefined;
    wake?.();
    void this.close();
  }

  /** Every exchange given so far folded; throws a worker's failure. */
  async drain(): Promise<void> {
    this.post();
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
    if (this.posting) clearImmediate(this.posting);
    this.posting = undefined;
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}

/** A kept exchange a worker returned (a structured clone: its body a Uint8Array): its body a Buffer
 *  again, over the same bytes; the fields and reason phrase as received, which the batch leaves
 *  out, from the run's own record (`own`). */
function asBuffers(ex: Exchange, own: Exchange): Exchange {
  const r = ex.response as (Omit<RecordedResponse, 'body'> & { body: Uint8Array }) | undefined;
  const { reason, rawHeaders } = own.response ?? {};
  const received = reason === undefined && rawHeaders === undefined ? {} : { reason, rawHeaders };
  const request = own.request.rawHeaders ? { ...ex.request, rawHeaders: own.request.rawHeaders } : ex.request;
  if (!r) return request === ex.request ? ex : { ...ex, request };
  return { ...ex, request, response: { ...r, ...received, body: Buffer.isBuffer(r.body) ? r.body : Buffer.from(r.body.buffer, r.body.byteOffset, r.body.byteLength) } };
}

/** What a worker makes of its learner's data: the function that learns each judged exchange's
 *  secrets (with the body's JSON value or XML tree when the checks parsed it, or the values a proven record's
 *  tree walk would learn). */
export type MakeLearner = (data: unknown) => ((ex: Exchange, parsed?: JsonValue | ParsedXml | ProvenRecord, keysOf?: KeysOf, valuesOf?: ValuesOf) => void) | undefined;

/** A judging worker's loop: judges each batch of exchanges it is given with the run's checks and
 *  settings, learns their secrets, and answers with the judgements, in one message; with an exchange
 *  too when its body was moved here and the run may keep it: a
 *  probe, a generated request that failed (shrinking starts from it), or a failure of a check that
 *  has had fewer than MAX_EXAMPLE_EXCHANGES failures on this worker (past them, the run has had at
 *  least as many before this one, so no example of that check can come from it). */
export function serveJudging(makeLearner: MakeLearner): void {
  if (!parentPort) throw new Error('a judging worker runs inside a run (--jobs)');
  const port = parentPort;
  /** Whatever stops this worker is told to the run in one line, which ends the run with it. */
  const failed = (e: unknown) => port.postMessage({ failed: String((e as Error)?.message ?? e).split('\n')[0] ?? '' } satisfies Answer);
  let judge: Judge, failedHere: number[], ring: SharedArrayBuffer, done: Int32Array;
  try {
    const setup = workerData as Setup;
    ring = setup.ring;
    done = new Int32Array(setup.done);
    const checks = setup.checkIds.map((id) => checkById.get(id)!);
    judge = new Judge(checks, setup.settings, makeLearner(setup.data));
    failedHere = checks.map(() => 0);
  } catch (e) {
    failed(e);
    return;
  }
  port.on('message', (batch: Batch) => {
    try {
      const judgements: Judgement[] = [];
      const kept: (readonly [number, Exchange])[] = [];
      unbatched(batch, ring).forEach((ex, k) => {
        const judgement = judge.judgedHere(ex);
        judgements.push(judgement);
        const probe = ex.origin.source === 'probe';
        let keep = probe;
        for (const [i, look] of judgement.looks) {
          if (!Array.isArray(look) || !look.length) continue;
          if (ex.origin.source === 'generated' || probe || failedHere[i]! < MAX_EXAMPLE_EXCHANGES) keep = true;
          if (!probe) failedHere[i]!++;
        }
        if (keep && batch.spans[2 * k] === -2) kept.push([k, keepHead(ex)]);
        if ((ex.response?.body.length ?? 0) >= LARGE_BODY_BYTES) collectGarbage();
        Atomics.add(done, 0, 1);
      });
      port.postMessage({ seqs: batch.seqs, judgements: posted(judgements), kept } satisfies Answer);
    } catch (e) {
      failed(e);
    }
  });
}
