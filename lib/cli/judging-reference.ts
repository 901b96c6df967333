// The judging reference (`npm run reference -- --judge-clients`): the reference answers every request
// as it always does, and every request a client sends is judged by the Requests checks, through the
// same classifier, views and tallies as recorded traffic. Each finding is printed as one line as it
// happens (redacted, display-safe); a refusal names the checks the request fails; the reports are
// written on demand (GET /__conformance/report: coalesced, and only for a caller that addressed this
// reference by its own address) and when the reference stops, each stating the connections closed or
// refused so far. Verdicts aggregate per check across all requests, as for accounts.
import { checksFor } from '../checks/catalogue.js';
import { isSkip, type Check } from '../checks/check.js';
import { ExchangeView } from '../checks/exchange-view.js';
import { requestTargetUrl } from '../contract/classify.js';
import { DEFAULT_NAMESPACES, type ServiceNamespaces } from '../contract/namespaces.js';
import type { ConnectionCounts } from '../http/connection-guard.js';
import { recordedResponse, unspellableTarget, type Exchange } from '../http/exchange.js';
import { startReference, type ReceivedRequest, type ReferenceOptions } from '../reference/server.js';
import { summaryOf } from '../reporting/report.js';
import { PERSONAL_DATA_SHOWN } from './config.js';
import { findingLines, LiveJudging } from './live-judging.js';
import { openSession } from './session.js';
import type { ReportName, Written } from './write-reports.js';

/** Writes every report now and answers with summary.json (redacted like the file). */
export const REPORT_ROUTE = '/__conformance/report';

/** The checks a judging reference runs: those of what a client sends. Its own answers are the
 *  reference's, proven by the sensitivity matrix; judging them here would only repeat that. */
export const CLIENT_CHECKS: readonly Check[] = checksFor(new Set(['client'])).filter((c) => c.side === 'request');

export interface JudgingOptions extends Omit<ReferenceOptions, 'observer'> {
  readonly reportDir: string;
  /** Where each finding's line goes (default: stdout). */
  readonly print?: (line: string) => void;
  readonly showPersonalData?: boolean;
  /** The options as given (the reports show them). */
  readonly given?: Readonly<Record<string, unknown>>;
  /** The reports to write (all when not given). */
  readonly reports?: ReadonlySet<ReportName>;
}

export interface JudgingReference {
  readonly url: string;
  readonly port: number;
  /** Connections open now, and those closed or refused with no whole request (no exchange, not judged). */
  readonly connections: ConnectionCounts;
  /** Writes every report of what was judged so far (they say the run is in progress). */
  report(): Promise<Written>;
  /** Stops serving, then writes the reports a last time. */
  stop(): Promise<Written>;
  /** Stops serving; writes nothing. */
  close(): Promise<void>;
}

const pathOf = (url: string) => url.split('?')[0]!;

/** Response header of GET /__conformance/report: the number of the write its summary comes from
 *  (answers of one write share it). */
export const WRITE_HEADER = 'x-conformance-report-write';

/** The Host values that name the listening address: its host:port, and localhost:port when that is
 *  loopback (a browser sends the page's own host name, never "localhost", for a rebound name). */
function hostsOf(url: string): string[] {
  const { host, hostname, port } = new URL(url);
  const loopback = hostname === '127.0.0.1' || hostname === '[::1]';
  return [host, ...(loopback ? [port ? `localhost:${port}` : 'localhost'] : [])];
}

/** Why GET /__conformance/report refuses a request, or undefined. It writes files and answers with
 *  what clients sent, so only a caller that addressed this reference by its own address is served: a
 *  Host naming anything else is DNS rebinding (a page's host name resolved to this address), and an
 *  Origin header is a web page's request (a browser sends it on every cross-origin and no-cors fetch). */
function refusal(headers: Readonly<Record<string, string>>, listening: readonly string[]): string | undefined {
  if (headers.origin !== undefined) return `refused: ${REPORT_ROUTE} answers no request with an Origin header (a web page's request)`;
  const host = headers.host?.toLowerCase();
  if (host === undefined || !listening.includes(host)) return `refused: ${REPORT_ROUTE} answers only requests whose Host is ${listening[0]} (the address it listens on)`;
  return undefined;
}

/** Writes of the reports on demand, coalesced: a call while a write runs shares it when nothing it
 *  reports (`state`: the exchanges judged, the connections' line) changed since it started, else
 *  shares the one write queued behind it; a call with nothing changed since the last write answers
 *  from that write. A caller in a loop costs at most one write per change, never a queue of rewrites. */
class ReportWrites {
  private last: { readonly written: Written; readonly number: number; readonly state: string } | undefined;
  private running: { readonly done: Promise<Written & { number: number }>; readonly state: string } | undefined;
  private queued: Promise<Written & { number: number }> | undefined;
  private count = 0;

  constructor(private readonly write: () => Promise<Written>, private readonly state: () => string) {}

  request(): Promise<Written & { number: number }> {
    const state = this.state();
    if (this.queued) return this.queued;
    if (this.running) {
      if (this.running.state === state) return this.running.done;
      const after = this.running.done.catch(() => undefined);
      return (this.queued = after.then(() => { this.queued = undefined; return this.request(); }));
    }
    if (this.last && this.last.state === state) return Promise.resolve({ ...this.last.written, number: this.last.number });
    const number = ++this.count;
    const done = this.write().then((written) => {
      this.last = { written, number, state };
      return { ...written, number };
    }).finally(() => { this.running = undefined; });
    this.running = { done, state };
    return done;
  }
}

