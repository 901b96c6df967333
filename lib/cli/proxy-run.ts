// --proxy: the validating proxy. Clients talk to it as they would to the deployment; it forwards
// everything unchanged (lib/traffic/proxy.ts) and judges each finished exchange off the forwarding
// path: a copy goes to the judge, a worker thread of its own at the lowest CPU priority
// (lib/cli/proxy-judge.ts), so no judgement ever takes a turn of the loop that forwards. What waits
// for the judge is bounded in count and bytes; past that, an exchange is forwarded, not judged, and
// counted in the reports. Findings are printed as they happen, each distinct one once; the reports
// are rewritten every few seconds while something changed, and on SIGINT/SIGTERM, after which the
// run exits with the traffic's verdict.
import { Worker } from 'node:worker_threads';
import type { Check } from '../checks/check.js';
import type { Exchange } from '../http/exchange.js';
import { fromRoot } from '../paths.js';
import { displayLine } from '../reporting/display.js';
import { startProxy } from '../traffic/proxy.js';
import { PERSONAL_DATA_SHOWN, type Config } from './config.js';
import type { FromJudge, JudgeSetup, ToJudge } from './proxy-judge.js';
import { finish } from './write-reports.js';

/** Reports are rewritten this often while traffic comes (and once more on stop). */
export const REPORT_EVERY_MS = 10_000;
/** Exchanges handed to the judge and not judged yet, at most; past this, forwarded but not judged. */
const MAX_WAITING = 1000;
/** Distinct finding lines printed; past this, findings only reach the reports. */
const MAX_LINES = 10_000;
/** On stop, exchanges in flight get this long to finish. */
const GRACE_MS = 5000;

/** The bytes an exchange holds (its copied bodies): what waiting for the judge costs in memory. */
const bytesOf = (ex: Exchange) => (ex.request.body?.length ?? 0) + (ex.response?.body.length ?? 0);

/** The hand-over to the judge, bounded: at most `maxCount` exchanges and `maxBytes` of bodies wait
 *  to be judged; one that would go past either is not handed over (and is counted). */
export class JudgeQueue {
  private count = 0;
  private bytes = 0;
  private readonly sizes: number[] = [];
  /** Exchanges forwarded but never judged. */
  unjudged = 0;
  constructor(private readonly maxCount: number, private readonly maxBytes: number, private readonly send: (ex: Exchange) => void) {}
  offer(ex: Exchange): boolean {
    const size = bytesOf(ex);
    if (this.count >= this.maxCount || (this.count > 0 && this.bytes + size > this.maxBytes)) { this.unjudged++; return false; }
    this.count++;
    this.bytes += size;
    this.sizes.push(size);
    this.send(ex);
    return true;
  }
  /** The judge finished the oldest exchange handed over (it judges them in order). */
  judged(): void {
    this.count--;
    this.bytes -= this.sizes.shift() ?? 0;
  }
  get waiting(): number { return this.count; }
}

/** `checks`: the selection for traffic through a proxy (the answer checks and the request checks). */
export async function runProxy(config: Config, dir: string, checks: readonly Check[]): Promise<number> {
  const target = config.baseUrl!;
  const listen = config.proxy!;
  const setup: JudgeSetup = {
    checkIds: checks.map((c) => c.id), namespaces: config.namespaces, reportDir: dir, showPersonalData: config.showPersonalData,
    secrets: Object.values(config.headers), baseUrl: target, reportEveryMs: REPORT_EVERY_MS, maxLines: MAX_LINES,
    targetDescription: 'traffic through the validating proxy',
    configuration: { baseUrl: target, proxy: `${listen.host}:${listen.port}`, reportDir: dir, namespaces: config.namespaces, maxBodyBytes: config.maxBodyBytes, timeoutMs: config.timeoutMs },
    warnings: config.showPersonalData ? [PERSONAL_DATA_SHOWN] : [],
    gate: config.failOn,
  };
  const say = (line: string) => process.stdout.write(`${line}\n`);
  const judge = new Worker(fromRoot('bin', 'run.mjs'), { argv: ['cli/proxy-judge'], workerData: setup });
  const toJudge = (m: ToJudge) => judge.postMessage(m);
  // Four bodies at the cap may wait; one over it never reaches the judge as a body anyway.
  const queue = new JudgeQueue(MAX_WAITING, 4 * config.maxBodyBytes, (exchange) => toJudge({ kind: 'exchange', exchange }));
  let lost: string | undefined;
  type Final = Extract<FromJudge, { kind: 'final' }> | undefined;
  let final: ((m: Final) => void) | undefined;
  const finalMessage = new Promise<Final>((resolve) => { final = resolve; });
  let ready: ((up: boolean) => void) | undefined;
  let started = false;
  const judgeUp = new Promise<boolean>((resolve) => { ready = resolve; });
  judge.on('message', (m: FromJudge) => {
    if (m.kind === 'ready') { started = true; ready!(true); }
    else if (m.kind === 'judged') { queue.judged(); for (const line of m.lines) say(line); }
    else if (m.kind === 'problems') for (const p of m.problems) process.stderr.write(`conformance: ${p}\n`);
    else final!(m);
  });
  // A judge that stopped leaves the traffic as it was: forwarding goes on, nothing more is judged.
  const judgeLost = (why: string) => {
    if (lost) return;
    lost = why;
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
    onExchange: (ex) => { if (lost) queue.unjudged++; else queue.offer(ex); },
  }).catch(async (e: NodeJS.ErrnoException) => {
    await judge.terminate();
    throw Object.assign(new Error(`cannot listen on ${listen.host}:${listen.port}: ${e.code ?? e.message}`), { code: 'LISTEN' });
  });

  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = () => {
      if (stopping) { process.stderr.write('conformance: stopped at once (second signal); the reports may be older\n'); process.exit(2); }
      stopping = true;
      void (async () => {
        await proxy.close(GRACE_MS);
        const notes: string[] = [];
        if (queue.unjudged) {
          notes.push(`${queue.unjudged} exchange(s) were forwarded but not judged: the judge could not keep up${lost ? ' (it stopped)' : ''}`);
          say(`  ! ${notes[0]}`);
        }
        if (!lost) toJudge({ kind: 'stop', notes });
        const m = await finalMessage;
        judge.removeAllListeners('exit');
        await judge.terminate();
        if (!m) { process.stderr.write('conformance: the reports could not be written a last time: the judge had stopped\n'); resolve(2); return; }
        resolve(finish(m.written, 'conformance'));
      })();
    };
    // Before the URL is announced: a caller may signal as soon as it reads it.
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    say(`conformance: proxying ${proxy.url} → ${displayLine(target)}, ${checks.length} checks; findings as they happen; reports in ${dir} every ${REPORT_EVERY_MS / 1000} s and on stop (Ctrl-C)`);
  });
}
