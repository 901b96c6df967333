// --proxy: the validating proxy. Clients talk to it as they would to the deployment; it forwards
// everything unchanged (lib/traffic/proxy.ts) and judges each finished exchange off the forwarding
// path: a copy goes to the judge, a worker thread of its own at the lowest CPU priority
// (lib/cli/proxy-judge.ts), so no judgement ever takes a turn of the loop that forwards. What waits
// for the judge is bounded in count and bytes; past that, an exchange is forwarded, not judged, and
// counted in the reports (a client that kept the proxy waiting past --timeout, or that falls behind
// the pace that has its body whole within it, loses its copies first). Findings are printed as they
// happen, each distinct one once; the reports are rewritten every few seconds while something
// changed (each saying the run is in progress), and on SIGINT/SIGTERM, after which the run exits with
// the traffic's verdict; a second signal keeps the last reports written whole and exits with theirs.
import { stopOnSignals } from './stopping.js';
import { listenProblem } from './listen-problem.js';
import { Worker } from 'node:worker_threads';
import type { Check } from '../checks/check.js';
import { fromRoot } from '../paths.js';
import { displayLine } from '../reporting/display.js';
import { bodyDeadline, MAX_HEADS_IN_FLIGHT, MAX_INFORMATIONAL, startProxy, type CopyRoom, type ForwardedExchange, type Unjudged } from '../traffic/proxy.js';
import type { Config } from './config.js';
import { childAhead, type ChildAhead } from '../child-ahead.js';
import { setupOf } from './session.js';
import type { FromJudge, JudgeSetup, ToJudge } from './proxy-judge.js';
import { finish, liveGate, restateWithProblem, stoppedAtOnce } from './write-reports.js';
import { errorLine } from './error-line.js';

/** Reports are rewritten this often while traffic comes (and once more on stop). */
export const REPORT_EVERY_MS = 10_000;
/** Exchanges handed to the judge and not judged yet, at most; past this, forwarded but not judged. */
const MAX_WAITING = 1000;
/** Bodies copied for judging, across every exchange in flight and waiting for the judge, at most
 *  this many times the body cap (one body at the cap and its request always fit); past it, an
 *  exchange streams through and is not judged. Judging a body costs some times its size again on
 *  the judge's thread: two, not more, keep 80 clients fetching 9.5 MiB each under 250 MB. */
export const ROOM_BODIES = 2;
/** Distinct finding lines printed; past this, findings only reach the reports. */
const MAX_LINES = 10_000;
/** On stop, exchanges in flight get this long to finish. */
const GRACE_MS = 5000;

/** The hand-over to the judge, bounded across every exchange at once: the bytes copied for judging
 *  (while exchanges are forwarded, and while they wait for the judge) never pass `maxBytes`, and at
 *  most `maxCount` exchanges wait. The proxy asks for room before it copies anything of an exchange
 *  and as each chunk comes; one that finds none is forwarded whole, not judged, and counted. */
export class JudgeQueue implements CopyRoom {
  private count = 0;
  private bytes = 0;
  private readonly sizes: number[] = [];
  /** Exchanges handed to the judge. */
  handed = 0;
  /** Exchanges forwarded but never judged. */
  unjudged = 0;
  /** Of those, by reason other than the room: their client kept the proxy waiting past --timeout, or
   *  fell behind the pace that has its body whole within it (their room given back to another
   *  exchange), or hung up before its answer was whole, or had not sent its body in time (408), or
   *  kept it waiting when a new connection came at the bound of open connections. */
  readonly byReason = { 'slow-request': 0, 'slow-answer': 0, 'lagging-request': 0, 'lagging-answer': 0, 'client-gone': 0, 'request-timeout': 0, 'stalled-at-bound': 0, 'upload-cut': 0, 'bad-body': 0 };
  /** Set when the judge is gone: nothing more is copied. */
  closed = false;
  constructor(private readonly maxCount: number, private readonly maxBytes: number, private readonly send: (ex: ForwardedExchange) => void) {}
  open(): boolean { return !this.closed && this.count < this.maxCount && this.bytes < this.maxBytes; }
  short(): boolean { return !this.closed && this.count < this.maxCount && this.bytes >= this.maxBytes; }
  take(bytes: number): boolean {
    if (this.bytes + bytes > this.maxBytes) return false;
    this.bytes += bytes;
    return true;
  }
  give(bytes: number): void { this.bytes -= bytes; }
  /** An exchange copied whole: handed to the judge, its bytes held until judged; or, with no room
   *  in the count (or no judge), given back and counted. */
  offer(ex: ForwardedExchange): boolean {
    if (this.closed || this.count >= this.maxCount) { this.give(ex.held); this.unjudged++; return false; }
    this.count++;
    this.handed++;
    this.sizes.push(ex.held);
    this.send(ex);
    return true;
  }
  /** The judge finished the oldest exchange handed over (it judges them in order; it says so for
   *  several at once, one call each). */
  judged(): void {
    this.count--;
    this.give(this.sizes.shift() ?? 0);
  }
  /** An exchange forwarded, never to be judged, and why. */
  notJudged(why: Unjudged): void {
    this.unjudged++;
    if (why !== 'room') this.byReason[why]++;
  }
  get waiting(): number { return this.count; }
  /** Bytes of copies held now. */
  get held(): number { return this.bytes; }
}

