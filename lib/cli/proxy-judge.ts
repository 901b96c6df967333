// The validating proxy's judge: a worker thread of its own (started by lib/cli/proxy-run.ts through
// bin/run.mjs, so it runs the compiled code or the sources exactly as the proxy does), at the lowest
// CPU priority where the system allows it (unless --judge-priority normal). The forwarding thread only copies each finished exchange
// here (raw headers and bytes, moved, not cloned); mapping, decoding, hashing, checking, redacting,
// printing's wording and report writing all happen on this thread, so a judgement never takes a
// turn of the loop that forwards traffic, and on a busy machine the forwarding (and the deployment
// behind it) get the CPU first.
import { execFileSync } from 'node:child_process';
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { startChildrenWith, type ChildAhead } from '../child-ahead.js';
import { checkById } from '../checks/catalogue.js';
import { collectGarbage, LARGE_BODY_BYTES } from '../engine/collect.js';
import type { Check } from '../checks/check.js';
import { judgeable, type ForwardedExchange } from '../traffic/proxy.js';
import { JudgingPace, PacedQueue } from '../traffic/judging-pace.js';
import { threadBusy } from '../traffic/thread-busy.js';
import type { ServiceNamespaces } from '../contract/namespaces.js';
import { findingLines, LiveJudging } from './live-judging.js';
import { openSession, type SessionSetup } from './session.js';
import { useLiveGate, type Written } from './write-reports.js';

/** What the proxy gives its judge when it starts it: the run's session opens here, from the same setup. */
export interface JudgeSetup {
  readonly session: SessionSetup;
  readonly checkIds: readonly string[];
  readonly namespaces: ServiceNamespaces;
  readonly reportEveryMs: number;
  /** Distinct finding lines sent to be printed; past this, findings only reach the reports. */
  readonly maxLines: number;
  readonly maxBodyBytes: number;
  /** --judge-priority: `idle` lowers this thread's priority as far as it goes. */
  readonly priority: 'idle' | 'normal';
  /** The proxy's liveGate: a stop at once waits while this thread puts a set of reports in place. */
  readonly gate: SharedArrayBuffer;
}

/** Proxy → judge. */
export type ToJudge =
  /** Exchanges finished in one turn of the forwarding loop, oldest first: one message for them all
   *  (a message's own cost was most of what handing one over cost). Their bodies moved here, not
   *  copied; mapped, decoded and hashed here, off the forwarding thread. */
  | { readonly kind: 'exchanges'; readonly exchanges: readonly ForwardedExchange[] }
  /** How much was forwarded unjudged so far: stated in the reports written from now until the next. */
  | { readonly kind: 'unjudged'; readonly note: string; readonly count: number }
  /** Traffic has ended: write the reports a last time, stating `notes`. */
  | { readonly kind: 'stop'; readonly notes: readonly string[]; readonly unjudged: number }
  /** A child the proxy started for the judge (`child`) has run (`run`): what it gave. */
  | { readonly kind: 'child-ran'; readonly id: number; readonly code: number | null; readonly stdout: string; readonly stderr: string };

/** Judge → proxy. */
export type FromJudge =
  /** Set up (checks chosen, priority lowered): the proxy may announce itself. */
  | { readonly kind: 'ready' }
  /** `count` more exchanges judged, oldest first (`lines`: their findings not printed before). */
  | { readonly kind: 'judged'; readonly count: number; readonly lines: readonly string[] }
  /** A rewrite of the reports could not write something. */
  | { readonly kind: 'problems'; readonly problems: readonly string[] }
  | { readonly kind: 'final'; readonly written: Written }
  /** Start a child for the judge (childAhead's), and give it its line: started by the proxy's
   *  thread, at its priority, not the judge's lowest (startChildrenWith). */
  | { readonly kind: 'child'; readonly id: number; readonly args: readonly string[]; readonly stdout: boolean }
  | { readonly kind: 'child-run'; readonly id: number; readonly line: string; readonly timeoutMs: number };

/** While traffic is heavy, the reports are rewritten at least this often all the same. */
const MAX_REPORT_REST_MS = 60_000;

/** "✗ ID [LEVEL] proxy.12 POST /x: message" without the exchange id or quoted values: the same
 *  finding on another exchange (hours of traffic repeat the same few). */
export const distinct = (line: string): string => line.replace(/ proxy\.\d+ /, ' ').replace(/"(?:[^"\\]|\\.)*"/g, '"…"');

/** Linux keeps a nice value per thread: this thread's own becomes 19. Elsewhere (no
 *  /proc/thread-self) the judge keeps the process's priority; it is off the forwarding thread all the same. */
function lowestPriority(): void {
  let tid: number;
  try {
    tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    setPriority(tid, 19);
  } catch { return; /* not Linux, or not allowed: normal priority */ }
  // SCHED_IDLE besides: a thread at nice 19 still keeps a core through the rest of its time slice
  // when the forwarding thread wakes; an idle-policy one gives it up at once. Node cannot set a
  // policy, util-linux's chrt can (one call at start); without it, nice 19 is what there is.
  try {
    execFileSync('chrt', ['--idle', '--pid', '0', String(tid)], { stdio: 'ignore', timeout: 5000 });
  } catch { /* no chrt: nice 19 alone */ }
}

/** Traffic has ended: this thread's last judging and reports are all that is left to do, and at the
 *  idle policy a machine busy with other work would leave them waiting for spare CPU (the stop then
 *  took minutes). Taken back to the normal policy and nice 0 where the system allows it (root, or
 *  an RLIMIT_NICE that reaches 0); elsewhere Linux lets no thread raise its priority, and it stays. */
