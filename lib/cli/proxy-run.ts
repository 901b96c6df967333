// --proxy: the validating proxy. Clients talk to it as they would to the deployment; it forwards
// everything unchanged (lib/traffic/proxy.ts) and judges each finished exchange off the forwarding
// path: the judging waits for a free turn of the event loop, never the other way round. Findings are
// printed as they happen, each distinct one once (hours of traffic repeat the same few); the
// reports are rewritten every few seconds while something changed, and on SIGINT/SIGTERM, after
// which the run exits with the traffic's verdict.
import type { Check } from '../checks/check.js';
import type { Exchange } from '../http/exchange.js';
import { displayLine } from '../reporting/display.js';
import { startProxy } from '../traffic/proxy.js';
import type { Config } from './config.js';
import { findingLines, LiveJudging } from './live-judging.js';
import { finish } from './write-reports.js';

/** Reports are rewritten this often while traffic comes (and once more on stop). */
export const REPORT_EVERY_MS = 10_000;
/** Exchanges waiting to be judged; past this, an exchange is forwarded but not judged (and counted). */
const MAX_WAITING = 1000;
/** Distinct finding lines printed; past this, findings only reach the reports. */
const MAX_LINES = 10_000;
/** On stop, exchanges in flight get this long to finish. */
const GRACE_MS = 5000;

/** "✗ ID [LEVEL] proxy.12 POST /x: message" without the exchange id: the same finding on another exchange. */
const distinct = (line: string) => line.replace(/ proxy\.\d+ /, ' ').replace(/"(?:[^"\\]|\\.)*"/g, '"…"');

/** `checks`: the selection for traffic through a proxy (the answer checks and the request checks). */
export async function runProxy(config: Config, dir: string, checks: readonly Check[]): Promise<number> {
  const target = config.baseUrl!;
  const listen = config.proxy!;
  const live = new LiveJudging({
    checks, namespaces: config.namespaces, reportDir: dir, showPersonalData: config.showPersonalData, secrets: Object.values(config.headers),
    targetDescription: 'traffic through the validating proxy',
    configuration: { baseUrl: target, proxy: `${listen.host}:${listen.port}`, reportDir: dir, namespaces: config.namespaces, maxBodyBytes: config.maxBodyBytes, timeoutMs: config.timeoutMs },
    warnings: config.showPersonalData ? ['personal data is shown in these reports (--show-personal-data): do not share them'] : [],
  });
  live.baseUrl = target;
  const waiting: Exchange[] = [];
  const printed = new Set<string>();
  let unjudged = 0;
  let scheduled = false;
  const say = (line: string) => process.stdout.write(`${line}\n`);

  const drain = () => {
    scheduled = false;
    // A few at a time, then yield: forwarding always gets the next turn.
    for (let i = 0; i < 16 && waiting.length; i++) {
      const ex = waiting.shift()!;
      for (const line of findingLines(ex, live.judgeExchange(ex), live.redactor, false)) {
        const key = distinct(line);
        if (printed.has(key) || printed.size >= MAX_LINES) continue;
        printed.add(key);
        say(line);
      }
    }
    if (waiting.length) { scheduled = true; setImmediate(drain); }
  };

  const proxy = await startProxy({
    target, port: listen.port, host: listen.host, maxBodyBytes: config.maxBodyBytes, timeoutMs: config.timeoutMs,
    onExchange: (ex) => {
      if (waiting.length >= MAX_WAITING) { unjudged++; return; }
      waiting.push(ex);
      if (!scheduled) { scheduled = true; setImmediate(drain); }
    },
  }).catch((e: NodeJS.ErrnoException) => { throw Object.assign(new Error(`cannot listen on ${listen.host}:${listen.port}: ${e.code ?? e.message}`), { code: 'LISTEN' }); });

  const rewrite = async () => {
    const w = await live.report();
    for (const p of w.problems) process.stderr.write(`conformance: ${p}\n`);
  };
  let rewriting: Promise<void> | undefined;
  const timer = setInterval(() => {
    if (!live.changed || rewriting) return;
    rewriting = rewrite().finally(() => { rewriting = undefined; });
  }, REPORT_EVERY_MS);

  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = () => {
      if (stopping) { process.stderr.write('conformance: stopped at once (second signal); the reports may be older\n'); process.exit(2); }
      stopping = true;
      clearInterval(timer);
      void (async () => {
        await proxy.close(GRACE_MS);
        while (waiting.length) drain();
        await rewriting;
        if (unjudged) {
          const note = `${unjudged} exchange(s) were forwarded but not judged: the judge could not keep up`;
          say(`  ! ${note}`);
          live.warnings.push(note);
        }
        const written = await live.report();
        resolve(finish(written, 'conformance'));
      })();
    };
    // Before the URL is announced: a caller may signal as soon as it reads it.
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    say(`conformance: proxying ${proxy.url} → ${displayLine(target)}, ${checks.length} checks; findings as they happen; reports in ${dir} every ${REPORT_EVERY_MS / 1000} s and on stop (Ctrl-C)`);
  });
}