/** The bodies an exchange hands over, to be moved (not copied) to the judge's thread. */
const transferable = (ex: ForwardedExchange): ArrayBuffer[] =>
  [ex.requestBody?.buffer, ex.answer?.body?.buffer].filter((b): b is ArrayBuffer => b instanceof ArrayBuffer && b.byteLength > 0);

const mib = (bytes: number) => `${+(bytes / 1024 / 1024).toFixed(1)} MiB`;
const share = (n: number, of: number) => `${of ? Math.floor((100 * n) / of) : 100}%`;

/** What the console and the reports say of the exchanges forwarded but not judged: how many of how
 *  many, and why (with more than one reason, how many had each, after it: the first words stay). */
export function notJudgedNote(queue: Pick<JudgeQueue, 'handed' | 'unjudged' | 'byReason'>, run: { roomBytes: number; timeoutMs: number; judgeStopped: boolean }, soFar = ''): string {
  const forwarded = queue.handed + queue.unjudged;
  const { 'slow-request': slowRequests, 'slow-answer': slowAnswers, 'lagging-request': laggingRequests, 'lagging-answer': laggingAnswers, 'client-gone': gone, 'request-timeout': cut, 'stalled-at-bound': crowded, 'upload-cut': uploadCut, 'bad-body': badBody } = queue.byReason;
  const timeout = `${run.timeoutMs / 1000} s`;
  const reasons = ([
    // The room's share: what no other reason counts.
    [queue.unjudged - Object.values(queue.byReason).reduce((sum, n) => sum + n, 0), run.judgeStopped ? 'the judge stopped' : `past the bound of ${mib(run.roomBytes)} copied for judging across the exchanges in flight, or of ${MAX_WAITING} waiting for the judge`],
    [slowAnswers, `the client read its answer too slowly: not whole ${timeout} after its first byte (--timeout), and its room was needed`],
    [slowRequests, `the client sent its request too slowly: not whole ${timeout} after its head (--timeout), and its room was needed`],
    [laggingAnswers, `the client was reading its answer too slowly to have it whole ${timeout} after its first byte (--timeout), and its room was needed`],
    [laggingRequests, `the client was sending its request too slowly to have it whole ${timeout} after its head (--timeout), and its room was needed`],
    [gone, 'the client closed its connection before its answer was whole'],
    [cut, `the client had not sent its request's body whole ${bodyDeadline(run.timeoutMs) / 1000} s after its head: answered 408 and its connection closed`],
    [uploadCut, 'the target closed the connection while the request\'s body was still being sent to it (as a target refusing an upload does after an early answer, a 413, which the reset loses: RFC 9112 9.6), so what it answered is not known; its client was answered 502'],
    [badBody, 'the client\'s request body could not be read (its chunked framing broken): the client was answered 400, and the request to the target, whose head and body so far had been forwarded, was cut short'],
    [crowded, 'the client kept it waiting (its body not coming, its answer not read) when a new connection came at the bound of open connections, moving fewest bytes per second: its connection was closed for the new one'],
  ] as const).filter(([count]) => count > 0);
  const why = reasons.length === 1 ? reasons[0]![1] : reasons.map(([count, reason]) => `${reason} (${count})`).join('; ');
  return `${soFar}${queue.unjudged} of ${forwarded} exchange(s) forwarded were not judged (${share(queue.handed, forwarded)} judged): ${why}; they streamed through unjudged`;
}