function normalPriority(): void {
  let tid: number;
  try {
    tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
  } catch { return; }
  try {
    execFileSync('chrt', ['--other', '--pid', '0', String(tid)], { stdio: 'ignore', timeout: 5000 });
  } catch { /* not allowed, or no chrt */ }
  try {
    setPriority(tid, 0);
  } catch { /* not allowed */ }
}

function serve(port: NonNullable<typeof parentPort>, setup: JudgeSetup): void {
  const checks = setup.checkIds.map((id) => checkById.get(id)).filter((c): c is Check => c !== undefined);
  const live = new LiveJudging(openSession(setup.session), checks, setup.namespaces);
  const printed = new Set<string>();
  const post = (m: FromJudge) => port.postMessage(m);
  // The children of the last reports (presentation, Allure) are started by the proxy's thread (see
  // FromJudge's 'child'), at its priority: traffic has ended. Those of a rewrite while traffic comes
  // are started here, at the judge's: at the proxy's they took the CPU from the traffic (through
  // the proxy at saturation, 0.45 of a bare forwarder's rate against 0.55).
  let stopping = false;
  let children = 0;
  const ran = new Map<number, (r: Awaited<ReturnType<ChildAhead['run']>>) => void>();
  startChildrenWith((args, stdout) => {
    if (!stopping) return undefined;
    const id = children++;
    post({ kind: 'child', id, args, stdout });
    return { pid: undefined, run: (line, timeoutMs) => new Promise((resolve) => { ran.set(id, resolve); post({ kind: 'child-run', id, line, timeoutMs }); }) };
  });

  // At the idle policy, the judge rests between slices of work while traffic is heavy
  // (lib/traffic/judging-pace.ts), read from the forwarding thread's busy clock (the process's first
  // thread). At normal priority the user chose to share the CPU with the traffic: no rests.
  const forwarder = setup.priority === 'idle' ? threadBusy(`/proc/${process.pid}/task/${process.pid}/schedstat`) : undefined;
  const pace = forwarder ? new JudgingPace(() => forwarder.busyMs(), () => performance.now()) : undefined;
  let pacedNote: string | undefined;
  const statePace = () => {
    const note = pace?.note();
    if (note === pacedNote) return false;
    live.state('paced', pacedNote = note);
    return true;
  };

  let rewriting: Promise<void> | undefined;
  // The latest word on what went unjudged is stated among the warnings (replaced by the next, and on stop).
  let noteChanged = false;
  // While traffic is heavy a rewrite is work like a judgement (its children run at this thread's
  // policy): the next one waits out its rest, at most MAX_REPORT_REST_MS.
  let rewriteAfter = 0;
  const timer = setInterval(() => {
    if (statePace()) noteChanged = true;
    if ((!live.changed && !noteChanged) || rewriting) return;
    if (pace && performance.now() < rewriteAfter && pace.heavy) { pace.putOff++; return; }
    noteChanged = false;
    const began = performance.now();
    rewriting = live.report().then((w) => { if (w.problems.length) post({ kind: 'problems', problems: w.problems }); })
      .catch((e: Error) => post({ kind: 'problems', problems: [`cannot write the reports: ${e.message.split('\n')[0]}`] }))
      .finally(() => {
        rewriting = undefined;
        if (pace) rewriteAfter = performance.now() + pace.restAfter(performance.now() - began, MAX_REPORT_REST_MS);
      });
  }, setup.reportEveryMs);

  // Exchanges judged since the proxy was last told, and their lines: told once per turn of this
  // thread's loop (the messages waiting are judged first), not once per exchange.
  let judged = 0;
  let lines: string[] = [];
  const tell = () => {
    if (!judged) return;
    post({ kind: 'judged', count: judged, lines });
    judged = 0;
    lines = [];
  };
  const judgeOne = (exchange: ForwardedExchange) => {
    const ex = judgeable(exchange, setup.maxBodyBytes);
    const failures = live.judgeExchange(ex);
    // Lines are made (and redacted) only while some may still be printed.
    if (printed.size < setup.maxLines) {
      for (const line of findingLines(ex, failures, live.redactor, false)) {
        const key = distinct(line);
        if (printed.has(key) || printed.size >= setup.maxLines) continue;
        printed.add(key);
        lines.push(line);
      }
    }
    if (!judged++) setImmediate(tell);
    if (exchange.held >= LARGE_BODY_BYTES) { tell(); collectGarbage(); }
  };
  const waiting = new PacedQueue(judgeOne, pace);
  port.on('message', (m: ToJudge) => {
    if (m.kind === 'child-ran') { ran.get(m.id)?.(m); ran.delete(m.id); return; }
    if (m.kind === 'unjudged') { live.state('unjudged', m.note); live.unjudged = m.count; noteChanged = true; return; }
    if (m.kind === 'exchanges') {
      waiting.push(m.exchanges);
      return;
    }
    clearInterval(timer);
    stopping = true;
    if (setup.priority === 'idle') normalPriority();
    // Traffic has ended: what waited is judged now, without rests.
    waiting.finish();
    forwarder?.close();
    statePace();
    tell();
    void (async () => {
      await rewriting;
      live.state('unjudged', undefined);
      live.unjudged = m.unjudged;
      live.warnings.push(...m.notes);
      post({ kind: 'final', written: await live.report(true) });
    })();
  });
  post({ kind: 'ready' });
}

if (parentPort) {
  const setup = workerData as JudgeSetup;
  useLiveGate(setup.gate);
  if (setup.priority === 'idle') lowestPriority();
  serve(parentPort, setup);
} else {
  process.stderr.write('proxy-judge: this is the validating proxy\'s judge; it runs inside `conformance --proxy`\n');
  process.exitCode = 2;
}