export async function startJudgingReference(options: JudgingOptions): Promise<JudgingReference> {
  const { reportDir, showPersonalData = false, given = {}, reports, ...reference } = options;
  // stdout's lines of one turn of the loop in one write: a write per line was a sixth of the CPU.
  let pending: string[] = [];
  const flush = () => {
    if (!pending.length) return;
    process.stdout.write(`${pending.join('\n')}\n`);
    pending = [];
  };
  const print = options.print ?? ((line: string) => { if (pending.push(line) === 1) setImmediate(flush); });
  const namespaces: ServiceNamespaces = { ...DEFAULT_NAMESPACES, ...reference.namespaces };
  const settings = { namespaces };
  const session = openSession({
    program: 'reference', reportDir, target: { baseUrl: '', description: 'clients of the judging reference' },
    options: given, effective: { reportDir, namespaces, checks: CLIENT_CHECKS.length }, given, headers: {}, showPersonalData,
    warnings: showPersonalData ? [PERSONAL_DATA_SHOWN] : [], gate: 'must', quiet: true, ...(reports ? { reports } : {}),
  });
  // An answer the reference wrote before (its cached replies: the same header map and bytes) teaches
  // the run's fingerprints nothing new: learned once, not walked again for every client that gets it.
  const learned = new WeakMap<object, WeakSet<Buffer>>();
  const learn: typeof session.learn = (ex, parsed, keysOf) => {
    const r = ex.response;
    if (!r) { session.learn(ex, parsed, keysOf); return; }
    let bodies = learned.get(r.headers);
    if (bodies?.has(r.body)) {
      const { response: _answer, ...request } = ex;
      session.learn(request, undefined, keysOf);
      return;
    }
    session.learn(ex, parsed, keysOf);
    if (!bodies) learned.set(r.headers, (bodies = new WeakSet()));
    bodies.add(r.body);
  };
  const live = new LiveJudging(session, CLIENT_CHECKS, namespaces, learn);
  let base = '';
  let n = 0;
  // host:port as a client of the listening address names it; set once listening.
  let listening: readonly string[] = [];
  // Set once listening: the line on connections closed or refused so far (none judged: no whole
  // request came, or it was cut), and the reports written stating it, on demand and on stop alike.
  let connectionsNote = (): string | undefined => undefined;
  const report = (last = false): Promise<Written> => {
    live.state('connections', connectionsNote());
    return live.report(last);
  };
  const writes = new ReportWrites(() => report(), () => `${live.exchanges} ${connectionsNote() ?? ''}`);

  const exchangeOf = (r: ReceivedRequest, id: string, response?: Exchange['response'], at = '', durationMs = 0): Exchange => ({
    id, title: `${r.method} ${pathOf(r.url)} sent by a client`, origin: { source: 'client', vouched: false }, startedAt: at, durationMs,
    request: { method: r.method, url: requestTargetUrl(base, r.url), ...(r.url.startsWith('/') && !unspellableTarget(r.url) ? {} : { asSent: { target: r.url, origin: base } }), headers: r.headers, ...(r.rawHeaders ? { rawHeaders: r.rawHeaders } : {}), ...(r.body !== undefined ? { body: r.body } : {}), ...(r.notUtf8At !== undefined ? { notUtf8At: r.notUtf8At } : {}), ...(r.bodyLeftOut ? { bodyLeftOut: true as const } : {}) },
    ...(response ? { response } : { error: { kind: 'not-recorded', message: 'not answered yet' } }),
  });

  const running = await startReference({
    ...reference,
    observer: {
      // The request checks run here on the request alone, to name them in a refusal, and again in
      // answered() through the judge, which tallies them: they read only the request and are cheap,
      // and one path into the tallies keeps the judging reference's verdicts those of any other run.
      judgeRequest: (r) => {
        const view = new ExchangeView(exchangeOf(r, 'pending'), settings);
        return CLIENT_CHECKS.filter((c) => c.appliesTo(view)).filter((c) => { const look = c.judge(view); return !isSkip(look) && look.length > 0; }).map((c) => c.id);
      },
      answered: (r, answer, at, durationMs) => {
        if (pathOf(r.url) === REPORT_ROUTE) return;
        const ex = exchangeOf(r, `client.${++n}`, recordedResponse(answer.status, answer.headers, answer.body, answer.reason, answer.rawHeaders), at, durationMs);
        const view = new ExchangeView(ex, settings);
        const judged = CLIENT_CHECKS.some((c) => c.appliesTo(view));
        const failures = live.judgeExchange(ex, view);
        if (judged) for (const line of findingLines(ex, failures, live.redactor, true)) print(line);
      },
      ownRoute: (r) => {
        if (pathOf(r.url) !== REPORT_ROUTE || r.method !== 'GET') return undefined;
        const refused = refusal(r.headers, listening);
        if (refused) return Promise.resolve({ status: 403, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: `${refused}\n` });
        return writes.request().then(
          (w) => ({ status: w.problems.length ? 500 : 200, headers: { 'content-type': 'application/json; charset=utf-8', [WRITE_HEADER]: String(w.number) }, body: `${JSON.stringify({ ...summaryOf(w.report), problems: w.problems }, null, 2)}\n` }),
          (e: Error) => ({ status: 500, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: `cannot write the reports: ${e.message.split('\n')[0]}\n` }),
        );
      },
    },
  });
  base = running.url;
  connectionsNote = () => running.connectionsNote();
  session.retarget(base);
  listening = hostsOf(running.url);
  return {
    url: running.url,
    port: running.port,
    get connections() { return running.connections; },
    report: () => report(),
    // A connection closed with no whole request is no exchange, nor a request closed before it came
    // whole: the last reports (and the summary printed from them) say how many, apart, and how many
    // closed at the bound had been answered (judged), as each report on demand did so far.
    stop: async () => {
      await running.close();
      flush();
      return report(true);
    },
    close: () => running.close().finally(flush),
  };
}