/** The line on the target's informational answers (1xx) not passed on, or undefined when none were. */
export function informationalNote(dropped: number, replaced: number): string | undefined {
  if (!dropped) return undefined;
  const instead = replaced ? `; ${replaced} of them a 100 its client was waiting for, which went to it as a plain \`100 Continue\` in its place` : '';
  return `${dropped} informational answer(s) (1xx) from the target were not passed on: past ${MAX_INFORMATIONAL} before one answer, while its client had not taken those before, or holding a character HTTP forbids${instead}`;
}

/** `checks`: the selection for traffic through a proxy (the answer checks and the request checks). */
export async function runProxy(config: Config, dir: string, checks: readonly Check[]): Promise<number> {
  const target = config.baseUrl!;
  const listen = config.proxy!;
  const since = Date.now();
  // Quiet: the proxy prints findings as they happen, not a progress line.
  const session = { ...setupOf(config, dir, { baseUrl: target, description: 'traffic through the validating proxy' }), quiet: true };
  const setup: JudgeSetup = {
    session, checkIds: checks.map((c) => c.id), namespaces: config.namespaces,
    reportEveryMs: REPORT_EVERY_MS, maxLines: MAX_LINES, maxBodyBytes: config.maxBodyBytes, priority: config.judgePriority, gate: liveGate(),
  };
  const say = (line: string) => process.stdout.write(`${line}\n`);
  const judge = new Worker(fromRoot('bin', 'run.mjs'), { argv: ['cli/proxy-judge'], workerData: setup });
  // Exchanges finished in one turn of this loop go to the judge in one message, at its end.
  let batch: ForwardedExchange[] = [];
  // (A Set: a buffer named twice in one transfer list is refused.)
  let moved = new Set<ArrayBuffer>();
  const handOver = () => {
    if (!batch.length) return;
    judge.postMessage({ kind: 'exchanges', exchanges: batch } satisfies ToJudge, [...moved]);
    batch = [];
    moved = new Set();
  };
  // Anything else told to the judge comes after the exchanges finished before it.
  const toJudge = (m: ToJudge) => { handOver(); judge.postMessage(m); };
  const roomBytes = ROOM_BODIES * config.maxBodyBytes;
  const queue = new JudgeQueue(MAX_WAITING, roomBytes, (exchange) => {
    if (!batch.length) setImmediate(handOver);
    batch.push(exchange);
    for (const b of transferable(exchange)) moved.add(b);
  });
  let lost: string | undefined;
  type Final = Extract<FromJudge, { kind: 'final' }> | undefined;
  let final: ((m: Final) => void) | undefined;
  const finalMessage = new Promise<Final>((resolve) => { final = resolve; });
  let ready: ((up: boolean) => void) | undefined;
  let started = false;
  const judgeUp = new Promise<boolean>((resolve) => { ready = resolve; });
  // The judge's children, started here at this thread's priority (see FromJudge's 'child').
  const children = new Map<number, ChildAhead>();
  judge.on('message', (m: FromJudge) => {
    if (m.kind === 'ready') { started = true; ready!(true); }
    else if (m.kind === 'judged') { for (let i = 0; i < m.count; i++) queue.judged(); for (const line of m.lines) say(line); }
    else if (m.kind === 'problems') for (const p of m.problems) errorLine(`conformance: ${p}`);
    else if (m.kind === 'child') children.set(m.id, childAhead(m.args, m.stdout));
    else if (m.kind === 'child-run') {
      const child = children.get(m.id);
      children.delete(m.id);
      void child?.run(m.line, m.timeoutMs).then((r) => judge.postMessage({ kind: 'child-ran', id: m.id, ...r } satisfies ToJudge));
    } else final!(m);
  });
  // A judge that stopped leaves the traffic as it was: forwarding goes on, nothing more is judged.
  const judgeLost = (why: string) => {
    if (lost) return;
    lost = why;
    queue.closed = true;
    process.stderr.write(started
      ? `conformance: the judge stopped (${why}); traffic is still forwarded but no longer judged\n`
      : `conformance: the judge could not start (${why}); nothing was forwarded\n`);
    final!(undefined);
    ready!(false);
  };
  judge.on('error', (e) => judgeLost(e.message.split('\n')[0]!));
  judge.on('exit', (code) => judgeLost(`exit ${code}`));

  // Nothing is forwarded before the judge can take it: a judge that cannot start stops the run here.
  if (!(await judgeUp)) return 2;
  const proxy = await startProxy({
    target, port: listen.port, host: listen.host, maxBodyBytes: config.maxBodyBytes, timeoutMs: config.timeoutMs,
    room: queue, onExchange: (ex) => queue.offer(ex), onUnjudged: (why) => queue.notJudged(why),
  }).catch(async (e: NodeJS.ErrnoException) => {
    judge.removeAllListeners('exit'); // stopped on purpose: not a judge that was lost
    await judge.terminate();
    throw Object.assign(new Error(listenProblem(e, listen.host, listen.port)), { code: 'LISTEN' });
  });

  const unjudgedNote = (soFar = '') => notJudgedNote(queue, { roomBytes, timeoutMs: config.timeoutMs, judgeStopped: lost !== undefined }, soFar);
  // The reports written while traffic comes say how much of it went unjudged so far, as the last one does.
  let told = 0;
  const counting = setInterval(() => {
    if (lost || queue.unjudged === told) return;
    told = queue.unjudged;
    toJudge({ kind: 'unjudged', note: unjudgedNote('so far, '), count: told });
  }, REPORT_EVERY_MS / 2);
  counting.unref();

  return new Promise<number>((resolve) => {
    // Before the URL is announced: a caller may signal as soon as it reads it.
    stopOnSignals({
      name: 'conformance', exit: resolve, atOnce: stoppedAtOnce(dir, 'conformance'), finish: async () => {
        await proxy.close(GRACE_MS);
        clearInterval(counting);
        const notes: string[] = [];
        if (queue.unjudged) notes.push(unjudgedNote());
        // Connections closed with no whole request are no exchanges: said apart from the unjudged
        // ones (in the reports, and in the summary printed from them).
        const connections = proxy.connectionsNote();
        if (connections) notes.push(connections);
        const informational = informationalNote(proxy.informationalDropped(), proxy.informationalReplaced());
        if (informational) notes.push(informational);
        if (proxy.refused()) notes.push(`${proxy.refused()} request(s) refused with 400, nothing of them forwarded: their framing, request target or Host could not be forwarded as they came (each client was told which)`);
        if (proxy.busyRefused()) notes.push(`${proxy.busyRefused()} request(s) refused with 503, nothing of them forwarded: the heads of the requests being forwarded passed ${MAX_HEADS_IN_FLIGHT / (1024 * 1024)} MiB`);
        // The summary printed from the last reports says them; without a judge to write those, here.
        if (!lost) toJudge({ kind: 'stop', notes, unjudged: queue.unjudged });
        else for (const note of notes) say(`  ! ${note}`);
        const m = await finalMessage;
        judge.removeAllListeners('exit');
        await judge.terminate();
        if (!m) {
          // Those it wrote before would state a verdict of part of the traffic, as if of all of it.
          const again = await restateWithProblem(dir, since, config.reports, `the judge stopped (${lost!}): the traffic after it was forwarded, not judged; these reports are of what it judged before`);
          if (again) return finish(again, 'conformance');
          process.stderr.write('conformance: the reports could not be written a last time: the judge had stopped\n');
          return 2;
        }
        return finish(m.written, 'conformance');
      },
    });
    say(`conformance: proxying ${proxy.url} → ${displayLine(target)}, ${checks.length} checks; findings as they happen; reports in ${dir} every ${REPORT_EVERY_MS / 1000} s and on stop (Ctrl-C)`);
  });
}
