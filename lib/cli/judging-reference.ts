// The judging reference (`npm run reference -- --judge-clients`): the reference answers every request
// as it always does, and every request a client sends is judged by the Requests checks, through the
// same classifier, views and tallies as recorded traffic. Each finding is printed as one line as it
// happens (redacted, display-safe); a refusal names the checks the request fails; the reports are
// written on demand (GET /__conformance/report) and when the reference stops. Verdicts aggregate per
// check across all requests, as for accounts.
import { checksFor } from '../checks/catalogue.js';
import { isSkip, type Check } from '../checks/check.js';
import { ExchangeView } from '../checks/exchange-view.js';
import { DEFAULT_NAMESPACES, type ServiceNamespaces } from '../contract/namespaces.js';
import { recordedResponse, type Exchange } from '../http/exchange.js';
import { startReference, type ReceivedRequest, type ReferenceOptions } from '../reference/server.js';
import { summaryOf } from '../reporting/report.js';
import { PERSONAL_DATA_SHOWN } from './config.js';
import { findingLines, LiveJudging } from './live-judging.js';
import type { Written } from './write-reports.js';

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
}

export interface JudgingReference {
  readonly url: string;
  readonly port: number;
  /** Writes every report of what was judged so far. */
  report(): Promise<Written>;
  /** Stops serving, then writes the reports a last time. */
  stop(): Promise<Written>;
  /** Stops serving; writes nothing. */
  close(): Promise<void>;
}

const pathOf = (url: string) => url.split('?')[0]!;

export async function startJudgingReference(options: JudgingOptions): Promise<JudgingReference> {
  const { reportDir, print = (line: string) => process.stdout.write(`${line}\n`), showPersonalData = false, ...reference } = options;
  const namespaces: ServiceNamespaces = { ...DEFAULT_NAMESPACES, ...reference.namespaces };
  const settings = { namespaces };
  const live = new LiveJudging({
    checks: CLIENT_CHECKS, namespaces, reportDir, showPersonalData, targetDescription: 'clients of the judging reference',
    configuration: { reportDir, namespaces, checks: CLIENT_CHECKS.length },
    warnings: showPersonalData ? [PERSONAL_DATA_SHOWN] : [],
  });
  let base = '';
  let n = 0;

  const exchangeOf = (r: ReceivedRequest, id: string, response?: Exchange['response'], at = '', durationMs = 0): Exchange => ({
    id, title: `${r.method} ${pathOf(r.url)} sent by a client`, origin: { source: 'client', vouched: false }, startedAt: at, durationMs,
    request: { method: r.method, url: `${base}${r.url}`, headers: r.headers, ...(r.body !== undefined ? { body: r.body } : {}), ...(r.notUtf8At !== undefined ? { notUtf8At: r.notUtf8At } : {}) },
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
        const ex = exchangeOf(r, `client.${++n}`, recordedResponse(answer.status, answer.headers, answer.body), at, durationMs);
        const view = new ExchangeView(ex, settings);
        const judged = CLIENT_CHECKS.some((c) => c.appliesTo(view));
        const failures = live.judgeExchange(ex);
        if (judged) for (const line of findingLines(ex, failures, live.redactor, true)) print(line);
      },
      ownRoute: (r) => {
        if (pathOf(r.url) !== REPORT_ROUTE || r.method !== 'GET') return undefined;
        return live.report().then(
          (w) => ({ status: w.problems.length ? 500 : 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body: `${JSON.stringify({ ...summaryOf(w.report), problems: w.problems }, null, 2)}\n` }),
          (e: Error) => ({ status: 500, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: `cannot write the reports: ${e.message.split('\n')[0]}` }),
        );
      },
    },
  });
  base = running.url;
  live.baseUrl = base;
  return {
    url: running.url,
    port: running.port,
    report: () => live.report(),
    stop: async () => { await running.close(); return live.report(); },
    close: () => running.close(),
  };
}
